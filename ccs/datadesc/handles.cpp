// The table of live datadescs behind ccs_datadesc_t (handle.hpp).
#include "handle.hpp"

#include <mutex>
#include <vector>

namespace ccs::dd {

std::atomic<handle_slot *> handle_table[handle_chunks];

namespace {

std::mutex table_lock;
std::vector<uint64_t> free_slots;  // under table_lock
uint64_t next_unused = 0;          // under table_lock

}  // namespace

ccs_datadesc_t handle_insert(std::unique_ptr<ccs_datadesc_s> object) {
    const std::lock_guard<std::mutex> hold(table_lock);
    uint64_t slot = 0;
    if (!free_slots.empty()) {
        slot = free_slots.back();
        free_slots.pop_back();
    } else if (next_unused < handle_chunk_slots * handle_chunks) {
        slot = next_unused++;
        std::atomic<handle_slot *> &chunk = handle_table[slot / handle_chunk_slots];
        if (!chunk.load(std::memory_order_relaxed)) chunk.store(new handle_slot[handle_chunk_slots], std::memory_order_release);
    } else {
        return nullptr;
    }
    handle_slot &s = handle_table[slot / handle_chunk_slots].load(std::memory_order_relaxed)[slot % handle_chunk_slots];
    uint64_t value = 0;
    do {  // never CCS_BYTE's address, however unlikely
        ++s.generation;
        if (s.generation == 0) s.generation = 1;
        value = (static_cast<uint64_t>(s.generation) << 32) | (slot + 1);
    } while (value == reinterpret_cast<uintptr_t>(&ccs_datadesc_byte_));
    s.object = object.release();
    s.handle.store(value, std::memory_order_release);
    return reinterpret_cast<ccs_datadesc_t>(static_cast<uintptr_t>(value));
}

std::unique_ptr<ccs_datadesc_s> handle_erase(ccs_datadesc_t h) {
    const std::lock_guard<std::mutex> hold(table_lock);
    if (!resolve(h) || h == &ccs_datadesc_byte_) return nullptr;
    const auto value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
    const uint64_t slot = (value & 0xffffffffu) - 1;
    handle_slot &s = handle_table[slot / handle_chunk_slots].load(std::memory_order_relaxed)[slot % handle_chunk_slots];
    s.handle.store(0, std::memory_order_release);
    std::unique_ptr<ccs_datadesc_s> object(s.object);
    s.object = nullptr;
    free_slots.push_back(slot);
    return object;
}

}  // namespace ccs::dd
