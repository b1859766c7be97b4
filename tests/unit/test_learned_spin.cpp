// The blocking waits' spin: it follows waits that end within the bound,
// never drops below the configured spin, and goes back to it after a long
// wait or on a contended node.
#include "util/learned_spin.hpp"

#include <gtest/gtest.h>

namespace {

using ccs::learned_spin;

TEST(LearnedSpin, StartsAtTheLeastSpin) {
    learned_spin s;
    s.set_bounds(50, 1000);
    EXPECT_EQ(s.ticks(), 50u);
}

TEST(LearnedSpin, AShortWaitWithinTheBoundSetsTheNextSpinAQuarterLonger) {
    learned_spin s;
    s.set_bounds(50, 1000);
    s.wait_lasted(300, false);
    EXPECT_EQ(s.ticks(), 375u);
    s.wait_lasted(400, false);
    EXPECT_EQ(s.ticks(), 500u);
}

TEST(LearnedSpin, NeverBelowTheLeastSpin) {
    learned_spin s;
    s.set_bounds(50, 1000);
    s.wait_lasted(300, false);
    s.wait_lasted(10, false);
    EXPECT_EQ(s.ticks(), 50u);
}

TEST(LearnedSpin, ALongWaitGoesBackToTheLeastSpin) {
    learned_spin s;
    s.set_bounds(50, 1000);
    s.wait_lasted(900, false);
    EXPECT_EQ(s.ticks(), 1125u);  // the spin may pass the bound by the quarter
    s.wait_lasted(1000, false);
    EXPECT_EQ(s.ticks(), 50u);
}

TEST(LearnedSpin, AContendedNodeKeepsTheLeastSpin) {
    learned_spin s;
    s.set_bounds(50, 1000);
    s.wait_lasted(300, true);
    EXPECT_EQ(s.ticks(), 50u);
    s.wait_lasted(300, false);
    s.wait_lasted(300, true);
    EXPECT_EQ(s.ticks(), 50u);
}

TEST(LearnedSpin, ABoundBelowTheLeastSpinTurnsLearningOff) {
    learned_spin s;
    s.set_bounds(50, 10);
    s.wait_lasted(30, false);
    EXPECT_EQ(s.ticks(), 50u);
    s.wait_lasted(49, false);
    EXPECT_EQ(s.ticks(), 50u);
}

}  // namespace
