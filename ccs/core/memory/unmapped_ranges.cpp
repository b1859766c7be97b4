// The spin lock of the unmapped ranges: held for a copy of a few words.
#include "core/memory/unmapped_ranges.hpp"

#include "util/poll_gap.hpp"

#include <algorithm>

namespace ccs {

void unmapped_ranges::lock() {
    while (lock_.test_and_set(std::memory_order_acquire)) cpu_pause();
}

void unmapped_ranges::add(uintptr_t start, uintptr_t end) {
    lock();
    if (count_ < capacity) {
        ranges_[count_++] = {start, end};
    } else {
        auto &last = ranges_[capacity - 1];
        last = {std::min(last.first, start), std::max(last.second, end)};
    }
    pending_.store(true, std::memory_order_release);
    unlock();
}

}  // namespace ccs
