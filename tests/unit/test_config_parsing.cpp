#include "core/plugin/transport_selection.hpp"
#include "util/params.hpp"
#include "core/bootstrap/bootstrap.hpp"
#include "util/serialize.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

using namespace ccs;

TEST(TransportSelection, OrderedListIsExplicit) {
    transport_selection s;
    std::string why;
    ASSERT_TRUE(parse_transport_selection("shm,ucx", s, why));
    EXPECT_FALSE(s.automatic);
    EXPECT_EQ(s.include, (std::vector<std::string>{"shm", "ucx"}));
}

TEST(TransportSelection, ExclusionsOnlyStayAutomatic) {
    transport_selection s;
    std::string why;
    ASSERT_TRUE(parse_transport_selection("^verbs,^ucx", s, why));
    EXPECT_TRUE(s.automatic);
    EXPECT_EQ(s.exclude.count("verbs"), 1u);
    EXPECT_EQ(s.exclude.count("ucx"), 1u);
    ASSERT_TRUE(parse_transport_selection("", s, why));
    EXPECT_TRUE(s.automatic);
}

TEST(TransportSelection, ExcludedNameLeavesTheList) {
    transport_selection s;
    std::string why;
    ASSERT_TRUE(parse_transport_selection("shm,ucx,^shm", s, why));
    EXPECT_EQ(s.include, (std::vector<std::string>{"ucx"}));
}

TEST(TransportSelection, JunkIsRejectedWithTheEntryNamed) {
    transport_selection s;
    std::string why;
    EXPECT_FALSE(parse_transport_selection("shm,,ucx", s, why));
    EXPECT_NE(why.find("CCS_TRANSPORT"), std::string::npos);
    EXPECT_FALSE(parse_transport_selection("../evil", s, why));
    EXPECT_NE(why.find("../evil"), std::string::npos);
    EXPECT_FALSE(parse_transport_selection("^", s, why));
}

TEST(Params, SizesWithSuffixes) {
    size_t v = 0;
    EXPECT_TRUE(parse_size("4096", v));
    EXPECT_EQ(v, 4096u);
    EXPECT_TRUE(parse_size("64k", v));
    EXPECT_EQ(v, 65536u);
    EXPECT_TRUE(parse_size("8M", v));
    EXPECT_EQ(v, 8u << 20);
    EXPECT_FALSE(parse_size("", v));
    EXPECT_FALSE(parse_size("-1", v));
    EXPECT_FALSE(parse_size("12q", v));
    EXPECT_FALSE(parse_size("99999999999999999999", v));
    EXPECT_FALSE(parse_size("99999999999G", v));
}

// Declared parameters take their default from the declaration, refuse
// values above their limit or outside their choices, and say why.
TEST(Params, DeclaredSizesAndChoicesUseOneDefaultAndBounds) {
    param_declare_core();
    size_t v = 0;
    std::string value, error;
    ::unsetenv("CCS_AM_QUEUE_LIMIT");
    ASSERT_TRUE(param_size("CCS_AM_QUEUE_LIMIT", "bytes", SIZE_MAX, v, error)) << error;
    EXPECT_EQ(v, size_t{8} << 20);  // the declared default, 8M
    ::setenv("CCS_WAIT_GAP_NS", "10000", 1);
    ASSERT_TRUE(param_size("CCS_WAIT_GAP_NS", "ns", 10000, v, error)) << error;
    EXPECT_EQ(v, 10000u);
    ::setenv("CCS_WAIT_GAP_NS", "10001", 1);
    EXPECT_FALSE(param_size("CCS_WAIT_GAP_NS", "ns", 10000, v, error));
    EXPECT_EQ(error, "CCS_WAIT_GAP_NS='10001' is not a number of ns (default 80, at most 10000)");
    ::unsetenv("CCS_WAIT_GAP_NS");
    EXPECT_FALSE(param_size("CCS_NOT_DECLARED", "bytes", SIZE_MAX, v, error));
    EXPECT_NE(error.find("not a declared parameter"), std::string::npos) << error;

    ::unsetenv("CCS_RMA_EXPOSE");
    ASSERT_TRUE(param_choice("CCS_RMA_EXPOSE", {"registered", "all"}, value, error)) << error;
    EXPECT_EQ(value, "registered");
    ::setenv("CCS_RMA_EXPOSE", "All", 1);
    EXPECT_FALSE(param_choice("CCS_RMA_EXPOSE", {"registered", "all"}, value, error));
    EXPECT_EQ(error, "CCS_RMA_EXPOSE='All' is not one of registered, all (default registered)");
    ::unsetenv("CCS_RMA_EXPOSE");
}

TEST(Serialize, RoundTripAndTruncationIsDetected) {
    const blob b = blob_writer().u32(7).str("node-a").bytes({1, 2, 3}).take();
    blob_reader r(b);
    EXPECT_EQ(r.u32(), 7u);
    EXPECT_EQ(r.str(), "node-a");
    EXPECT_EQ(r.bytes(), (blob{1, 2, 3}));
    EXPECT_TRUE(r.ok());
    for (size_t cut = 0; cut < b.size(); ++cut) {
        const blob shorter(b.begin(), b.begin() + static_cast<long>(cut));
        blob_reader t(shorter);
        t.u32();
        t.str();
        t.bytes();
        EXPECT_FALSE(t.ok()) << "cut at " << cut;
    }
}
