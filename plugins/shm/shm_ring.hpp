// Single-producer/single-consumer byte ring in shared memory, carrying
// variable-size records. No locks and no system calls.
//
// Shared state is only the consumer's `tail` and `watched` words (each on
// its own cache line) and the data. A record is [stamp | payload | pad to
// 8]; the consumer polls the stamp of the next record instead of a shared head counter, so a small
// message costs one cache-line transfer. Before publishing a record the
// producer zeroes the stamp slot right after it, so the consumer can never
// mistake bytes left from an earlier lap for a new stamp. A record that
// would cross the end is preceded by a wrap marker.
//
// A ring that falls idle can be retired so its memory goes back: the
// producer pushes a retire marker; the consumer, reaching it, forgets its
// position and acknowledges by publishing `ring_retired` as its tail; the
// producer, seeing that, may release the memory and start again from an
// empty ring.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ccs::shm {

struct alignas(64) ring_control {
    std::atomic<uint64_t> tail;  // bytes the consumer has released
    char pad[64 - sizeof(std::atomic<uint64_t>)];
    // Nonzero while the consumer polls this ring on every call, so the
    // producer need not ring its doorbell. On a line of its own: the
    // producer reads it on every push, the consumer writes it rarely.
    std::atomic<uint64_t> watched;
    char pad2[64 - sizeof(std::atomic<uint64_t>)];
};
static_assert(sizeof(ring_control) == 128);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// The tail a consumer publishes once it has reached a retire marker.
constexpr uint64_t ring_retired = ~uint64_t{0};

struct ring_piece {
    const void *base;
    size_t length;
};

namespace ring_detail {
constexpr uint64_t valid = 1;
constexpr uint64_t wrap = 2;
constexpr uint64_t retire = 4;
inline uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }
inline std::atomic_ref<uint64_t> stamp_at(uint8_t *data, uint64_t offset) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(data + offset));
}
}  // namespace ring_detail

// Largest record payload a ring of `capacity` bytes accepts: a quarter, so
// a wrap plus a record always fit in an empty ring.
inline size_t ring_max_record(size_t capacity) { return capacity / 4 - 16; }

class ring_producer {
public:
    ring_producer() = default;
    // capacity: a power of two, at least 4 KiB; data: capacity bytes.
    ring_producer(ring_control *control, uint8_t *data, size_t capacity)
        : control_(control), data_(data), capacity_(capacity), mask_(capacity - 1) {}

    // Appends one record made of `count` pieces (total <= ring_max_record).
    // False when there is no room now: nothing was written.
    bool push(const ring_piece *pieces, size_t count, size_t total) {
        using namespace ring_detail;
        const uint64_t record = 8 + align8(total);
        const uint64_t offset = head_ & mask_;
        const uint64_t skip = offset + record > capacity_ ? capacity_ - offset : 0;
        if (!room_for(skip + record + 8)) return false;  // + the next record's zeroed stamp
        const uint64_t start = skip ? 0 : offset;
        uint8_t *out = data_ + start + 8;
        for (size_t i = 0; i < count; ++i) {
            if (pieces[i].length) std::memcpy(out, pieces[i].base, pieces[i].length);
            out += pieces[i].length;
        }
        stamp_at(data_, (start + record) & mask_).store(0, std::memory_order_relaxed);
        stamp_at(data_, start).store(static_cast<uint64_t>(total) << 32 | valid, std::memory_order_release);
        // The marker goes last: the consumer reaches offset 0 only through it.
        if (skip) stamp_at(data_, offset).store(wrap | valid, std::memory_order_release);
        head_ += skip + record;
        return true;
    }

