// Idle back-off for polling loops. Spinning is fastest when every process has
// a core; with more processes than cores a spinner steals the core from the
// process it waits for. So: spin briefly, then yield on each idle poll, and
// only after a long idle stretch (measured in time, since a sched_yield costs
// anything from 100 ns to a whole time slice) sleep a little on each poll.
#pragma once

#include <chrono>
#include <cstdint>

namespace ccs {

class backoff {
public:
    // Call after a poll that found nothing to do.
    void idle();
    // Call after a poll that did something.
    void reset() { idle_polls_ = 0; }

private:
    uint32_t idle_polls_ = 0;
    std::chrono::steady_clock::time_point idle_since_;
};

}  // namespace ccs
