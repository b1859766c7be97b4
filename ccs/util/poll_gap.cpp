#include "util/poll_gap.hpp"

#include "util/params.hpp"

#include <algorithm>
#include <cmath>

namespace ccs {

double poll_gap::pause_ns() {
    static const double measured = [] {
        using clock = std::chrono::steady_clock;
        constexpr int per_round = 512;
        double best = 1e9;
        for (int round = 0; round < 5; ++round) {
            const auto start = clock::now();
            for (int i = 0; i < per_round; ++i) cpu_pause();
            const double ns = std::chrono::duration<double, std::nano>(clock::now() - start).count() / per_round;
            best = std::min(best, ns);
        }
        return std::max(best, 0.1);  // a CPU without a pause instruction
    }();
    return measured;
}

poll_gap::poll_gap(std::chrono::nanoseconds gap) {
    if (gap.count() <= 0) return;
    // At least one pause, at most about 10 µs of them.
    const double n = std::round(static_cast<double>(gap.count()) / pause_ns());
    pauses_ = static_cast<uint32_t>(std::clamp(n, 1.0, 10'000.0 / pause_ns() + 1));
}

bool wait_gap_param(std::chrono::nanoseconds &gap, std::string &error) {
    size_t ns = 0;
    if (!param_size("CCS_WAIT_GAP_NS", "ns", 10000, ns, error)) return false;
    gap = std::chrono::nanoseconds(ns);
    return true;
}

}  // namespace ccs
