// Distributed locks (shmem_set_lock, test_lock, clear_lock): an MCS queue,
// so waiters are served in the order they came and each spins on a word of
// its own PE; the holder never has to make progress for others to queue.
//
// The user's `long` holds two 32-bit words. The first, on PE 0 only, is
// the queue's tail: 0, or the last PE in line plus one. The second, on
// every PE, is that PE's place in line: its successor plus one in the low
// 31 bits, and the top bit set when the lock is handed to it.
#include "atomics.hpp"

#include <mutex>
#include <unordered_set>

using namespace ccs::shmem;

namespace {
constexpr uint32_t granted = 0x8000'0000u;
constexpr int home = 0;

struct lock_words {
    uint32_t *tail;  // the first word (valid on the home PE)
    uint32_t *mine;  // this PE's place in line
};

lock_words words(const char *call, long *lock) {
    if (!lock) fail(call, "lock is NULL");
    if (reinterpret_cast<uintptr_t>(lock) % alignof(long) != 0) fail(call, "lock is not aligned for a long");
    auto *w = reinterpret_cast<uint32_t *>(lock);
    return {w, w + 1};
}

// One 32-bit atomic on `pe`'s copy of `word`; what the word held before.
uint32_t apply(const char *call, const pe_state &s, int op, uint32_t *word, int pe, uint32_t operand,
               uint32_t compare = 0) {
    const remote_location r = locate(call, s, word, sizeof *word, pe);
    uint32_t old = 0;
    check(call, ccs_atomic_sync(s.context, pe, op, CCS_UINT32, r.address, r.key, operand, compare, &old));
    return old;
}

uint32_t ticket(const pe_state &s) { return static_cast<uint32_t>(s.me) + 1; }

// The locks this PE holds, so that clearing one it does not hold (which
// would otherwise wait for a successor that never links) is named.
struct held_locks {
    std::mutex lock;
    std::unordered_set<const long *> held;

    void take(const char *call, const long *l) {
        std::lock_guard<std::mutex> hold(lock);
        if (!held.insert(l).second) fail(call, "this PE holds the lock already");
    }
    bool release(const long *l) {
        std::lock_guard<std::mutex> hold(lock);
        return held.erase(l) == 1;
    }
    bool holds(const long *l) {
        std::lock_guard<std::mutex> hold(lock);
        return held.count(l) == 1;
    }
};
held_locks &held() {
    static held_locks h;
    return h;
}

// Joins the line behind `before` (a PE plus one) and waits to be handed
// the lock.
void wait_in_line(const char *call, const pe_state &s, const lock_words &w, uint32_t before) {
    if (before > static_cast<uint32_t>(s.npes)) fail(call, "the lock word holds no PE: not a lock, or not zeroed");
    apply(call, s, CCS_ATOMIC_OR, w.mine, static_cast<int>(before) - 1, ticket(s));
    check(call, ccs_wait_until(w.mine, CCS_UINT32, CCS_CMP_GE, granted));
    __atomic_fetch_and(w.mine, ~granted, __ATOMIC_ACQ_REL);
}
}  // namespace

extern "C" {
void shmem_set_lock(long *lock) {
    const char *call = "shmem_set_lock";
    const pe_state &s = ready(call);
    const lock_words w = words(call, lock);
    if (held().holds(lock)) fail(call, "this PE holds the lock already");
    const uint32_t before = apply(call, s, CCS_ATOMIC_SWAP, w.tail, home, ticket(s));
    if (before != 0) wait_in_line(call, s, w, before);
    held().take(call, lock);
}

int shmem_test_lock(long *lock) {
    const char *call = "shmem_test_lock";
    const pe_state &s = ready(call);
    const lock_words w = words(call, lock);
    if (held().holds(lock)) fail(call, "this PE holds the lock already");
    if (apply(call, s, CCS_ATOMIC_CSWAP, w.tail, home, ticket(s), 0) != 0) return 1;
    held().take(call, lock);
    return 0;
}

void shmem_clear_lock(long *lock) {
    const char *call = "shmem_clear_lock";
    pe_state &s = ready(call);
    const lock_words w = words(call, lock);
    if (!held().release(lock)) fail(call, "this PE does not hold the lock");
    // What the holder wrote is complete before the next holder runs.
    quiet_all_contexts(call);
    if (__atomic_load_n(w.mine, __ATOMIC_ACQUIRE) == 0) {
        if (apply(call, s, CCS_ATOMIC_CSWAP, w.tail, home, 0, ticket(s)) == ticket(s)) return;  // nobody in line
        // Someone swapped the tail but has not linked itself behind us yet.
        check(call, ccs_wait_until(w.mine, CCS_UINT32, CCS_CMP_NE, 0));
    }
    const uint32_t next = __atomic_exchange_n(w.mine, 0u, __ATOMIC_ACQ_REL) & ~granted;
    if (next == 0 || next > static_cast<uint32_t>(s.npes)) fail(call, "the lock word was overwritten");
    apply(call, s, CCS_ATOMIC_OR, w.mine, static_cast<int>(next) - 1, granted);
}
}
