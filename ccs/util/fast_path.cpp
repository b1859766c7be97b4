#include "util/fast_path.hpp"

#include "util/membarrier.hpp"
#include "util/poll_gap.hpp"

#include <mutex>
#include <sched.h>
#include <vector>

namespace ccs::fast_path {

struct alignas(64) slot {
    std::atomic<uint32_t> inside{0};
    bool taken = true;  // by a live thread; under g_registry
    thread_counts counts;
};

namespace {

std::atomic<bool> g_writer{false};
// Writers pass a membarrier; sections mark themselves with plain stores.
bool g_asymmetric = false;
std::mutex g_registry;
// Never freed, nor the list: a slot outlives its thread for the counts, and
// the list outlives static destruction, so the slots stay reachable.
std::vector<slot *> &g_slots = *new std::vector<slot *>;
thread_local slot *t_slot __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local uint32_t t_exclusive __attribute__((tls_model("initial-exec"))) = 0;

// Gives the slot back when its thread ends, for the next new thread.
struct slot_owner {
    slot *s = nullptr;
    ~slot_owner() {
        if (!s) return;
        const std::lock_guard<std::mutex> hold(g_registry);
        s->taken = false;
        t_slot = nullptr;
    }
};

slot *own_slot() {
    static thread_local slot_owner owner;
    const std::lock_guard<std::mutex> hold(g_registry);
    slot *s = nullptr;
    for (slot *free : g_slots)
        if (!free->taken) {
            s = free;
            s->taken = true;
            break;
        }
    if (!s) {
        s = new slot;
        g_slots.push_back(s);
    }
    owner.s = s;
    t_slot = s;
    return s;
}

}  // namespace

void set_enabled(bool on) {
    if (on) g_asymmetric = membarrier::available();
    g_enabled.store(on, std::memory_order_release);
}

section::section() noexcept {
    if (!enabled()) return;
    slot *s = t_slot;
    if (!s) [[unlikely]] {
        try {
            s = own_slot();
        } catch (...) {
            return;  // no memory for a slot: the locked path
        }
    }
    // Mark, then look; a writer marks, then looks at every slot, so at
    // least one of two arriving together sees the other. Where the writer
    // makes every thread pass a barrier between its mark and its look, a
    // plain store is enough here.
    if (g_asymmetric) {
        s->inside.store(1, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
        s->inside.store(1, std::memory_order_seq_cst);
    }
    if (g_writer.load(std::memory_order_seq_cst)) [[unlikely]] {
        s->inside.store(0, std::memory_order_release);
        return;
    }
    slot_ = s;
}

section::~section() {
    if (slot_) slot_->inside.store(0, std::memory_order_release);
}

thread_counts &section::counts() const { return slot_->counts; }

bool section::writer_waiting() { return g_writer.load(std::memory_order_relaxed); }

exclusive::exclusive() noexcept {
    if (!enabled()) return;
    counted_ = true;
    if (t_exclusive++ > 0) return;
    held_ = true;
    g_writer.store(true, std::memory_order_seq_cst);
    if (g_asymmetric) membarrier::all_threads();
    const std::lock_guard<std::mutex> hold(g_registry);
    for (slot *s : g_slots)
        for (int spins = 0; s->inside.load(std::memory_order_seq_cst) != 0; ++spins) {
            if (spins < 64) cpu_pause();
            else sched_yield();  // the reader may have lost its CPU
        }
}

exclusive::~exclusive() {
    if (counted_) --t_exclusive;
    if (held_) g_writer.store(false, std::memory_order_release);
}

totals sum() {
    totals t;
    const std::lock_guard<std::mutex> hold(g_registry);
    for (const slot *s : g_slots) {
        t.am_sent += s->counts.am_sent.load(std::memory_order_relaxed);
        t.puts += s->counts.puts.load(std::memory_order_relaxed);
        t.gets += s->counts.gets.load(std::memory_order_relaxed);
        t.atomics += s->counts.atomics.load(std::memory_order_relaxed);
        t.atomics_by_network += s->counts.atomics_by_network.load(std::memory_order_relaxed);
        t.accumulates += s->counts.accumulates.load(std::memory_order_relaxed);
        t.bytes += s->counts.bytes.load(std::memory_order_relaxed);
    }
    return t;
}

}  // namespace ccs::fast_path
