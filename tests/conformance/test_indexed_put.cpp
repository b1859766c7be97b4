// The indexed put (remote queue append) on every plugin configuration:
// every rank appends to one queue at once and nothing is lost or overlaps;
// a full queue refuses and changes nothing; bad input is refused.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace conformance;

namespace {

struct queue_element {
    uint64_t rank, seq, check;
};
uint64_t check_of(uint64_t r, uint64_t s) { return (r * 1000003u) ^ (s * 7919u) ^ 0x5a5a5a5au; }

// Rank 0's queue: the pointer word at the start of its slot 0, the elements
// from byte 64 on, up to the end of that slot.
struct queue {
    explicit queue(window &on) : w(on) {
        if (rank() == 0) {
            const uint64_t first = w.slot(0, 0) + 64;
            std::memcpy(w.local_slot(0), &first, 8);
        }
        EXPECT_EQ(ccs_barrier(), CCS_OK);
    }
    uint64_t pointer() const { return w.slot(0, 0); }
    uint64_t first() const { return w.slot(0, 0) + 64; }
    uint64_t limit() const { return w.slot(0, 0) + slot_bytes; }
    window &w;
};

}  // namespace

class IndexedPut : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(IndexedPut, IndexedPut, window_kinds(), window_kind_name);

// Every rank appends 200 elements, alternating its explicit key and the
// implicit one; rank 0 then finds each exactly once, packed end to end.
TEST_P(IndexedPut, ConcurrentAppendersNeverLoseOrOverlapAnElement) {
    scoped_context ctx("indexed-put-contention");
    window w(GetParam());
    queue q(w);
    constexpr uint64_t per_rank = 200;
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    std::vector<queue_element> sent(per_rank);
    std::vector<uint64_t> placed(per_rank, 0);
    for (uint64_t s = 0; s < per_rank; ++s) {
        const auto r = static_cast<uint64_t>(rank());
        sent[s] = {r, s, check_of(r, s)};
        const ccs_rkey_t key = s % 2 ? CCS_RKEY_IMPLICIT : w.key(0);
        if (s % 3 == 0) {
            CCS_ASSERT_OK(
                ccs_put_indexed_sync(ctx, 0, &sent[s], sizeof(queue_element), q.pointer(), q.limit(), key, &placed[s]));
        } else {
            CCS_ASSERT_OK(
                ccs_put_indexed(ctx, 0, &sent[s], sizeof(queue_element), q.pointer(), q.limit(), key, &placed[s], &c));
        }
    }
    CCS_ASSERT_OK(ccs_fence(ctx, 0));
    std::set<uint64_t> mine(placed.begin(), placed.end());
    EXPECT_EQ(mine.size(), per_rank) << "each append got its own place";
    for (uint64_t at : placed) {
        EXPECT_GE(at, q.first());
        EXPECT_EQ((at - q.first()) % sizeof(queue_element), 0u);
    }
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        const uint64_t total = per_rank * static_cast<uint64_t>(size());
        uint64_t end = 0;
        std::memcpy(&end, w.local_slot(0), 8);
        EXPECT_EQ(end, q.first() + total * sizeof(queue_element));
        std::set<std::pair<uint64_t, uint64_t>> seen;
        for (uint64_t i = 0; i < total; ++i) {
            queue_element e{};
            std::memcpy(&e, w.local_slot(0) + 64 + i * sizeof(queue_element), sizeof e);
            EXPECT_EQ(e.check, check_of(e.rank, e.seq)) << "element " << i << " is torn";
            seen.insert({e.rank, e.seq});
        }
        EXPECT_EQ(seen.size(), total);
    }
    CCS_ASSERT_OK(ccs_barrier());
}

// A queue with room for three elements: the fourth is refused, and neither
// the pointer nor the bytes past the limit change.
TEST_P(IndexedPut, AFullQueueRefusesAndChangesNothing) {
    scoped_context ctx("indexed-put-full");
    window w(GetParam());
    queue q(w);
    const uint64_t limit = q.first() + 3 * sizeof(queue_element);
    if (rank() == size() - 1) {
        const queue_element e{static_cast<uint64_t>(rank()), 0, 0};
        for (int i = 0; i < 3; ++i)
            CCS_ASSERT_OK(ccs_put_indexed_sync(ctx, 0, &e, sizeof e, q.pointer(), limit, w.key(0), nullptr));
        uint64_t placed = 0;
        const ccs_status_t st = ccs_put_indexed_sync(ctx, 0, &e, sizeof e, q.pointer(), limit, w.key(0), &placed);
        EXPECT_EQ(st, CCS_ERR_OUT_OF_RANGE);
        EXPECT_NE(std::string(ccs_last_error()).find("the queue is full"), std::string::npos) << ccs_last_error();
        EXPECT_EQ(placed, 0u);
        // Appends of nothing fit anywhere up to the limit.
        CCS_EXPECT_OK(ccs_put_indexed_sync(ctx, 0, nullptr, 0, q.pointer(), limit, w.key(0), &placed));
        EXPECT_EQ(placed, limit);
    }
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        uint64_t end = 0;
        std::memcpy(&end, w.local_slot(0), 8);
        EXPECT_EQ(end, limit);
        uint8_t past[sizeof(queue_element)];
        std::memcpy(past, w.local_slot(0) + 64 + 3 * sizeof(queue_element), sizeof past);
        for (uint8_t b : past) EXPECT_EQ(b, 0);
    }
    CCS_ASSERT_OK(ccs_barrier());
}

TEST(IndexedPutBadInput, IsRefusedAndChangesNothing) {
    scoped_context ctx("indexed-put-bad");
    window w;
    queue q(w);
    const queue_element e{1, 2, 3};
    EXPECT_EQ(ccs_put_indexed(ctx, 0, &e, sizeof e, q.pointer() + 4, q.limit(), w.key(0), nullptr, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_put_indexed(ctx, 0, nullptr, 8, q.pointer(), q.limit(), w.key(0), nullptr, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_put_indexed(ctx, size(), &e, sizeof e, q.pointer(), q.limit(), w.key(0), nullptr, nullptr),
              CCS_ERR_INVALID_RANK);
    // A pointer outside the key's region; the key of another rank.
    EXPECT_EQ(ccs_put_indexed_sync(ctx, 0, &e, sizeof e, w.slot(0, 0) + slot_bytes * size(), q.limit(), w.key(0),
                                   nullptr),
              CCS_ERR_OUT_OF_RANGE);
    if (size() > 1) {
        EXPECT_EQ(ccs_put_indexed_sync(ctx, 0, &e, sizeof e, q.pointer(), q.limit(), w.key(1), nullptr),
                  CCS_ERR_INVALID_KEY);
    }
    // A pointer that points outside the region: the queue is full.
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        const uint64_t wild = 16;
        std::memcpy(w.local_slot(0) + 8, &wild, 8);
    }
    CCS_ASSERT_OK(ccs_barrier());
    EXPECT_EQ(ccs_put_indexed_sync(ctx, 0, &e, sizeof e, q.pointer() + 8, UINT64_MAX, w.key(0), nullptr),
              CCS_ERR_OUT_OF_RANGE);
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        uint64_t end = 0, wild = 0;
        std::memcpy(&end, w.local_slot(0), 8);
        std::memcpy(&wild, w.local_slot(0) + 8, 8);
        EXPECT_EQ(end, q.first());
        EXPECT_EQ(wild, 16u);
    }
    CCS_ASSERT_OK(ccs_barrier());
}
