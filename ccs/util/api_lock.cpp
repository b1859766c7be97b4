#include "util/api_lock.hpp"

#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

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

void take() {
    if (try_take()) return;
    g_waiting.fetch_add(1, std::memory_order_seq_cst);
    for (int spins = 0; !try_take(); ++spins) {
        if (spins < spins_before_sleep) {
            cpu_pause();
            continue;
        }
        const timespec slice{0, sleep_slice_ns};
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&g_word), FUTEX_WAIT_PRIVATE, 1u, &slice, nullptr, 0);
    }
    g_waiting.fetch_sub(1, std::memory_order_relaxed);
}

void give() {
    g_word.store(0, std::memory_order_release);
    if (g_waiting.load(std::memory_order_relaxed) != 0) [[unlikely]]
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&g_word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace

void api_lock::enter() noexcept {
    if (t_depth++ == 0) take();
}

void api_lock::leave() noexcept {
    if (--t_depth == 0) give();
}

bool api_lock::held_outermost() { return t_depth == 1; }

void api_lock::let_others_in() {
    if (t_depth != 1 || g_waiting.load(std::memory_order_relaxed) == 0) return;
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
