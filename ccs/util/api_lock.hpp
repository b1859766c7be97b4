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
    static void let_others_in();

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
    static bool held_outermost();
    // Whether this thread is inside the library (a handler or callback).
    static bool held();

private:
    static void enter() noexcept {
        if (depth_++ == 0) take();
    }
    static void leave() noexcept {
        if (--depth_ == 0) give();
    }
    // The application's way in and out of the biased lock is inline: every
    // put, get and atomic on mapped memory takes it while the progress
    // thread runs. The rest (the word, the progress thread's side, a wait
    // for the other side) is out of line.
    static void take() noexcept {
        if (biased_.load(std::memory_order_relaxed) && !progress_thread_) [[likely]] {
            // The progress thread's membarrier orders this mark before the
            // look below; the compiler must not swap them.
            application_in_.store(1, std::memory_order_relaxed);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            if (progress_in_.load(std::memory_order_acquire) == 0) [[likely]]
                return;
        }
        take_slowly();
    }
    static void give() noexcept {
        if (biased_.load(std::memory_order_relaxed) && !progress_thread_) [[likely]] {
            application_in_.store(0, std::memory_order_release);
            if (progress_waiting_.load(std::memory_order_relaxed) != 0) [[unlikely]]
                wake_progress_thread();
            return;
        }
        give_unbiased_or_progress();
    }
    static void take_slowly() noexcept;
    static void give_unbiased_or_progress() noexcept;
    static void wake_progress_thread() noexcept;
    static bool others_wait() noexcept;

    static inline std::atomic<bool> on_{false};
    // Biased: each side's "inside" mark and "waiting to get in" flag.
    static inline std::atomic<bool> biased_{false};
    static inline std::atomic<uint32_t> application_in_{0};
    static inline std::atomic<uint32_t> progress_in_{0};
    static inline std::atomic<uint32_t> application_waiting_{0};
    static inline std::atomic<uint32_t> progress_waiting_{0};
    // Entry points this thread is inside while it holds the lock.
    // Initial-exec: the general dynamic model makes each read a call into
    // the dynamic linker.
    static inline thread_local uint32_t depth_ __attribute__((tls_model("initial-exec"))) = 0;
    static inline thread_local bool progress_thread_ __attribute__((tls_model("initial-exec"))) = false;
};

}  // namespace ccs
