#include "util/api_lock.hpp"

#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/membarrier.hpp"
#include "util/poll_gap.hpp"

namespace ccs {
namespace {

// A test-and-set lock whose release is a plain store. A mutex's release is
// an atomic exchange, which on x86 waits for the loads before it: in a
// polling loop that takes and releases the lock around every poll, each
// poll then waits for the ring's cache miss. A thread that cannot take it
// spins a little, then sleeps on the word in slices (a release that missed
// it ends the slice).
std::atomic<uint32_t> g_word{0};  // 1: held
std::atomic<uint32_t> g_waiting{0};
constexpr int spins_before_sleep = 64;
constexpr long sleep_slice_ns = 50000;

// Entry points this thread is inside while it holds the lock. Initial-exec:
// every call while the lock is on reads it, and the general dynamic model
// makes each read a call into the dynamic linker.
thread_local uint32_t t_depth __attribute__((tls_model("initial-exec"))) = 0;

bool try_take() { return g_word.load(std::memory_order_relaxed) == 0 && g_word.exchange(1, std::memory_order_acquire) == 0; }

// Sleeps a slice while *word holds `value` (a wake or the slice ends it).
void sleep_while(std::atomic<uint32_t> &word, uint32_t value) {
    const timespec slice{0, sleep_slice_ns};
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE, value, &slice, nullptr, 0);
}
void wake_one(std::atomic<uint32_t> &word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void take_word() {
    if (try_take()) return;
    g_waiting.fetch_add(1, std::memory_order_seq_cst);
    for (int spins = 0; !try_take(); ++spins) {
        if (spins < spins_before_sleep) {
            cpu_pause();
            continue;
        }
        sleep_while(g_word, 1);
    }
    g_waiting.fetch_sub(1, std::memory_order_relaxed);
}

void give_word() {
    g_word.store(0, std::memory_order_release);
    if (g_waiting.load(std::memory_order_relaxed) != 0) [[unlikely]]
        wake_one(g_word);
}

// The biased lock: each side marks itself inside, then looks at the other.
// The application's mark and look may pass each other in its store buffer;
// the progress thread's membarrier, between its own mark and look, drains
// every thread's, so at least one of two arriving together sees the other.
// The one that sees the other inside steps back and waits for it to leave.
std::atomic<bool> g_biased{false};
std::atomic<uint32_t> g_application_in{0};
std::atomic<uint32_t> g_progress_in{0};
std::atomic<uint32_t> g_application_waiting{0};
std::atomic<uint32_t> g_progress_waiting{0};
thread_local bool t_progress_thread __attribute__((tls_model("initial-exec"))) = false;

// One side's way in: mark itself inside (`mine`), make the marks meet
// (the progress thread: membarrier; the application: a compiler fence,
// the membarrier covering it), look at the other's; if the other is inside,
// step back, say so (`waiting`) and wait until it leaves.
void take_biased(std::atomic<uint32_t> &mine, std::atomic<uint32_t> &theirs, std::atomic<uint32_t> &waiting,
                 std::atomic<uint32_t> &they_wait, bool fence_all) {
    for (;;) {
        mine.store(1, std::memory_order_relaxed);
        if (fence_all) membarrier::all_threads();
        else std::atomic_signal_fence(std::memory_order_seq_cst);
        if (theirs.load(std::memory_order_acquire) == 0) [[likely]]
            return;
        mine.store(0, std::memory_order_release);
        if (they_wait.load(std::memory_order_relaxed)) wake_one(mine);
        waiting.store(1, std::memory_order_seq_cst);
        for (int spins = 0; theirs.load(std::memory_order_acquire) != 0; ++spins) {
            if (spins < spins_before_sleep) cpu_pause();
            else sleep_while(theirs, 1);
        }
        waiting.store(0, std::memory_order_relaxed);
    }
}

void take() {
    if (!g_biased.load(std::memory_order_relaxed)) return take_word();
    if (t_progress_thread)
        return take_biased(g_progress_in, g_application_in, g_progress_waiting, g_application_waiting, true);
    take_biased(g_application_in, g_progress_in, g_application_waiting, g_progress_waiting, false);
}

void give() {
    if (!g_biased.load(std::memory_order_relaxed)) return give_word();
    if (t_progress_thread) {
        g_progress_in.store(0, std::memory_order_release);
        if (g_application_waiting.load(std::memory_order_relaxed)) [[unlikely]]
            wake_one(g_progress_in);
        return;
    }
    g_application_in.store(0, std::memory_order_release);
    if (g_progress_waiting.load(std::memory_order_relaxed)) [[unlikely]]
        wake_one(g_application_in);
}

// Whether a thread waits to get in.
bool others_wait() {
    if (!g_biased.load(std::memory_order_relaxed)) return g_waiting.load(std::memory_order_relaxed) != 0;
    return (t_progress_thread ? g_application_waiting : g_progress_waiting).load(std::memory_order_relaxed) != 0;
}

}  // namespace

void api_lock::enter() noexcept {
    if (t_depth++ == 0) take();
}

void api_lock::leave() noexcept {
    if (--t_depth == 0) give();
}

bool api_lock::held_outermost() { return t_depth == 1; }
bool api_lock::held() { return t_depth > 0; }

bool api_lock::set_biased(bool biased) {
    biased = biased && membarrier::available();
    g_biased.store(biased, std::memory_order_relaxed);
    return biased;
}

bool api_lock::biased() { return g_biased.load(std::memory_order_relaxed); }

void api_lock::mark_progress_thread() { t_progress_thread = true; }

void api_lock::let_others_in() {
    if (t_depth != 1 || !others_wait()) return;
    give();
    // Without a pause this thread would often take the word straight back.
    for (int i = 0; i < 32; ++i) cpu_pause();
    sched_yield();
    take();
}

api_lock::released::released() noexcept {
    if (t_depth != 1) return;
    released_ = true;
    t_depth = 0;
    give();
}

api_lock::released::~released() {
    if (!released_) return;
    take();
    t_depth = 1;
}

}  // namespace ccs
