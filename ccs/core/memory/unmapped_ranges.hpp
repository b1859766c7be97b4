// Address ranges about to be unmapped, as a transport's memory hooks report
// them: from any thread, at any moment (inside munmap, inside malloc), so
// adding neither allocates nor waits for more than a few instructions. The
// registration cache takes them under the core's lock before it looks a
// request up. When more arrive than fit, the last entry grows to cover
// them: dropping more cached regions than needed is safe, keeping a stale
// one is not.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace ccs {

class unmapped_ranges {
public:
    void add(uintptr_t start, uintptr_t end);
    bool pending() const { return pending_.load(std::memory_order_acquire); }
    // Hands every range to f(start, end) and forgets them.
    template <typename F>
    void take(F f) {
        std::pair<uintptr_t, uintptr_t> copy[capacity];
        size_t n = 0;
        lock();
        for (; n < count_; ++n) copy[n] = ranges_[n];
        count_ = 0;
        pending_.store(false, std::memory_order_relaxed);
        unlock();
        for (size_t i = 0; i < n; ++i) f(copy[i].first, copy[i].second);
    }

private:
    static constexpr size_t capacity = 64;
    void lock();
    void unlock() { lock_.clear(std::memory_order_release); }

    std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
    std::atomic<bool> pending_{false};
    size_t count_ = 0;
    std::pair<uintptr_t, uintptr_t> ranges_[capacity];
};

}  // namespace ccs
