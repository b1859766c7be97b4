// Accumulate on every plugin configuration: every type and op against a
// model (with and without the old values fetched), every rank at once
// into the same elements, large ones in many pieces, and bad input that
// must change nothing.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <complex>
#include <cstring>
#include <string>
#include <vector>

using namespace conformance;

namespace {

// Element i of a test pattern as type T (small, exact in every type).
template <typename T>
T pattern(size_t i, int salt) {
    const auto v = static_cast<int>((i * 7 + static_cast<size_t>(salt) * 3) % 11) - 5;  // -5..5
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(v + 1));
    else
        return static_cast<T>(v);
}

template <typename T>
T model(int op, T dst, T src, T scale) {
    switch (op) {
    case CCS_ACC_SUM: return static_cast<T>(dst + scale * src);
    case CCS_ACC_PROD: return static_cast<T>(dst * src);
    case CCS_ACC_REPLACE: return src;
    default:
        if constexpr (requires(T a, T b) { a < b; }) return op == CCS_ACC_MIN ? std::min(dst, src) : std::max(dst, src);
        else return dst;
    }
}

template <typename T>
void check_type(ccs_context_t ctx, const window &w, int type, int &checked) {
    constexpr size_t n = 37;
    for (int op = CCS_ACC_SUM; op <= CCS_ACC_REPLACE; ++op) {
        const bool complex = type >= CCS_ACC_COMPLEX_FLOAT;
        if (complex && (op == CCS_ACC_MIN || op == CCS_ACC_MAX)) continue;
        for (bool fetch : {false, true}) {
            std::vector<T> initial(n), src(n), fetched(n), now(n);
            for (size_t i = 0; i < n; ++i) {
                initial[i] = pattern<T>(i, op);
                src[i] = pattern<T>(i, op + 5);
            }
            const uint64_t at = w.slot(right(), rank()) + 4096 * static_cast<uint64_t>(checked % 64);
            CCS_ASSERT_OK(ccs_put_sync(ctx, right(), initial.data(), n * sizeof(T), at, w.key(right())));
            const T scale = op == CCS_ACC_SUM ? static_cast<T>(3) : static_cast<T>(1);
            CCS_ASSERT_OK(ccs_accumulate_sync(ctx, right(), op, type, src.data(), n * sizeof(T), at, w.key(right()),
                                              op == CCS_ACC_SUM ? &scale : nullptr, fetch ? fetched.data() : nullptr));
            CCS_ASSERT_OK(ccs_get_sync(ctx, right(), now.data(), n * sizeof(T), at, w.key(right())));
            for (size_t i = 0; i < n; ++i) {
                EXPECT_EQ(now[i], model<T>(op, initial[i], src[i], scale)) << "type " << type << " op " << op << " at " << i;
                if (fetch) {
                    EXPECT_EQ(fetched[i], initial[i]) << "type " << type << " op " << op << " at " << i;
                }
            }
            ++checked;
        }
    }
}

}  // namespace

class Accumulate : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Accumulate, Accumulate, ::testing::Values(false, true),
                         [](const auto &param_info) { return param_info.param ? "Allocated" : "Registered"; });

TEST_P(Accumulate, EveryTypeAndOpMatchesAModel) {
    scoped_context ctx("accumulate-model");
    window w(GetParam());
    int checked = 0;
    check_type<int32_t>(ctx, w, CCS_ACC_INT32, checked);
    check_type<uint32_t>(ctx, w, CCS_ACC_UINT32, checked);
    check_type<int64_t>(ctx, w, CCS_ACC_INT64, checked);
    check_type<uint64_t>(ctx, w, CCS_ACC_UINT64, checked);
    check_type<float>(ctx, w, CCS_ACC_FLOAT, checked);
    check_type<double>(ctx, w, CCS_ACC_DOUBLE, checked);
    check_type<std::complex<float>>(ctx, w, CCS_ACC_COMPLEX_FLOAT, checked);
    check_type<std::complex<double>>(ctx, w, CCS_ACC_COMPLEX_DOUBLE, checked);
    EXPECT_EQ(checked, 6 * 5 * 2 + 2 * 3 * 2);
    CCS_EXPECT_OK(ccs_barrier());
}

