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
// The one that sees the other inside steps back, says so (`waiting`) and
// waits for it to leave.
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

}  // namespace

// Every way in but the application's first try (api_lock::take): the
// word, the progress thread's side, and the application's wait once that
// try found the progress thread inside.
void api_lock::take_slowly() noexcept {
    if (!biased_.load(std::memory_order_relaxed)) return take_word();
    if (progress_thread_)
        return take_biased(progress_in_, application_in_, progress_waiting_, application_waiting_, true);
    take_biased(application_in_, progress_in_, application_waiting_, progress_waiting_, false);
}

// The application's way out of the biased lock is inline (api_lock::give).
void api_lock::give_unbiased_or_progress() noexcept {
    if (!biased_.load(std::memory_order_relaxed)) return give_word();
    progress_in_.store(0, std::memory_order_release);
    if (application_waiting_.load(std::memory_order_relaxed)) [[unlikely]]
        wake_one(progress_in_);
}

void api_lock::wake_progress_thread() noexcept { wake_one(application_in_); }

bool api_lock::others_wait() noexcept {
    if (!biased_.load(std::memory_order_relaxed)) return g_waiting.load(std::memory_order_relaxed) != 0;
    return (progress_thread_ ? application_waiting_ : progress_waiting_).load(std::memory_order_relaxed) != 0;
}

bool api_lock::held_outermost() { return depth_ == 1; }
bool api_lock::held() { return depth_ > 0; }

bool api_lock::set_biased(bool biased) {
    biased = biased && membarrier::available();
    biased_.store(biased, std::memory_order_relaxed);
    return biased;
}

bool api_lock::biased() { return biased_.load(std::memory_order_relaxed); }

void api_lock::mark_progress_thread() { progress_thread_ = true; }

void api_lock::let_others_in() {
    if (depth_ != 1 || !others_wait()) return;
    give();
    // Without a pause this thread would often take the word straight back.
    for (int i = 0; i < 32; ++i) cpu_pause();
    sched_yield();
    take();
}

api_lock::released::released() noexcept {
    if (depth_ != 1) return;
    released_ = true;
    depth_ = 0;
    give();
}

api_lock::released::~released() {
    if (!released_) return;
    take();
    depth_ = 1;
}

}  // namespace ccs
