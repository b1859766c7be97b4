// Idle back-off for polling loops. Spinning is fastest when every process has
// a core; with more processes than cores a spinner steals the core from the
// process it waits for. So: spin briefly, then yield; and while yields show
// that others want this core, after a long idle stretch (measured in time)
// sleep a little now and then.
//
// A yield is a system call (about 1 µs in a VM). When nobody else wants the
// core it comes straight back, and yielding on every poll only makes the
// process blind to arrivals while it is in the kernel. So yields that come
// straight back space the next ones out, up to a bound, and never lead to a
// nap; one that gave the core away returns to yielding on every idle poll.
// This matters for a process that only waits for puts into its memory: it
// sees no events, so its idle stretch never ends, and naps would delay every
// flag it polls by tens of µs.
#pragma once

#include <chrono>
#include <cstdint>

namespace ccs {

class backoff {
public:
    using clock = std::chrono::steady_clock;
    // What the back-off does to the process; replaceable for tests.
    struct system {
        clock::time_point (*now)();
        void (*yield)();
        void (*nap)();
    };
    static const system real_system;

    explicit backoff(const system &sys = real_system) : sys_(sys) {}

    // More processes on the node than CPUs: a spinner would only hold the
    // core the process it waits for needs, so idle polls yield from the
    // first (as MPI's yield-when-idle does for an oversubscribed node).
    void set_oversubscribed(bool on) { spin_ = on ? 0 : spin_polls; }

    // Call after a poll that found nothing to do.
    void idle();
    // Call after a poll that did something. Oversubscribed, yields that
    // found the core free stay spaced out across activity: when the node's
    // other processes sleep, two that talk then pay no system call per
    // message. Once a yield gave the core away, the next idle poll yields.
    void reset() {
        idle_polls_ = 0;
        polls_to_yield_ = spin_ == 0 && !crowded_ ? yield_every_ - 1 : 0;
    }

    // How often the process gave its core away: many yields on dedicated
    // cores mean waits longer than the spin, many naps mean long idleness
    // on a crowded node.
    uint64_t yields() const { return yields_; }
    // The last yield gave the core to another process.
    bool crowded() const { return crowded_; }
    uint64_t naps() const { return naps_; }

    // Idle polls spun before the first yield.
    static constexpr uint32_t spin_polls = 512;
    // Yields that find the core free are spaced out up to this many idle
    // polls (some µs): a process that later needs the core waits that long.
    static constexpr uint32_t max_yield_every = 1024;
    // A yield taking this many times the quickest one seen ran someone else.
    // The quickest starts at a bound that a yield finding the core free
    // stays under (about 0.2 µs on bare metal, 1.2 µs in a VM here), so a
    // node where every yield switches is still seen as crowded.
    static constexpr int gave_core_away_factor = 4;
    static constexpr auto free_yield_bound = std::chrono::microseconds(2);
    // Idle this long on a crowded node, a process naps every 64 idle polls.
    static constexpr auto nap_after = std::chrono::milliseconds(5);

private:
    void yield();

    system sys_;
    uint32_t spin_ = spin_polls;
    uint32_t idle_polls_ = 0;
    uint32_t yield_every_ = 1;     // idle polls between yields, after the spin
    uint32_t polls_to_yield_ = 0;  // until the next one
    bool crowded_ = false;         // the last yield gave the core away
    clock::duration quickest_yield_ = free_yield_bound;
    clock::time_point idle_since_;
    uint64_t yields_ = 0, naps_ = 0;
};

}  // namespace ccs
