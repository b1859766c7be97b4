// A clock for short intervals inside poll loops: the time-stamp counter on
// x86 (less than half the cost of steady_clock in a VM), steady_clock
// elsewhere. Calibrated once against steady_clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace ccs {

struct tick_clock {
    static uint64_t now() {
#if defined(__x86_64__) || defined(__i386__)
        return __rdtsc();
#else
        return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
    }
    // Ticks in `ns` nanoseconds (the first call calibrates, ~0.2 ms).
    static uint64_t ticks(std::chrono::nanoseconds ns);
};

}  // namespace ccs
