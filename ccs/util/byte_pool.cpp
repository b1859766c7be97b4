#include "util/byte_pool.hpp"

#include "util/asan.hpp"

#include <bit>
#include <cstring>
#include <new>

// Under AddressSanitizer the pool poisons what it keeps and the bytes of a
// buffer past its size, so a use after give_back, or past the size asked
// for, is still reported as it would be with malloc. (ASan's free takes
// poisoned memory.)

namespace ccs {

byte_buffer byte_pool::take(size_t size) {
    byte_buffer b;
    if (size == 0) return b;
    b.size_ = size;
    if (size < min_pooled) {
        b.bytes_ = std::make_unique_for_overwrite<uint8_t[]>(size);
        b.capacity_ = size;
        return b;
    }
    if (size > max_size) throw std::bad_alloc();
    const int cls = std::bit_width(size - 1);  // the smallest 2^cls >= size
    b.capacity_ = size_t{1} << cls;
    auto &list = free_[static_cast<size_t>(cls)];
    if (!list.empty()) {
        b.bytes_ = std::move(list.back());
        list.pop_back();
        cached_ -= b.capacity_;
        ++stats_.reused;
        CCS_UNPOISON(b.data(), size);
        return b;
    }
    b.bytes_ = std::make_unique_for_overwrite<uint8_t[]>(b.capacity_);
    ++stats_.allocated;
    CCS_POISON(b.data() + size, b.capacity_ - size);
    return b;
}

byte_buffer byte_pool::copy_of(const uint8_t *bytes, size_t size) {
    byte_buffer b = take(size);
    if (size) std::memcpy(b.data(), bytes, size);
    return b;
}

void byte_pool::give_back(byte_buffer &&b) noexcept {
    std::unique_ptr<uint8_t[]> bytes = std::move(b.bytes_);
    const size_t capacity = b.capacity_;
    b.size_ = b.capacity_ = 0;
    if (!bytes || capacity < min_pooled || !std::has_single_bit(capacity) || capacity > max_cached_) return;
    const int cls = std::countr_zero(capacity);
    // Full: the buffer just used is likelier to be wanted again than those
    // of other sizes kept from earlier (a program's message sizes change
    // by phase), so they make room, largest first. Full of this size
    // already: this one is freed.
    for (int other = classes - 1; capacity > max_cached_ - cached_ && other >= 0; --other) {
        auto &list = free_[static_cast<size_t>(other)];
        while (other != cls && !list.empty() && capacity > max_cached_ - cached_) {
            list.pop_back();
            cached_ -= size_t{1} << other;
        }
    }
    if (capacity > max_cached_ - cached_) return;  // freed here
    try {
        free_[static_cast<size_t>(cls)].push_back(std::move(bytes));
        cached_ += capacity;
        CCS_POISON(free_[static_cast<size_t>(cls)].back().get(), capacity);
    } catch (const std::bad_alloc &) {
        // The list could not grow: `bytes` still owns the buffer and frees it.
    }
}

}  // namespace ccs
