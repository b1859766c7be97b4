// A lock per peer over a plugin's send side, for plugins that let the core
// send to different peers from several threads at once
// (ccs_plugin_v1.h: am_send_concurrent). The send and whatever progress()
// does to that peer's send state take it; until the core asks for
// concurrent sends nothing does, so one thread pays one branch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sched.h>

namespace ccs::plugin {

class peer_locks {
public:
    void resize(size_t peers) { words_ = std::make_unique<std::atomic<uint32_t>[]>(peers); }
    // Before the threads come (the core asks with its lock held).
    void enable() { on_ = true; }

    class hold {
    public:
        hold(peer_locks &locks, size_t peer) : word_(locks.on_ ? &locks.words_[peer] : nullptr) {
            if (!word_) return;
            for (int spins = 0;; ++spins) {
                if (word_->load(std::memory_order_relaxed) == 0 && word_->exchange(1, std::memory_order_acquire) == 0)
                    return;
                if (spins < 128) pause();
                else sched_yield();  // the holder may have lost its CPU
            }
        }
        ~hold() {
            if (word_) word_->store(0, std::memory_order_release);
        }
        hold(const hold &) = delete;
        hold &operator=(const hold &) = delete;

    private:
        static void pause() {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield" ::: "memory");
#endif
        }
        std::atomic<uint32_t> *word_;
    };

private:
    std::unique_ptr<std::atomic<uint32_t>[]> words_;
    bool on_ = false;
};

}  // namespace ccs::plugin