// Every rank adds into the same elements of rank 0 at once, repeatedly,
// small and large (many pieces, non-blocking): nothing is lost.
TEST_P(Accumulate, EveryRankAtOnceIntoTheSameElementsIsExact) {
    scoped_context ctx("accumulate-contention");
    window w(GetParam());
    constexpr size_t small = 64, large = (slot_bytes / 2) / sizeof(double);  // 512 KiB: 8 pieces
    constexpr int rounds = 10;
    const uint64_t ints_at = w.slot(0, 0), doubles_at = w.slot(0, 0) + 4096;
    std::vector<int64_t> ints(small, rank() + 1);
    std::vector<double> doubles(large, static_cast<double>(rank() + 1));
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    for (int r = 0; r < rounds; ++r) {
        CCS_EXPECT_OK(ccs_accumulate(ctx, 0, CCS_ACC_SUM, CCS_ACC_INT64, ints.data(), small * 8, ints_at, w.key(0),
                                     nullptr, nullptr, &done));
        CCS_EXPECT_OK(ccs_accumulate(ctx, 0, CCS_ACC_SUM, CCS_ACC_DOUBLE, doubles.data(), large * 8, doubles_at,
                                     w.key(0), nullptr, nullptr, &done));
    }
    CCS_EXPECT_OK(ccs_counter_wait(&counter, 2 * rounds));
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) {
        const int64_t ranks_sum = static_cast<int64_t>(size()) * (size() + 1) / 2;
        std::vector<int64_t> got_ints(small);
        std::memcpy(got_ints.data(), reinterpret_cast<void *>(ints_at), small * 8);
        for (size_t i = 0; i < small; ++i) ASSERT_EQ(got_ints[i], rounds * ranks_sum) << i;
        const auto *got = reinterpret_cast<const double *>(doubles_at);
        for (size_t i = 0; i < large; ++i) ASSERT_EQ(got[i], static_cast<double>(rounds * ranks_sum)) << i;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(AccumulateBadInput, RefusedAndNothingChanged) {
    scoped_context ctx("accumulate-bad-input");
    window w;
    const uint64_t at = w.slot(right(), rank());
    const std::vector<double> before(8, 2.5);
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), before.data(), 64, at, w.key(right())));
    const std::vector<double> src(8, 1.0);
    const double scale = 2;
    struct bad {
        int op, type;
        size_t length;
        uint64_t addr;
        const void *scale;
        const void *src;
        ccs_status_t want;
        const char *says;
    } cases[] = {
        {9, CCS_ACC_DOUBLE, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not a ccs_acc_op_t"},
        {CCS_ACC_SUM, 12, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not a ccs_acc_type_t"},
        {CCS_ACC_MIN, CCS_ACC_COMPLEX_DOUBLE, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "no MIN or MAX"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 60, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "whole number"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, at + 4, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not aligned"},
        {CCS_ACC_PROD, CCS_ACC_DOUBLE, 64, at, &scale, src.data(), CCS_ERR_INVALID_ARG, "CCS_ACC_SUM only"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, at, nullptr, nullptr, CCS_ERR_INVALID_ARG, "src is NULL"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, w.slot(right(), size()) - 32, nullptr, src.data(), CCS_ERR_OUT_OF_RANGE,
         "outside"},
    };
    for (const bad &c : cases) {
        EXPECT_EQ(ccs_accumulate_sync(ctx, right(), c.op, c.type, c.src, c.length, c.addr, w.key(right()), c.scale,
                                      nullptr),
                  c.want)
            << c.says;
        EXPECT_NE(std::string(ccs_last_error()).find(c.says), std::string::npos) << ccs_last_error();
    }
    // An implicit key to memory the target never registered.
    std::vector<double> unregistered(8, 0);
    const shared_bytes where = share_with_everyone({}, reinterpret_cast<uintptr_t>(unregistered.data()));
    if (right() != rank()) {
        EXPECT_EQ(ccs_accumulate_sync(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 64,
                                      where.words[static_cast<size_t>(right())], CCS_RKEY_IMPLICIT, nullptr, nullptr),
                  CCS_ERR_NOT_REGISTERED);
    }
    std::vector<double> now(8);
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), now.data(), 64, at, w.key(right())));
    EXPECT_EQ(now, before);
    CCS_EXPECT_OK(ccs_barrier());
    for (double d : unregistered) EXPECT_EQ(d, 0.0);
    CCS_EXPECT_OK(ccs_barrier());
}
