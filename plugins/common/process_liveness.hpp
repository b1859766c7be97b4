// Watching processes on this node that a transport cannot watch for us
// (shared memory has no connection to break): is the process still there?
#pragma once

#include <chrono>
#include <cstdint>

namespace ccs::plugin {

// Whether process `pid` exists (it may be a zombie until reaped: its
// launcher still holds it). Zero or a negative pid never does.
bool process_exists(int32_t pid);

// When to look: call due() on every progress; true about every 100 ms (or
// `every`). The clock is read only every 4096 calls (or `polls_per_look`),
// so an idle poll costs a count.
class liveness_pacer {
public:
    liveness_pacer() = default;
    liveness_pacer(std::chrono::steady_clock::duration every, uint32_t polls_per_look)
        : polls_per_clock_read(polls_per_look), interval(every) {}
    bool due() {
        if (++polls_ < polls_per_clock_read) return false;
        polls_ = 0;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < interval) return false;
        last_ = now;
        return true;
    }
    // The next due() reads the clock (after a sleep, say).
    void look_next() { polls_ = polls_per_clock_read - 1; }

private:
    uint32_t polls_per_clock_read = 4096;
    std::chrono::steady_clock::duration interval = std::chrono::milliseconds(100);
    uint32_t polls_ = 0;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace ccs::plugin
