// The remote keys this process holds: those the runtime unpacked
// (ccs_rkey_unpack) and implicit ones, asked of their owner once per
// registration and dropped when the owner revokes them. Each knows the
// owner's range, the route transport's part of the key and, where that
// transport maps the owner's memory here, the mapping.
#pragma once

#include "core/memory/memory_registry.hpp"
#include "core/transport.hpp"
#include "util/handle_table.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ccs {

struct remote_key {
    int owner = -1;
    uint64_t base = 0, length = 0;
    void *plugin_key = nullptr;
    transport *t = nullptr;
    bool implicit = false;
    uint64_t handle = 0;  // the owner's registration
    // The region as mapped here (plugin rkey_ptr), or null. Explicit keys
    // of live peers only: cleared when the owner fails, so the inline path
    // needs no failure check of its own.
    uint8_t *mapped = nullptr;
};

// Checks a key's owner and unpacks the part for `route` (if it has one)
// into plugin_key; null plugin_key: active messages carry the accesses.
ccs_status_t key_from_contents(const key_contents &c, int owner, int rank, transport *route, void *&plugin_key);

// The refusals of a key handle, shared by the calls that take one.
// `call`: "ccs_rkey_ptr: " and the like, or "" where the caller adds it.
[[gnu::cold]] ccs_status_t unknown_key(const char *call, uint64_t id);
[[gnu::cold]] ccs_status_t outside_key(const char *call, uint64_t address, uint64_t length, uint64_t base,
                                       uint64_t key_length);

class rma_keys {
public:
    // route[p]: the transport reaching rank p (null for self).
    rma_keys(const std::vector<transport *> &route, int rank) : route_(route), rank_(rank) {}
    ~rma_keys();  // releases every plugin key still held
    rma_keys(const rma_keys &) = delete;
    rma_keys &operator=(const rma_keys &) = delete;

    // ccs_rkey_unpack. A failed owner's memory is not mapped.
    ccs_status_t unpack(int owner, const void *buffer, size_t length, bool owner_failed, ccs_rkey_t &out);
    ccs_status_t release(ccs_rkey_t handle);
    // ccs_rkey_ptr: where [remote, remote + length) is mapped here, or null.
    ccs_status_t mapped_address(ccs_rkey_t handle, uint64_t remote, size_t length, void *&out) const;

    // Inline: every put and get looks its key up.
    const remote_key *find(uint64_t id) const { return keys_.find(id); }

    // An implicit key of `owner` holding [addr, addr + length): its id, or 0.
    uint64_t find_implicit(int owner, uint64_t addr, size_t length) const;
    // Keeps the key `owner` sent for [lo, hi) (a key reply) as an implicit
    // key, its id in `id`; INVALID_KEY or OUT_OF_RANGE keep nothing.
    ccs_status_t adopt_implicit(int owner, const void *packed, size_t length, uint64_t lo, uint64_t hi, uint64_t &id);
    // Drops `owner`'s implicit keys of its registration `handle`; how many.
    uint64_t revoke(int owner, uint64_t handle);
    // The owner failed: its memory is no longer ours to touch.
    void peer_failed(int peer);

private:
    const std::vector<transport *> &route_;
    int rank_;
    handle_table<remote_key> keys_;
    std::unordered_map<int, std::vector<uint64_t>> implicit_;  // owner -> key ids
};

}  // namespace ccs
