// The idle back-off against a fake clock and scheduler: it spins, yields,
// spaces out yields that come straight back, returns to yielding on every
// poll once a yield gave the core away, and naps only on a crowded node.
#include "util/backoff.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace {

using namespace std::chrono_literals;
using ccs::backoff;

// One fake machine per test (the hooks are plain function pointers).
struct fake {
    static inline backoff::clock::time_point t{};
    static inline backoff::clock::duration yield_takes = 1us;
    static inline int yields = 0, naps = 0;
    static void start(backoff::clock::duration y) {
        t = {};
        yield_takes = y;
        yields = naps = 0;
    }
    static constexpr backoff::system sys{
        [] { return t; },
        [] {
            t += yield_takes;
            ++yields;
        },
        [] {
            t += 20us;
            ++naps;
        },
    };
};

// Runs `polls` idle polls; returns the poll numbers (1-based) that yielded.
std::vector<int> yielding_polls(backoff &b, int polls) {
    std::vector<int> at;
    for (int i = 1; i <= polls; ++i) {
        const int before = fake::yields;
        b.idle();
        if (fake::yields != before) at.push_back(i);
    }
    return at;
}

}  // namespace

TEST(Backoff, OversubscribedYieldsFromTheFirstIdlePoll) {
    fake::start(1us);
    backoff b(fake::sys);
    b.set_oversubscribed(true);
    const auto at = yielding_polls(b, 4);
    ASSERT_FALSE(at.empty());
    EXPECT_EQ(at[0], 1);
    b.set_oversubscribed(false);
    b.reset();
    EXPECT_EQ(yielding_polls(b, static_cast<int>(backoff::spin_polls)).size(), 0u);
}

TEST(Backoff, SpinsThenSpacesOutYieldsThatComeStraightBack) {
    fake::start(1us);
    backoff b(fake::sys);
    const auto at = yielding_polls(b, static_cast<int>(backoff::spin_polls) + 8 * 1024);
    ASSERT_GE(at.size(), 13u);
    EXPECT_EQ(at[0], static_cast<int>(backoff::spin_polls) + 1);  // the spin, then the first yield
    // Gaps double from 1 up to the bound, then stay there.
    std::vector<int> gaps;
    for (size_t i = 1; i < at.size(); ++i) gaps.push_back(at[i] - at[i - 1]);
    const std::vector<int> doubling = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1024};
    EXPECT_EQ(std::vector<int>(gaps.begin(), gaps.begin() + 11), doubling);
    EXPECT_EQ(b.yields(), at.size());
    // Far past the nap threshold, but nobody else wanted the core: no nap.
    fake::t += 1s;
    yielding_polls(b, 4096);
    EXPECT_EQ(fake::naps, 0);
    EXPECT_EQ(b.naps(), 0u);
}

TEST(Backoff, AYieldThatGaveTheCoreAwayYieldsOnEveryPollAgain) {
    fake::start(1us);
    backoff b(fake::sys);
    yielding_polls(b, static_cast<int>(backoff::spin_polls) + 4096);  // spaced out by now
    fake::yield_takes = 50us;  // someone else ran
    const int spaced = fake::yields;
    for (int i = 0; i < 1024 && fake::yields == spaced; ++i) b.idle();
    ASSERT_EQ(fake::yields, spaced + 1);
    // From then on every idle poll yields (60 yields: 3 ms, no nap yet).
    EXPECT_EQ(yielding_polls(b, 60).size(), 60u);
    EXPECT_EQ(fake::naps, 0);
    // The core comes free again: spacing resumes.
    fake::yield_takes = 1us;
    const auto later = yielding_polls(b, 64);
    ASSERT_GE(later.size(), 3u);
    EXPECT_EQ(later[2] - later[1], 4);
}

TEST(Backoff, NapsOnlyWhenCrowdedAndIdleLong) {
    fake::start(100us);  // every yield runs someone else
    backoff b(fake::sys);
    // 5 ms of yields of 100 µs is 50 polls.
    yielding_polls(b, static_cast<int>(backoff::spin_polls) + 40);
    EXPECT_EQ(fake::naps, 0);
    yielding_polls(b, 1024);
    EXPECT_GT(fake::naps, 0);
    EXPECT_EQ(b.naps(), static_cast<uint64_t>(fake::naps));
}

TEST(Backoff, ActivityRestartsTheSpin) {
    fake::start(1us);
    backoff b(fake::sys);
    yielding_polls(b, static_cast<int>(backoff::spin_polls) + 100);
    const int yields = fake::yields;
    b.reset();
    yielding_polls(b, static_cast<int>(backoff::spin_polls));
    EXPECT_EQ(fake::yields, yields);  // spinning again, no yield
}

// Oversubscribed with the other processes asleep: yields come straight
// back, so messages in between do not bring them back to every idle poll;
// once a yield gave the core away, activity is followed by a yield at once.
TEST(Backoff, OversubscribedKeepsFreeYieldsSpacedAcrossActivity) {
    fake::start(1us);
    backoff b(fake::sys);
    b.set_oversubscribed(true);
    yielding_polls(b, 4096);  // spaced out to the bound by now
    for (int message = 0; message < 8; ++message) {
        b.reset();
        EXPECT_TRUE(yielding_polls(b, 64).empty()) << "after message " << message;
    }
    fake::yield_takes = 50us;  // someone else ran
    for (int i = 0; i < 2048 && !b.crowded(); ++i) b.idle();
    ASSERT_TRUE(b.crowded());
    b.reset();
    EXPECT_EQ(yielding_polls(b, 1), std::vector<int>{1});
}
