// Idle back-off for polling loops. Spinning is fastest when every process has
// a core; with more processes than cores a spinner steals the core from the
// process it waits for. So: spin briefly, then yield on each idle poll, and
// after a long idle stretch sleep a little so oversubscribed jobs still move.
#pragma once

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
};

}  // namespace ccs
