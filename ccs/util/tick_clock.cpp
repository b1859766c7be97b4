#include "util/tick_clock.hpp"

#include <algorithm>

namespace ccs {
namespace {

using steady = std::chrono::steady_clock;

// Both clocks at one instant: the counter read on both sides of
// steady_clock, the narrowest of a few tries kept. A process preempted
// between two reads (common with more processes than cores) would
// otherwise pair readings milliseconds apart and skew the scale by
// several times over a 200 us calibration.
struct reading {
    steady::time_point time;
    uint64_t ticks;
};
reading read_both() {
    reading best{};
    uint64_t narrowest = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
        const uint64_t before = tick_clock::now();
        const steady::time_point time = steady::now();
        const uint64_t after = tick_clock::now();
        if (after - before < narrowest) {
            narrowest = after - before;
            best = {time, before + (after - before) / 2};
        }
    }
    return best;
}

}  // namespace

uint64_t tick_clock::ticks(std::chrono::nanoseconds ns) {
    static const double per_ns = [] {
        const reading start = read_both();
        while (steady::now() - start.time < std::chrono::microseconds(200)) {
        }
        const reading end = read_both();
        const double elapsed = std::chrono::duration<double, std::nano>(end.time - start.time).count();
        return std::max(static_cast<double>(end.ticks - start.ticks) / elapsed, 1e-3);
    }();
    return static_cast<uint64_t>(static_cast<double>(ns.count()) * per_ns);
}

}  // namespace ccs
