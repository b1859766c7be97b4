// Credit-based flow control over the shared receive queue: a sender never
// sends more packets to a peer than the peer has receive buffers posted for
// it. Every connection grants the sender a number of buffers (the receiver
// posts that many more to its shared queue). The receiver counts the
// buffers it frees for each sender, and tells the sender the running total:
// in the immediate data of its own packets (the low 32 bits), or by writing
// the 64-bit total into the sender's credit word when it has nothing to
// send. Totals only grow, so a late or repeated report is harmless.
#pragma once

#include <cstdint>

namespace ccs::verbs {

// The 64-bit total whose low 32 bits are `low`, nearest at or above `known`
// (a total that only grows, of which `known` was seen last).
inline uint64_t widen(uint64_t known, uint32_t low) { return known + static_cast<uint32_t>(low - static_cast<uint32_t>(known)); }

// A sender's view of one peer's buffers.
class send_credits {
public:
    // The connection came up: `granted` buffers to start with.
    void start(uint64_t granted) {
        granted_ = granted;
        freed_ = 0;
        sent_ = 0;
    }
    uint64_t available() const { return granted_ + freed_ - sent_; }
    // One packet's buffer; false (nothing taken) when none is left.
    bool take() {
        if (available() == 0) return false;
        ++sent_;
        return true;
    }
    // The receiver's total freed, from its credit word.
    void freed_total(uint64_t total) {
        if (total > freed_ && total <= sent_) freed_ = total;
    }
    // The low 32 bits of that total, from a packet's immediate data: the
    // full total is the nearest one at or above what is known.
    void freed_low_bits(uint32_t low) { freed_total(widen(freed_, low)); }
    uint64_t sent() const { return sent_; }

private:
    uint64_t granted_ = 0;
    uint64_t freed_ = 0;  // a total beyond `sent_` is a lie, ignored
    uint64_t sent_ = 0;
};

// A receiver's account of the buffers it frees for one sender.
class receive_credits {
public:
    void start() {
        freed_ = 0;
        told_ = 0;
    }
    // A packet from the sender was delivered and its buffer posted again.
    void freed_one() { ++freed_; }
    uint64_t freed() const { return freed_; }
    // What a packet to the sender carries; the sender now knows it.
    uint32_t carry() {
        told_ = freed_;
        return static_cast<uint32_t>(freed_);
    }
    // Freed buffers the sender has not heard of.
    uint64_t untold() const { return freed_ - told_; }
    // Written to the sender's credit word.
    void told(uint64_t total) {
        if (total > told_) told_ = total;
    }

private:
    uint64_t freed_ = 0;
    uint64_t told_ = 0;
};

}  // namespace ccs::verbs
