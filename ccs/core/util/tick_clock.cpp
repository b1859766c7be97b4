#include "util/tick_clock.hpp"

#include <algorithm>

namespace ccs {

uint64_t tick_clock::ticks(std::chrono::nanoseconds ns) {
    static const double per_ns = [] {
        using clock = std::chrono::steady_clock;
        const auto t0 = clock::now();
        const uint64_t k0 = now();
        while (clock::now() - t0 < std::chrono::microseconds(200)) {
        }
        const double elapsed = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
        return std::max(static_cast<double>(now() - k0) / elapsed, 1e-3);
    }();
    return static_cast<uint64_t>(static_cast<double>(ns.count()) * per_ns);
}

}  // namespace ccs
