// The lock of one peer's send side (its queue, its sequence numbers, the
// route's sends to it) while fast calls run beside the API lock
// (util/fast_path.hpp). The locked path holds it as long as it works on
// the peer and may take it again inside (an error handler that sends);
// a fast call only tries it, and gives up for the locked path when a
// writer waits or the peer stays busy. Taken only for peers that fast calls
// may send to (their route takes concurrent sends, and fast paths are on).
#pragma once

#include "util/fast_path.hpp"
#include "util/poll_gap.hpp"

#include <atomic>
#include <cstdint>
#include <sched.h>

namespace ccs {

class send_lock {
public:
    // For a fast call: true with the lock (give it back with give_fast),
    // false (not taken) when it stays held for a while or a writer waits.
    // No owner is noted: a fast call never takes it twice.
    bool try_take_fast() {
        for (int spins = 0; spins < 256; ++spins) {
            if (word_.load(std::memory_order_relaxed) == 0 && word_.exchange(1, std::memory_order_acquire) == 0)
                return true;
            if (fast_path::section::writer_waiting()) return false;
            cpu_pause();
        }
        return false;
    }
    // For the locked path: waits; recursive.
    void take() {
        if (owner_.load(std::memory_order_relaxed) == me()) {
            ++depth_;
            return;
        }
        for (int spins = 0;; ++spins) {
            if (word_.load(std::memory_order_relaxed) == 0 && word_.exchange(1, std::memory_order_acquire) == 0) break;
            if (spins < 128) cpu_pause();
            else sched_yield();  // the holder may have lost its CPU
        }
        owner_.store(me(), std::memory_order_relaxed);
        depth_ = 1;
    }
    void give_fast() { word_.store(0, std::memory_order_release); }
    void give() {
        if (--depth_ > 0) return;
        owner_.store(nullptr, std::memory_order_relaxed);
        word_.store(0, std::memory_order_release);
    }

    // The locked path's hold, for the life of the object, where fast calls
    // may come (`needed`: the peer's route takes them, which it does only
    // once fast paths are on).
    class hold {
    public:
        hold(send_lock &l, bool needed) : lock_(needed ? &l : nullptr) {
            if (lock_) lock_->take();
        }
        ~hold() {
            if (lock_) lock_->give();
        }
        hold(const hold &) = delete;
        hold &operator=(const hold &) = delete;

    private:
        send_lock *lock_;
    };

private:
    static const void *me() {
        static thread_local const char token __attribute__((tls_model("initial-exec"))) = 0;
        return &token;
    }
    std::atomic<uint32_t> word_{0};
    std::atomic<const void *> owner_{nullptr};
    uint32_t depth_ = 0;  // by the holder only
};

}  // namespace ccs
