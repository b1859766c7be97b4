// How long a blocking wait spins before it sleeps. A sleep costs the
// wake-up and whatever its last slice overshoots, which a
// wait for a large put in a ping-pong pays every time if it outlasts the
// fixed spin. So a wait that ended within `most` sets the next wait's spin
// to a quarter more than it lasted (never below `least`); a longer one,
// or one on a node where spinning takes the CPU from other processes,
// sets it back to `least`. (On an oversubscribed node a wait's polls
// yield the CPU anyway; learning only spares them the sleep.)
#pragma once

#include <algorithm>
#include <cstdint>

namespace ccs {

class learned_spin {
public:
    // In the caller's clock ticks: CCS_WAIT_SPIN_US, CCS_WAIT_SPIN_MAX_US.
    void set_bounds(uint64_t least, uint64_t most) {
        least_ = least;
        most_ = most > least ? most : 0;  // else no wait is short enough to learn from
        spin_ = least_;
    }
    // The next wait's spin.
    uint64_t ticks() const { return spin_; }
    // A wait that went idle lasted `idle` ticks since; `shared` says the
    // node's CPUs are contended.
    void wait_lasted(uint64_t idle, bool shared) {
        spin_ = !shared && idle < most_ ? std::max(least_, idle + idle / 4) : least_;
    }

private:
    uint64_t least_ = 0, most_ = 0, spin_ = 0;
};

}  // namespace ccs
