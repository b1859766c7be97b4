// Spacing between polls of a word that another process writes.
//
// A poll that reads the line again while the writer's store is on its way
// holds that store up: the line goes back to the reader before the writer
// can finish. Polls spaced by tens of nanoseconds let the store through;
// message polls (the transport's ring) gain nothing from a gap, so only
// waits on memory use one.
// The pause instruction makes the gap without a system call; it lasts 10
// to 140 cycles depending on the CPU, so the gap is timed once, not counted.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ccs {

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#else
    asm volatile("" ::: "memory");
#endif
}

class poll_gap {
public:
    poll_gap() = default;
    // Pauses that last about `gap` on this CPU (none for a zero gap).
    explicit poll_gap(std::chrono::nanoseconds gap);

    void wait() const {
        for (uint32_t i = pauses_; i > 0; --i) cpu_pause();
    }
    uint32_t pauses() const { return pauses_; }
    // One pause instruction, timed at the first use (the quickest of a few
    // rounds, so a preemption during the timing does not inflate it).
    static double pause_ns();

private:
    uint32_t pauses_ = 0;
};

// The gap CCS_WAIT_GAP_NS asks for; false, with `error` saying why, when
// that is not a number of ns up to 10000.
bool wait_gap_param(std::chrono::nanoseconds &gap, std::string &error);

}  // namespace ccs
