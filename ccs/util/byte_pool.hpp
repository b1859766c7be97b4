// Buffers for message bytes that the AM engine holds for a while (queued
// copies, messages being reassembled, messages that arrived early), kept
// for reuse instead of going back to malloc.
//
// Why: glibc hands large freed blocks, and a freed heap top, back to the
// kernel, so a burst of queued 64 KiB messages faulted in every page again
// on the next burst; page faults are dear in a VM. A library shared by
// several runtimes must not change malloc's settings for the whole
// process, so it keeps its own.
//
// Buffers of `min_pooled` bytes or more come in power-of-two capacities and
// return to a free list per capacity, up to a limit on the bytes kept
// (those of other capacities make room); smaller ones come from and go back
// to malloc (cheap there, and rounding them up would waste more than it
// saves). A buffer never given back simply frees itself: giving back is an
// optimisation, not a duty, so buffers may outlive the pool. Bytes are not
// initialised. Not thread-safe, like the engine that owns it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ccs {

class byte_buffer {
public:
    byte_buffer() = default;
    uint8_t *data() { return bytes_.get(); }
    const uint8_t *data() const { return bytes_.get(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

private:
    friend class byte_pool;
    std::unique_ptr<uint8_t[]> bytes_;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

class byte_pool {
public:
    static constexpr size_t min_pooled = 4096;
    static constexpr size_t max_size = size_t{1} << 62;

    explicit byte_pool(size_t max_cached) : max_cached_(max_cached) {}

    // `size` bytes, not initialised. Throws std::bad_alloc (also above
    // max_size).
    byte_buffer take(size_t size);
    // take(size), filled from `bytes`.
    byte_buffer copy_of(const uint8_t *bytes, size_t size);
    // Keeps `b` for a later take if it is a pooled capacity and the pool
    // has room; frees it otherwise. `b` is empty afterwards.
    void give_back(byte_buffer &&b) noexcept;

    struct counters {
        uint64_t reused = 0;     // takes served from a free list
        uint64_t allocated = 0;  // takes of a pooled capacity that had to allocate
    };
    const counters &stats() const { return stats_; }
    size_t cached_bytes() const { return cached_; }

private:
    static constexpr int classes = 64;
    std::array<std::vector<std::unique_ptr<uint8_t[]>>, classes> free_;  // by log2 of capacity
    size_t cached_ = 0;
    size_t max_cached_;
    counters stats_;
};

}  // namespace ccs
