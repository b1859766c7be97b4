// At thread level multiple, the calls a thread makes most (an AM send of
// one packet, a put, get, atomic or accumulate on memory mapped here) run
// beside the API lock, so that threads on their own contexts do not take
// turns.
//
// What those calls read (the context table, remote keys, symmetric blocks,
// a route's settings) is changed only under the API lock, by cold paths.
// Each thread has a slot on its own cache line: a fast call marks itself
// inside its slot, then looks whether a writer is at work, and if so steps
// back to the locked path. A writer says it is at work, then waits until no
// slot is inside. Fast calls thus write nothing another thread reads on its
// own fast path; the cold paths pay.
//
// Off (below level multiple) a section is never entered and exclusive does
// nothing: the API lock, where on, covers everything.
#pragma once

#include <atomic>
#include <cstdint>

namespace ccs::fast_path {

// What fast calls did, counted by their thread (for the statistics);
// written only by the slot's thread, read by anyone.
struct thread_counts {
    std::atomic<uint64_t> am_sent{0};
    std::atomic<uint64_t> puts{0};
    std::atomic<uint64_t> gets{0};
    std::atomic<uint64_t> atomics{0};
    std::atomic<uint64_t> atomics_by_network{0};  // of those, by a transport's own atomics
    std::atomic<uint64_t> accumulates{0};
    std::atomic<uint64_t> bytes{0};
};
// `n` more: a load and a store, no locked instruction (one writer).
inline void bump(std::atomic<uint64_t> &c, uint64_t n = 1) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// Turned on at level multiple, before a second thread may call in, and
// with the API lock held; off once one thread is left.
void set_enabled(bool on);
inline std::atomic<bool> g_enabled{false};
inline bool enabled() { return g_enabled.load(std::memory_order_acquire); }

struct slot;

// A fast call's stay. Not entered (entered() false) when fast paths are
// off or a writer is at work: the caller then takes the locked path.
class section {
public:
    section() noexcept;
    ~section();
    section(const section &) = delete;
    section &operator=(const section &) = delete;
    bool entered() const { return slot_ != nullptr; }
    thread_counts &counts() const;
    // A writer waits for this section to end: a fast call waiting on a
    // peer's lock gives up and takes the locked path instead.
    static bool writer_waiting();

private:
    slot *slot_ = nullptr;
};

// For a cold path that changes what fast calls read, with the API lock
// held: no fast call runs for the life of the object. Nests.
class exclusive {
public:
    exclusive() noexcept;
    ~exclusive();
    exclusive(const exclusive &) = delete;
    exclusive &operator=(const exclusive &) = delete;

private:
    bool counted_ = false;  // in this thread's nesting depth
    bool held_ = false;     // the outermost: says a writer is at work
};

// Every thread's counts, summed (threads that ended included).
struct totals {
    uint64_t am_sent = 0, puts = 0, gets = 0, atomics = 0, atomics_by_network = 0, accumulates = 0, bytes = 0;
};
totals sum();

}  // namespace ccs::fast_path
