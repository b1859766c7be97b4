// What ccs_wait_until compares: each integer type read at its own width and
// signedness, the value converted to that type as C converts, every
// comparison the right way round (*ivar cmp value); the poll gap's pause
// count following the CPU's measured pause length; the tick clock's ticks
// matching steady_clock.
#include "util/poll_gap.hpp"
#include "util/tick_clock.hpp"
#include "core/wait_condition.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

namespace {

using ccs::with_condition;

bool holds(const void *ivar, ccs_int_type_t type, ccs_cmp_t cmp, uint64_t value) {
    return with_condition(ivar, type, cmp, value, [](auto test) { return test(); });
}

TEST(WaitCondition, EveryComparisonReadsWordCmpValue) {
    const uint64_t word = 5;
    const struct {
        ccs_cmp_t cmp;
        bool below, equal, above;  // with value 6, 5, 4
    } cases[] = {
        {CCS_CMP_EQ, false, true, false}, {CCS_CMP_NE, true, false, true}, {CCS_CMP_GT, false, false, true},
        {CCS_CMP_GE, false, true, true},  {CCS_CMP_LT, true, false, false}, {CCS_CMP_LE, true, true, false},
    };
    for (const auto &c : cases) {
        EXPECT_EQ(holds(&word, CCS_UINT64, c.cmp, 6), c.below) << c.cmp;
        EXPECT_EQ(holds(&word, CCS_UINT64, c.cmp, 5), c.equal) << c.cmp;
        EXPECT_EQ(holds(&word, CCS_UINT64, c.cmp, 4), c.above) << c.cmp;
    }
}

TEST(WaitCondition, SignedTypesCompareSigned) {
    const int64_t minus_one = -1;
    EXPECT_TRUE(holds(&minus_one, CCS_INT64, CCS_CMP_LT, 0));
    EXPECT_FALSE(holds(&minus_one, CCS_UINT64, CCS_CMP_LT, 0));  // as unsigned it is the largest
    EXPECT_TRUE(holds(&minus_one, CCS_INT64, CCS_CMP_EQ, static_cast<uint64_t>(int64_t{-1})));
    const int32_t minus_five = -5;
    EXPECT_TRUE(holds(&minus_five, CCS_INT32, CCS_CMP_LT, static_cast<uint64_t>(int64_t{-4})));
    EXPECT_TRUE(holds(&minus_five, CCS_UINT32, CCS_CMP_GT, 0x7fffffffu));
}

TEST(WaitCondition, ThirtyTwoBitTypesReadFourBytesAndTruncateTheValue) {
    // The word next to a 32-bit one is not part of it.
    alignas(8) uint32_t words[2] = {7, 0xffffffffu};
    EXPECT_TRUE(holds(&words[0], CCS_UINT32, CCS_CMP_EQ, 7));
    EXPECT_TRUE(holds(&words[0], CCS_UINT32, CCS_CMP_EQ, (uint64_t{1} << 32) + 7));  // modulo 2^32
    EXPECT_TRUE(holds(&words[1], CCS_INT32, CCS_CMP_EQ, static_cast<uint64_t>(int64_t{-1})));
}

TEST(WaitCondition, ValidatesTypesAndComparisons) {
    EXPECT_TRUE(ccs::valid_int_type(CCS_INT32));
    EXPECT_TRUE(ccs::valid_int_type(CCS_UINT64));
    EXPECT_FALSE(ccs::valid_int_type(4));
    EXPECT_FALSE(ccs::valid_int_type(-1));
    EXPECT_TRUE(ccs::valid_cmp(CCS_CMP_LE));
    EXPECT_FALSE(ccs::valid_cmp(6));
    EXPECT_FALSE(ccs::valid_cmp(-1));
    EXPECT_EQ(ccs::int_type_size(CCS_INT32), 4u);
    EXPECT_EQ(ccs::int_type_size(CCS_UINT64), 8u);
}

TEST(PollGap, PausesFollowTheMeasuredPauseLength) {
    using std::chrono::nanoseconds;
    const double pause = ccs::poll_gap::pause_ns();
    EXPECT_GT(pause, 0.0);
    EXPECT_EQ(ccs::poll_gap(nanoseconds(0)).pauses(), 0u);
    EXPECT_EQ(ccs::poll_gap(nanoseconds(1)).pauses(), 1u);  // a gap asked for is never none
    const auto gap = ccs::poll_gap(nanoseconds(static_cast<int64_t>(pause * 8)));
    EXPECT_GE(gap.pauses(), 7u);
    EXPECT_LE(gap.pauses(), 9u);
    // Bounded: the longest gap CCS_WAIT_GAP_NS allows stays near 10 µs.
    EXPECT_LE(ccs::poll_gap(nanoseconds(10'000)).pauses() * pause, 10'000.0 + 2 * pause);
}

TEST(TickClock, TicksFollowSteadyClock) {
    using namespace std::chrono;
    const uint64_t per_ms = ccs::tick_clock::ticks(milliseconds(1));
    ASSERT_GT(per_ms, 0u);
    EXPECT_EQ(ccs::tick_clock::ticks(nanoseconds(0)), 0u);
    // Ticks counted over steady_clock's time, against the calibrated rate.
    // Loose, and up to three tries: a try preempted between its readings
    // (the unit tests share 2 cores with the conformance jobs) must not
    // fail the test; a wrong scale fails every try.
    double ratio = 0;
    for (int attempt = 0; attempt < 3 && !(ratio > 0.5 && ratio < 2.0); ++attempt) {
        const auto t0 = steady_clock::now();
        const uint64_t k0 = ccs::tick_clock::now();
        std::this_thread::sleep_for(milliseconds(20));
        const uint64_t k1 = ccs::tick_clock::now();
        const double ms = duration<double, std::milli>(steady_clock::now() - t0).count();
        ratio = static_cast<double>(k1 - k0) / (ms * static_cast<double>(per_ms));
    }
    EXPECT_GT(ratio, 0.5);
    EXPECT_LT(ratio, 2.0);
}

}  // namespace
