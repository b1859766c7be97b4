// Registered buffers of one size, taken and given back by index: the
// copies of packets being sent, the shared receive queue's buffers and the
// connection messages. The pool grows in slabs, each one memory region,
// and never shrinks until it is destroyed.
#pragma once

#include "verbs_ops.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ccs::verbs {

class buffer_pool {
public:
    buffer_pool(verbs_ops &ops, size_t buffer_size) : ops_(ops), size_(buffer_size) {}
    ~buffer_pool();
    buffer_pool(const buffer_pool &) = delete;
    buffer_pool &operator=(const buffer_pool &) = delete;

    // `count` more buffers registered with `pd`; false when allocation or
    // registration failed (errno tells), nothing added.
    bool grow(ibv_pd *pd, uint32_t count);
    // A free buffer's index, or -1.
    int32_t take() {
        if (free_.empty()) return -1;
        const int32_t i = free_.back();
        free_.pop_back();
        return i;
    }
    void give(int32_t index) { free_.push_back(index); }
    uint8_t *at(int32_t index) const {
        const slot &s = slots_[static_cast<size_t>(index)];
        return s.bytes;
    }
    uint32_t lkey(int32_t index) const { return slots_[static_cast<size_t>(index)].lkey; }
    size_t buffer_size() const { return size_; }
    uint32_t count() const { return static_cast<uint32_t>(slots_.size()); }
    uint32_t free_count() const { return static_cast<uint32_t>(free_.size()); }
    size_t regions() const { return slabs_.size(); }

private:
    struct slot {
        uint8_t *bytes;
        uint32_t lkey;
    };
    struct slab {
        void *memory = nullptr;
        ibv_mr *mr = nullptr;
    };
    verbs_ops &ops_;
    size_t size_;
    std::vector<slab> slabs_;
    std::vector<slot> slots_;
    std::vector<int32_t> free_;
};

}  // namespace ccs::verbs
