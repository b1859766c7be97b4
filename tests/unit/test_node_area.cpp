// The bookkeeping of a team's node memory (ccs/core/coll/node_area.*):
// when a slot may be filled again, what an arrive word says, and that a
// member's done word advances only past collectives that all ended.
#include "core/coll/node_area.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace ccs::coll;

namespace {

struct blocks_in_memory {
    std::vector<uint8_t *> blocks;
    explicit blocks_in_memory(int n) {
        for (int i = 0; i < n; ++i) {
            auto *b = static_cast<uint8_t *>(std::aligned_alloc(64, node_area::block_bytes));
            std::memset(b, 0, node_area::block_bytes);
            blocks.push_back(b);
        }
    }
    ~blocks_in_memory() {
        for (uint8_t *b : blocks) std::free(b);
    }
};

}  // namespace

TEST(NodeArea, DoneAdvancesOnlyPastCollectivesThatAllEnded) {
    blocks_in_memory m(2);
    bool released = false;
    {
        node_area a(m.blocks, 0, 2, [&] { released = true; });
        // Collectives 2, 4, 6 are parity 0; 4 ends first.
        a.finished(4);
        EXPECT_EQ(a.done(0, 0).load(), 0u);
        a.finished(2);
        EXPECT_EQ(a.done(0, 0).load(), 5u);  // through 4
        a.finished(3);
        EXPECT_EQ(a.done(0, 1).load(), 4u);
        // Collectives before the area are not its own.
        a.finished(0);
        EXPECT_EQ(a.done(0, 0).load(), 5u);
    }
    EXPECT_TRUE(released);
}

TEST(NodeArea, SlotIsFreeOnceEveryMemberIsDoneWithTheOneTwoBefore) {
    blocks_in_memory m(3);
    node_area a(m.blocks, 1, 0, nullptr);
    EXPECT_TRUE(a.slot_free(0));
    EXPECT_TRUE(a.slot_free(1));
    EXPECT_FALSE(a.slot_free(2));
    a.finished(0);
    a.done(0, 0).store(1);
    EXPECT_FALSE(a.slot_free(2));  // member 2 still reads it
    a.done(2, 0).store(1);
    EXPECT_TRUE(a.slot_free(2));
}

TEST(NodeArea, ArrivalsTellWhoIsMissingAndWhoCalledSomethingElse) {
    blocks_in_memory m(3);
    node_area a(m.blocks, 0, 0, nullptr);
    const uint64_t seq = 5, word = node_area::started_word(seq, 0x0300000000012345ull);
    EXPECT_EQ(a.arrivals(seq, word), -1);
    for (int i = 0; i < 3; ++i) node_area(m.blocks, i, 0, nullptr).arrive(seq, word);
    EXPECT_EQ(a.arrivals(seq, word), 3);
    // One further along counts as arrived.
    node_area(m.blocks, 2, 0, nullptr).arrive(seq + 2, node_area::started_word(seq + 2, 1));
    EXPECT_EQ(a.arrivals(seq, word), 3);
    // Another call at the same number is named, and so is a refusal.
    node_area(m.blocks, 1, 0, nullptr).arrive(seq, node_area::started_word(seq, 0x0400000000012345ull));
    EXPECT_EQ(a.arrivals(seq, word), 1);
    EXPECT_EQ(node_area::started_kind(a.arrived(1, seq % 2)), 4u);
    node_area(m.blocks, 1, 0, nullptr).arrive(seq, node_area::refused_word(seq));
    EXPECT_EQ(a.arrivals(seq, word), 1);
    EXPECT_TRUE(node_area::is_refusal(a.arrived(1, seq % 2)));
}