    // Whether the consumer says it polls this ring on every call.
    bool consumer_watching() const { return control_->watched.load(std::memory_order_relaxed) != 0; }
    // Whether the consumer has released every record pushed (a ring it
    // is not behind on).
    bool drained() {
        cached_tail_ = control_->tail.load(std::memory_order_acquire);
        return cached_tail_ == head_;
    }
    // Pushes the retire marker; false when there is no room now. Nothing
    // may be pushed after it until retired() and restart().
    bool retire() {
        using namespace ring_detail;
        if (!room_for(16)) return false;  // the marker and the next zeroed stamp
        const uint64_t offset = head_ & mask_;
        stamp_at(data_, (offset + 8) & mask_).store(0, std::memory_order_relaxed);
        stamp_at(data_, offset).store(ring_detail::retire | valid, std::memory_order_release);
        head_ += 8;
        return true;
    }
    // The consumer has acknowledged the retire marker and will not touch
    // the ring again until a new record is announced to it.
    bool retired() const { return control_->tail.load(std::memory_order_acquire) == ring_retired; }
    // Starts over on a ring whose memory is zero again (released and
    // reserved anew).
    void restart() { head_ = cached_tail_ = 0; }

private:
    // Whether `need` bytes are free, reading the consumer's tail only when
    // the last one seen says they are not.
    bool room_for(uint64_t need) {
        if (capacity_ - (head_ - cached_tail_) >= need) return true;
        cached_tail_ = control_->tail.load(std::memory_order_acquire);
        return capacity_ - (head_ - cached_tail_) >= need;
    }

    ring_control *control_ = nullptr;
    uint8_t *data_ = nullptr;
    uint64_t capacity_ = 0;
    uint64_t mask_ = 0;
    uint64_t head_ = 0;         // producer-private write position
    uint64_t cached_tail_ = 0;  // last tail seen
};

class ring_consumer {
public:
    ring_consumer() = default;
    ring_consumer(ring_control *control, uint8_t *data, size_t capacity)
        : control_(control), data_(data), capacity_(capacity), mask_(capacity - 1) {}

    // Calls on_record(const uint8_t *payload, size_t length) for up to `max`
    // records, in order. The payload is valid only during the call. Returns
    // the number of records.
    template <typename OnRecord>
    int poll(OnRecord &&on_record, int max) {
        using namespace ring_detail;
        if (parked_) return 0;
        int n = 0;
        while (n < max) {
            const uint64_t offset = pos_ & mask_;
            const uint64_t stamp = stamp_at(data_, offset).load(std::memory_order_acquire);
            if (!(stamp & valid)) break;
            if (stamp & wrap) {
                pos_ += capacity_ - offset;
                continue;
            }
            if (stamp & retire) {
                pos_ = released_ = 0;
                parked_ = awaiting_acknowledgement_ = true;
                return n;
            }
            const uint64_t length = stamp >> 32;
            on_record(data_ + offset + 8, static_cast<size_t>(length));
            pos_ += 8 + align8(length);
            ++n;
        }
        // Release space in batches (fewer writes to the line the producer
        // reads), and always when idle so a blocked producer moves on.
        if (pos_ != released_ && (n == 0 || pos_ - released_ >= capacity_ / 4)) {
            control_->tail.store(pos_, std::memory_order_release);
            released_ = pos_;
        }
        return n;
    }

    // A poll reached a retire marker: from then on polls read nothing (the
    // memory may be gone) until unpark(), which its owner calls once the
    // producer announces a new record.
    bool must_acknowledge() const { return awaiting_acknowledgement_; }
    // Tells the producer; from then on it may release the memory.
    void acknowledge_retire() {
        control_->tail.store(ring_retired, std::memory_order_release);
        awaiting_acknowledgement_ = false;
    }
    // Reads again from the start, once the producer has started over. A
    // bell can be older than that (rung for the marker after this consumer
    // had read it): while the tail still says `ring_retired` the memory is
    // not released yet and still holds the old records, which must not be
    // delivered twice. False then: a new record's bell comes later.
    bool unpark() {
        if (parked_ && control_->tail.load(std::memory_order_acquire) == ring_retired) return false;
        parked_ = false;
        return true;
    }
    bool parked() const { return parked_; }
    // Tells the producer whether this ring is polled on every call. Not on
    // a parked ring: its memory may be gone.
    void say_watched(bool on) { control_->watched.store(on ? 1 : 0, std::memory_order_relaxed); }

    // True when no record is waiting (for tests and idle checks).
    bool empty() const {
        return !(ring_detail::stamp_at(data_, pos_ & mask_).load(std::memory_order_acquire) & ring_detail::valid);
    }

private:
    ring_control *control_ = nullptr;
    uint8_t *data_ = nullptr;
    uint64_t capacity_ = 0;
    uint64_t mask_ = 0;
    uint64_t pos_ = 0;       // consumer-private read position
    uint64_t released_ = 0;  // last tail published
    bool parked_ = false;
    bool awaiting_acknowledgement_ = false;
};

}  // namespace ccs::shm
