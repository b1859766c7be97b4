// Remote atomics on every plugin configuration: each op and width against
// a sequential model, contention from every rank on one word, and bad
// input that must change nothing.
#include "harness.hpp"
#include "atomic_model.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstring>
#include <string>
#include <vector>

using namespace conformance;

class Atomics : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Atomics, Atomics, window_kinds(), window_kind_name);

// Each rank works on its own slot in its right neighbour's window: every
// op, every width, blocking and with a counter, explicit and implicit key.
TEST_P(Atomics, EveryOpAndWidthMatchesASequentialModel) {
    scoped_context ctx("atomics-model");
    window w(GetParam());
    // Implicit keys too, on registered memory.
    const int checked = check_every_op(ctx, right(), w.key(right()), w.slot(right(), rank()), !GetParam());
    EXPECT_EQ(checked, 4 * 8 * 5);
    CCS_EXPECT_OK(ccs_barrier());
}

// Every rank adds to one word of rank 0, M times each, the two widths in
// turn: the sum is exact and no two fetches saw the same value.
TEST_P(Atomics, FetchAddsFromEveryRankSumExactly) {
    scoped_context ctx("atomics-contention");
    window w(GetParam());
    constexpr int adds = 200;
    const uint64_t at64 = w.slot(0, 0), at32 = w.slot(0, 0) + 8;
    std::vector<uint64_t> seen;
    for (int i = 0; i < adds; ++i) {
        uint64_t old64 = 0;
        uint32_t old32 = 0;
        CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_UINT64, at64, w.key(0), 1, 0, &old64));
        CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_INT32, at32, w.key(0), static_cast<uint64_t>(int64_t{-2}), 0, &old32));
        if (!seen.empty()) {
            EXPECT_GT(old64, seen.back());  // ours only grow
        }
        seen.push_back(old64);
        (void)old32;
    }
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) {
        uint64_t total = 0;
        int32_t total32 = 0;
        std::memcpy(&total, w.local_slot(0), 8);
        std::memcpy(&total32, w.local_slot(0) + 8, 4);
        EXPECT_EQ(total, static_cast<uint64_t>(adds) * static_cast<uint64_t>(size()));
        EXPECT_EQ(total32, -2 * adds * size());
    }
    // One compare-and-swap from 0 wins; every rank learns who.
    const uint64_t flag = w.slot(0, 0) + 16;
    uint64_t before = 99;
    CCS_EXPECT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_CSWAP, CCS_UINT64, flag, w.key(0),
                                  static_cast<uint64_t>(rank()) + 1, 0, &before));
    CCS_EXPECT_OK(ccs_barrier());
    uint64_t winner = 0;
    CCS_EXPECT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_FETCH, CCS_UINT64, flag, w.key(0), 0, 0, &winner));
    EXPECT_GE(winner, 1u);
    EXPECT_LE(winner, static_cast<uint64_t>(size()));
    EXPECT_EQ(before == 0, winner == static_cast<uint64_t>(rank()) + 1);
    CCS_EXPECT_OK(ccs_barrier());
}

// Bad input gives its error, and the word does not change.
TEST(AtomicsBadInput, RefusedAndTheWordUnchanged) {
    scoped_context ctx("atomics-bad-input");
    window w;
    const uint64_t at = w.slot(right(), rank());
    CCS_ASSERT_OK(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_SET, CCS_UINT64, at, w.key(right()), 77, 0, nullptr));
    alignas(8) uint8_t buf[16] = {};
    const ccs_rkey_t k = w.key(right());
    struct bad {
        int op, type;
        uint64_t addr, operand;
        void *fetched;
        ccs_status_t want;
        const char *says;
    } cases[] = {
        {99, CCS_UINT64, at, 1, buf, CCS_ERR_INVALID_ARG, "not a ccs_atomic_op_t"},
        {-1, CCS_UINT64, at, 1, buf, CCS_ERR_INVALID_ARG, "not a ccs_atomic_op_t"},
        {CCS_ATOMIC_ADD, 7, at, 1, buf, CCS_ERR_INVALID_ARG, "not a ccs_int_type_t"},
        {CCS_ATOMIC_ADD, CCS_UINT64, at + 4, 1, buf, CCS_ERR_INVALID_ARG, "not aligned"},
        {CCS_ATOMIC_ADD, CCS_UINT64, at, 1, buf + 4, CCS_ERR_INVALID_ARG, "fetched is not aligned"},
        {CCS_ATOMIC_FETCH, CCS_UINT64, at, 0, nullptr, CCS_ERR_INVALID_ARG, "needs somewhere"},
        {CCS_ATOMIC_SET, CCS_UINT64, at, 1, buf, CCS_ERR_INVALID_ARG, "does not fetch"},
        {CCS_ATOMIC_ADD, CCS_UINT32, at, uint64_t{1} << 40, buf, CCS_ERR_INVALID_ARG, "does not fit"},
        {CCS_ATOMIC_ADD, CCS_INT32, at, uint64_t{1} << 31, buf, CCS_ERR_INVALID_ARG, "does not fit"},
        {CCS_ATOMIC_ADD, CCS_UINT64, w.slot(right(), size()), 1, buf, CCS_ERR_OUT_OF_RANGE, "outside"},
    };
    for (const bad &c : cases) {
        EXPECT_EQ(ccs_atomic_sync(ctx, right(), c.op, c.type, c.addr, k, c.operand, 0, c.fetched), c.want)
            << c.says;
        EXPECT_NE(std::string(ccs_last_error()).find(c.says), std::string::npos) << ccs_last_error();
        ccs_counter_t counter;
        CCS_EXPECT_OK(ccs_counter_init(&counter));
        const ccs_completion_t done{nullptr, nullptr, &counter};
        EXPECT_EQ(ccs_atomic(ctx, right(), c.op, c.type, c.addr, k, c.operand, 0, c.fetched, &done), c.want)
            << c.says;
        EXPECT_EQ(counted(counter), 0u);
    }
    EXPECT_EQ(ccs_atomic_sync(ctx, size(), CCS_ATOMIC_ADD, CCS_UINT64, at, k, 1, 0, nullptr), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_atomic_sync(ccs_context_t{0}, right(), CCS_ATOMIC_ADD, CCS_UINT64, at, k, 1, 0, nullptr),
              CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_ADD, CCS_UINT64, at, ccs_rkey_t{12345}, 1, 0, nullptr),
              CCS_ERR_INVALID_KEY);
    uint64_t now = 0;
    CCS_EXPECT_OK(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_FETCH, CCS_UINT64, at, k, 0, 0, &now));
    EXPECT_EQ(now, 77u);
    CCS_EXPECT_OK(ccs_barrier());
}
