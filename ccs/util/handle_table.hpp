// Objects behind public handles: a slot vector with a generation per slot.
// An id is (generation << 32 | slot + 1), never 0, so a stale or forged id
// finds nothing instead of another object, and a lookup is an index and a
// compare (the RMA fast path looks up a key per operation).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ccs {

template <typename T>
class handle_table {
public:
    uint64_t insert(T value) {
        uint32_t slot;
        if (!free_.empty()) {
            slot = free_.back();
            free_.pop_back();
        } else {
            slot = static_cast<uint32_t>(slots_.size());
            slots_.emplace_back();
        }
        entry &e = slots_[slot];
        e.value = std::move(value);
        return (static_cast<uint64_t>(e.generation) << 32) | (slot + 1u);
    }

    T *find(uint64_t id) {
        const uint64_t slot = (id & 0xffffffffu) - 1;  // id 0 wraps to a huge slot
        if (slot >= slots_.size()) return nullptr;
        entry &e = slots_[slot];
        return e.value && e.generation == (id >> 32) ? &*e.value : nullptr;
    }

    const T *find(uint64_t id) const { return const_cast<handle_table *>(this)->find(id); }

    bool erase(uint64_t id) {
        if (!find(id)) return false;
        entry &e = slots_[(id & 0xffffffffu) - 1];
        e.value.reset();
        ++e.generation;  // the old id now finds nothing
        free_.push_back(static_cast<uint32_t>((id & 0xffffffffu) - 1));
        return true;
    }

    template <typename Fn>
    void for_each(Fn fn) {
        for (size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i].value) fn((static_cast<uint64_t>(slots_[i].generation) << 32) | (i + 1), *slots_[i].value);
    }

private:
    struct entry {
        std::optional<T> value;
        uint32_t generation = 1;
    };
    std::vector<entry> slots_;
    std::vector<uint32_t> free_;
};

}  // namespace ccs
