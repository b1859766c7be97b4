// What a ccs_datadesc_t stands for. The core's AM engine reads the compiled
// program through it (and keeps the program alive by its shared_ptr, so a
// datadesc freed while a send is in flight is safe).
#pragma once

#include "node.hpp"
#include "program.hpp"

#include <ccs/datadesc.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

struct ccs_datadesc_s {
    ccs::dd::node_ptr root;
    std::shared_ptr<const ccs::dd::program> compiled;  // set by commit, through set_compiled
    // Copies of the program's size and element_run, so that pack and unpack
    // read them from the handle they have just checked, not through
    // `compiled`: one dependent load less on every small call. The program
    // never changes after commit, so they stay true.
    int64_t size = 0;
    std::optional<ccs::dd::run> element_run;

    void set_compiled(std::shared_ptr<const ccs::dd::program> p) {
        if (p) {
            size = p->size;
            element_run = p->element_run;
        }
        compiled = std::move(p);
    }
};

namespace ccs::dd {

// Handles are not pointers to the object: a handle's value is (generation
// << 32 | slot + 1) in a table of live datadescs, so a NULL, freed or forged
// handle finds nothing, and a slot reused by a later datadesc does not
// answer to an old handle. The object is never reached through what the
// caller passes. CCS_BYTE, predefined, is the address of ccs_datadesc_byte_
// and is compared, not dereferenced. Chunks of slots are allocated once and
// never move, so a lookup needs no lock; making and freeing take one.
struct handle_slot {
    std::atomic<uint64_t> handle{0};  // the live handle's value, 0 when free
    ccs_datadesc_s *object = nullptr;
    uint32_t generation = 0;  // of the last handle; written under the table's lock
};
constexpr uint64_t handle_chunk_slots = 1024;
constexpr uint64_t handle_chunks = 4096;  // up to 4M datadescs alive at once
extern std::atomic<handle_slot *> handle_table[handle_chunks];

// A handle for `object` (taken over), or null when the table is full.
ccs_datadesc_t handle_insert(std::unique_ptr<ccs_datadesc_s> object);
// Ends a handle: its object, or null when the handle was not live.
std::unique_ptr<ccs_datadesc_s> handle_erase(ccs_datadesc_t h);

// The object behind a handle, or null.
inline ccs_datadesc_s *resolve(ccs_datadesc_t h) {
    if (h == &ccs_datadesc_byte_) return &ccs_datadesc_byte_;
    const auto value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
    const uint64_t slot = (value & 0xffffffffu) - 1;  // NULL wraps to a huge slot
    if (slot >= handle_chunk_slots * handle_chunks) return nullptr;
    handle_slot *chunk = handle_table[slot / handle_chunk_slots].load(std::memory_order_acquire);
    if (!chunk) return nullptr;
    handle_slot &s = chunk[slot % handle_chunk_slots];
    return s.handle.load(std::memory_order_acquire) == value ? s.object : nullptr;
}

// The error check_handle returns, naming `call`.
[[gnu::cold]] ccs_status_t bad_handle(ccs_datadesc_t dd, const char *call, bool need_commit);

// The object when `dd` is live, and committed if asked; else null.
inline ccs_datadesc_s *usable_handle(ccs_datadesc_t dd, bool need_commit) {
    ccs_datadesc_s *d = resolve(dd);
    return d && (!need_commit || d->compiled) ? d : nullptr;
}

// The checks every call taking a datadesc makes (usable_handle), naming
// `call` in the error; `out` gets the object. Inline, the messages out of
// line: every pack and unpack makes them.
inline ccs_status_t check_handle(ccs_datadesc_t dd, const char *call, bool need_commit, ccs_datadesc_s *&out) {
    if ((out = usable_handle(dd, need_commit))) return CCS_OK;
    return bad_handle(dd, call, need_commit);
}
}  // namespace ccs::dd
