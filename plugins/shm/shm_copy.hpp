// Large copies into and out of peers' mapped memory.
//
// glibc's memcpy stops using `rep movsb` above its rep_movsb_stop_threshold
// (the L2 size on AMD CPUs) and runs a vector loop up to its non-temporal
// threshold. Which is faster in between depends on the CPU: glibc's AMD
// threshold was tuned on Zen 3, where the loop wins; on Zen 5 `rep movsb`
// wins. So the first large copies are timed both ways, taking turns, and
// the faster way is kept (CCS_SHM_BULK_COPY forces one). Threads may copy
// at once: one at a time takes part in the trial, the others use memcpy
// meanwhile.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

namespace ccs::shm {

class bulk_copy {
public:
    enum class method { trial, memcpy, movsb };
    // `wanted`: trial, or a method forced by configuration. Without fast
    // `rep movsb` in the CPU, or under a sanitizer that must see every
    // access, it is always memcpy.
    explicit bulk_copy(method wanted);

    // True when this copy's timing decided the trial (log decision() then).
    bool operator()(void *to, const void *from, size_t n) {
        const method m = chosen_.load(std::memory_order_acquire);
        if (n < min_bytes || m == method::memcpy) std::memcpy(to, from, n);
        else if (m == method::movsb) movsb(to, from, n);
        else return try_trial(to, from, n);
        return false;
    }
    method chosen() const { return chosen_.load(std::memory_order_acquire); }
    // Once the trial has decided: what it measured, for the log.
    const std::string &decision() const { return decision_; }

    static constexpr size_t min_bytes = size_t{1} << 20;

private:
    static void movsb(void *to, const void *from, size_t n);
    bool try_trial(void *to, const void *from, size_t n);
    bool trial(void *to, const void *from, size_t n);

    static constexpr int rounds_each = 4;
    std::atomic<method> chosen_;
    std::atomic_flag trying_ = ATOMIC_FLAG_INIT;  // a thread is timing a copy
    int rounds_ = 0;
    double best_ns_per_byte_[2] = {0, 0};  // memcpy, movsb
    std::string decision_;
};

}  // namespace ccs::shm
