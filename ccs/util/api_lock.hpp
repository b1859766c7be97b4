// One lock around the library's calls, on only while more than one thread
// may call in: at thread level multiple, and while the progress thread
// runs. guarded() takes it at every C entry point; a thread already inside
// (a handler or callback calling back in) does not take it again. Off, an
// entry point pays one relaxed load and no thread-local access.
//
// Biased (below level multiple, with the progress thread): the application
// (one thread at a time) takes it with two plain stores and a load, and the
// progress thread, which takes it rarely, pays for both: it makes every
// thread of the process pass a full memory barrier (membarrier) before it
// looks whether the application is inside. Otherwise a test-and-set word.
//
// Blocking waits give the lock up between their polls and while they sleep,
// so other threads get in while one waits.
#pragma once

#include <atomic>
#include <cstdint>

namespace ccs {

// The lock's state, defined in api_lock.cpp. Here so that the application's
// way in and out of the biased lock, and the check between polls, are
// inline: they run around every poll of a waiting thread.
namespace api_lock_state {
// Entry points this thread is inside while it holds the lock. Initial-exec:
// the general dynamic model makes each read a call into the dynamic linker.
extern thread_local uint32_t t_depth __attribute__((tls_model("initial-exec")));
extern thread_local bool t_progress_thread __attribute__((tls_model("initial-exec")));
extern std::atomic<bool> g_biased;
extern std::atomic<uint32_t> g_waiting;  // threads waiting for the word lock
// The biased lock: each side's mark, and whether it waits for the other.
extern std::atomic<uint32_t> g_application_in, g_progress_in, g_application_waiting, g_progress_waiting;
}  // namespace api_lock_state

class api_lock {
public:
    static bool on() { return on_.load(std::memory_order_relaxed); }
    // Turned on before a second thread may call in, off once only one may.
    static void set(bool on) { on_.store(on, std::memory_order_relaxed); }
    // Biased or not, changed only while no other thread can be inside (the
    // progress thread stopped) and the caller does not hold the lock. True
    // when biased now: asked for, and the kernel has membarrier.
    static bool set_biased(bool biased);
    static bool biased();
    // Called by the progress thread when it starts: the side that pays.
    static void mark_progress_thread();

    // Held for the life of one entry point.
    class entry {
    public:
        entry() noexcept : entered_(on()) {
            if (entered_) [[unlikely]]
                enter();
        }
        ~entry() {
            if (entered_) [[unlikely]]
                leave();
        }
        entry(const entry &) = delete;
        entry &operator=(const entry &) = delete;

    private:
        bool entered_;
    };

    // In a wait, between polls: if this thread holds the lock at the
    // outermost level and another thread waits for it, lets that one in.
    static void let_others_in() {
        using namespace api_lock_state;
        if (t_depth != 1) return;
        const std::atomic<uint32_t> &waiting = !g_biased.load(std::memory_order_relaxed) ? g_waiting
                                               : t_progress_thread ? g_application_waiting
                                                                   : g_progress_waiting;
        if (waiting.load(std::memory_order_relaxed) != 0) [[unlikely]]
            step_aside();
    }

    // For a sleep: the lock released (if this thread holds it at the
    // outermost level) for the life of the object, taken back after.
    class released {
    public:
        released() noexcept;
        ~released();
        released(const released &) = delete;
        released &operator=(const released &) = delete;

    private:
        bool released_ = false;
    };

    // Whether this thread holds the lock at the outermost level: it may
    // give it up without breaking a caller's assumptions.
    static bool held_outermost() { return api_lock_state::t_depth == 1; }

private:
    // The application's way into the biased lock, inline: mark itself
    // inside, a compiler fence (the progress thread's membarrier covers
    // it), look whether the progress thread is inside. Everything else,
    // and a progress thread found inside, takes the way out of line.
    static void enter() noexcept {
        using namespace api_lock_state;
        if (t_depth++ != 0) return;
        if (g_biased.load(std::memory_order_relaxed) && !t_progress_thread) [[likely]] {
            g_application_in.store(1, std::memory_order_relaxed);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            if (g_progress_in.load(std::memory_order_acquire) == 0) [[likely]]
                return;
        }
        take();
    }
    static void leave() noexcept {
        using namespace api_lock_state;
        if (--t_depth != 0) return;
        if (g_biased.load(std::memory_order_relaxed) && !t_progress_thread) [[likely]] {
            g_application_in.store(0, std::memory_order_release);
            if (g_progress_waiting.load(std::memory_order_relaxed) == 0) [[likely]]
                return;
        }
        give();
    }
    static void take() noexcept;
    static void give() noexcept;
    static void step_aside();
    static inline std::atomic<bool> on_{false};
};

}  // namespace ccs
