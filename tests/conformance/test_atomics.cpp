// Remote atomics on every plugin configuration: each op and width against
// a sequential model, contention from every rank on one word, and bad
// input that must change nothing.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstring>
#include <string>
#include <vector>

using namespace conformance;

namespace {

struct word_type {
    ccs_int_type_t type;
    size_t width;
    const char *name;
};
constexpr word_type word_types[] = {
    {CCS_INT32, 4, "int32"}, {CCS_UINT32, 4, "uint32"}, {CCS_INT64, 8, "int64"}, {CCS_UINT64, 8, "uint64"}};

// What the op does to `old` in `width` bytes (the model).
uint64_t model(int op, size_t width, uint64_t old, uint64_t operand, uint64_t compare) {
    const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
    operand &= mask;
    switch (op) {
    case CCS_ATOMIC_ADD: return (old + operand) & mask;
    case CCS_ATOMIC_AND: return old & operand;
    case CCS_ATOMIC_OR: return old | operand;
    case CCS_ATOMIC_XOR: return old ^ operand;
    case CCS_ATOMIC_SWAP:
    case CCS_ATOMIC_SET: return operand;
    case CCS_ATOMIC_CSWAP: return old == (compare & mask) ? operand : old;
    default: return old;
    }
}

uint64_t read_word(const void *p, size_t width) {
    if (width == 4) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

}  // namespace

class Atomics : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Atomics, Atomics, window_kinds(), window_kind_name);

// Each rank works on its own slot in its right neighbour's window: every
// op, every width, blocking and with a counter, explicit and implicit key.
TEST_P(Atomics, EveryOpAndWidthMatchesASequentialModel) {
    scoped_context ctx("atomics-model");
    window w(GetParam());
    const uint64_t slot = w.slot(right(), rank());
    // Operands that exercise sign, carries and the upper half.
    const uint64_t starts[] = {0, 5, 0x7fffffffull, 0xffffffffull, 0x123456789abcdef0ull};
    int checked = 0;
    for (const word_type &t : word_types)
        for (int op = CCS_ATOMIC_ADD; op <= CCS_ATOMIC_SET; ++op)
            for (uint64_t start : starts) {
                const uint64_t mask = t.width == 4 ? 0xffffffffull : ~0ull;
                const uint64_t initial = start & mask;
                uint64_t operand = (start * 3 + 0x11) & mask;
                if (t.type == CCS_INT32) operand = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(operand)));
                uint64_t compare = (op == CCS_ATOMIC_CSWAP && start % 2 == 0) ? initial : initial ^ 1;
                if (t.type == CCS_INT32) compare = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(compare)));
                const uint64_t at = slot + 8 * static_cast<uint64_t>(checked % 64);
                // Start from a known value (an atomic SET: CCS's own way to write a word).
                CCS_ASSERT_OK(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_SET, t.type, at, w.key(right()),
                                              t.type == CCS_INT32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(initial))) : initial,
                                              0, nullptr));
                alignas(8) uint8_t fetched[8] = {};
                void *out = op == CCS_ATOMIC_SET ? nullptr : fetched;
                const bool implicit = checked % 3 == 2 && !GetParam();
                const ccs_rkey_t key = implicit ? CCS_RKEY_IMPLICIT : w.key(right());
                if (checked % 2 == 0) {
                    CCS_ASSERT_OK(ccs_atomic_sync(ctx, right(), op, t.type, at, key, operand, compare, out));
                } else {
                    ccs_counter_t counter;
                    CCS_ASSERT_OK(ccs_counter_init(&counter));
                    const ccs_completion_t done{nullptr, nullptr, &counter};
                    CCS_ASSERT_OK(ccs_atomic(ctx, right(), op, t.type, at, key, operand, compare, out, &done));
                    CCS_ASSERT_OK(ccs_counter_wait(&counter, 1));
                }
                if (out) {
                    EXPECT_EQ(read_word(fetched, t.width), initial) << t.name << " op " << op;
                }
                alignas(8) uint8_t now[8] = {};
                CCS_ASSERT_OK(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_FETCH, t.type, at, w.key(right()), 0, 0, now));
                EXPECT_EQ(read_word(now, t.width), model(op, t.width, initial, operand, compare))
                    << t.name << " op " << op << " from " << initial;
                ++checked;
            }
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
        EXPECT_EQ(counter.value, 0u);
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
