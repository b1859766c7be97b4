// The barrier's arrival bookkeeping (ccs/core/coll/barrier_arrivals.hpp).
#include "core/coll/barrier_arrivals.hpp"

#include <gtest/gtest.h>

using namespace ccs;

TEST(BarrierArrivals, EachRoundTakesItsOwnArrivalsAndFlags) {
    barrier_arrivals a;
    a.begin(0);
    uint64_t flags = 0;
    EXPECT_FALSE(a.take(0, 0, flags));
    a.record(0, 0, 4);
    a.record(0, 1, 1);
    EXPECT_TRUE(a.arrived(0, 0));
    EXPECT_TRUE(a.take(0, 0, flags));
    EXPECT_EQ(flags, 4u);
    EXPECT_FALSE(a.take(0, 0, flags));  // one message, taken once
    EXPECT_TRUE(a.take(0, 1, flags));
    EXPECT_EQ(flags, 5u);
    a.record(0, barrier_arrivals::max_rounds, 1);  // no such round: ignored
}

TEST(BarrierArrivals, APeerOneBarrierAheadIsKept) {
    barrier_arrivals a;
    a.begin(0);
    a.record(1, 0, 2);  // a peer already in barrier 1
    uint64_t flags = 0;
    EXPECT_FALSE(a.take(0, 0, flags));
    a.begin(1);
    EXPECT_TRUE(a.take(1, 0, flags));
    EXPECT_EQ(flags, 2u);
}

// Barrier 4 gave up on round 1; the message arrives during barrier 5 and
// must not complete round 1 of barrier 6, which shares its slot.
TEST(BarrierArrivals, ALateArrivalDoesNotCountTwoBarriersLater) {
    barrier_arrivals a;
    a.begin(4);
    uint64_t flags = 0;
    EXPECT_FALSE(a.take(4, 1, flags));  // gave up
    a.begin(5);
    a.record(4, 1, 8);  // late: barrier 4 is still its slot's epoch
    a.begin(6);
    EXPECT_FALSE(a.arrived(6, 1));
    EXPECT_FALSE(a.take(6, 1, flags));
    EXPECT_EQ(flags, 0u);
    a.record(4, 1, 8);  // later still: older than its slot, dropped
    EXPECT_FALSE(a.take(6, 1, flags));
    a.record(6, 1, 0);
    EXPECT_TRUE(a.take(6, 1, flags));
}

// A peer two barriers ahead (it gave up on this process) would clear the
// running barrier's slot: its message is dropped instead.
TEST(BarrierArrivals, APeerTwoBarriersAheadCannotClearTheRunningOne) {
    barrier_arrivals a;
    a.begin(2);
    a.record(2, 0, 1);
    a.record(4, 0, 1);
    uint64_t flags = 0;
    EXPECT_TRUE(a.take(2, 0, flags));
    a.begin(3);
    a.begin(4);
    EXPECT_FALSE(a.take(4, 0, flags));
}
