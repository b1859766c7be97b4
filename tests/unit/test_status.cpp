#include <ccs/ccs.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(Status, EveryStatusHasItsOwnName) {
    std::set<std::string> seen;
    for (int s = CCS_OK; s < CCS_STATUS_COUNT_; ++s) {
        const std::string text = ccs_strerror(static_cast<ccs_status_t>(s));
        EXPECT_EQ(text.rfind("CCS_", 0), 0u) << "status " << s << ": " << text;
        EXPECT_TRUE(seen.insert(text).second) << "duplicate text for status " << s;
    }
}

TEST(Status, UnknownValuesAreNamedNotNull) {
    EXPECT_STREQ(ccs_strerror(static_cast<ccs_status_t>(-1)), "unknown ccs_status_t value");
    EXPECT_STREQ(ccs_strerror(CCS_STATUS_COUNT_), "unknown ccs_status_t value");
}
