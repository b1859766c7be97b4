// The lock processes of a node take to accumulate in place into a
// ccs_mem_alloc block: one word in the owner's generation table, 0 when
// free, else the holder's pid. The owner applying an accumulate that came
// in a message takes it too, so every accumulate into the block is atomic
// with respect to the others, element by element, whoever applies it. It
// is held only while elements are combined (no progress, no waiting
// inside). A waiter backs off (2 cores, more processes) and takes over the
// lock of a holder whose process is gone, so a death never hangs the rest.
#pragma once

#include "core/memory/generation_table.hpp"
#include "util/backoff.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>

#include <signal.h>
#include <unistd.h>

namespace ccs {

inline bool lock_holder_gone(uint64_t pid) {
    return pid != 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// This process's pid, as the lock records it: getpid is a system call, and
// an uncontended accumulate is a few hundred nanoseconds in all. Read
// again after a fork (the child is another holder).
uint64_t lock_holder_id();

class block_lock_guard {
public:
    explicit block_lock_guard(generation_word *word) : word_(word) {
        if (!word_) return;
        const uint64_t me = lock_holder_id();
        uint64_t holder = 0;
        if (word_->compare_exchange_strong(holder, me, std::memory_order_acquire, std::memory_order_relaxed)) [[likely]]
            return;
        wait_for(me);
    }
    ~block_lock_guard() {
        if (word_) word_->store(0, std::memory_order_release);
    }
    block_lock_guard(const block_lock_guard &) = delete;
    block_lock_guard &operator=(const block_lock_guard &) = delete;

private:
    // The lock is held: back off until it is free, or its holder gone.
    [[gnu::noinline]] void wait_for(uint64_t me) {
        backoff wait;
        auto next_check = std::chrono::steady_clock::now() + std::chrono::milliseconds(10);
        for (;;) {
            wait.idle();
            uint64_t holder = 0;
            if (word_->compare_exchange_weak(holder, me, std::memory_order_acquire, std::memory_order_relaxed)) return;
            if (std::chrono::steady_clock::now() > next_check) {
                if (lock_holder_gone(holder) &&
                    word_->compare_exchange_strong(holder, me, std::memory_order_acquire, std::memory_order_relaxed))
                    return;
                next_check = std::chrono::steady_clock::now() + std::chrono::milliseconds(10);
            }
        }
    }
    generation_word *word_;
};

}  // namespace ccs
