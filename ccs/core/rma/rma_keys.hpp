// The remote keys this process holds: those the runtime unpacked
// (ccs_rkey_unpack) and implicit ones, asked of their owner once per
// registration and dropped when the owner revokes them. Each knows the
// owner's range, the route transport's part of the key, where that
// transport maps the owner's memory here, the mapping, and where the
// owner says whether the registration is still live.
#pragma once

#include "core/memory/memory_registry.hpp"
#include "core/transport.hpp"
#include "util/handle_table.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ccs {

struct remote_key {
    int owner = -1;
    uint64_t base = 0, length = 0;
    void *plugin_key = nullptr;
    transport *t = nullptr;
    bool implicit = false;
    uint64_t handle = 0;  // the owner's registration, and its generation
    // The region as mapped here (plugin rkey_ptr), or null. Explicit keys
    // of live peers only: cleared when the owner fails, so the inline path
    // needs no failure check of its own.
    uint8_t *mapped = nullptr;
    // The owner's word for the registration (generation_table), where this
    // process can read it: owners on this node. Null for owners elsewhere,
    // whose accesses the owner or its network adapter checks. A key that
    // is mapped, or reaches the owner by a plugin's native RMA on this
    // node, always has one.
    const generation_word *live = nullptr;
    // Memory of a ccs_mem_alloc block mapped here: the block's accumulate
    // lock (block_lock.hpp), or null.
    generation_word *lock = nullptr;
    // The registration takes network atomics (key_contents): every atomic
    // on it goes through atomic_t's atomic entry point with atomic_key,
    // both null where no transport here carries atomics out itself.
    bool network_atomics = false;
    transport *atomic_t = nullptr;
    void *atomic_key = nullptr;

    // The owner deregistered or freed what the key names.
    bool ended() const { return live && live->load(std::memory_order_relaxed) != handle; }
};


// The refusals of a key handle, shared by the calls that take one.
// `call`: "ccs_rkey_ptr: " and the like, or "" where the caller adds it.
[[gnu::cold]] ccs_status_t unknown_key(const char *call, uint64_t id);
[[gnu::cold]] ccs_status_t ended_key(const char *call, const remote_key &k);
std::string ended_message(const remote_key &k);
[[gnu::cold]] ccs_status_t outside_key(const char *call, uint64_t address, uint64_t length, uint64_t base,
                                       uint64_t key_length);

class rma_keys {
public:
    // route[p]: the transport reaching rank p (null for self);
    // same_node[p]: whether rank p runs on this node; `atomics`: the
    // transport that carries out network atomics, or null. Keys are read
    // with the job's `secret`; `memory` answers for this process's own keys.
    rma_keys(const std::vector<transport *> &route, const std::vector<bool> &same_node, transport *atomics, int rank,
             const key_secret &secret, const memory_registry &memory)
        : route_(route), same_node_(same_node), atomics_(atomics), rank_(rank), secret_(secret), memory_(memory) {}
    ~rma_keys();  // releases every plugin key still held
    rma_keys(const rma_keys &) = delete;
    rma_keys &operator=(const rma_keys &) = delete;

    // ccs_rkey_unpack. A failed owner's memory is not mapped.
    ccs_status_t unpack(int owner, const void *buffer, size_t length, bool owner_failed, ccs_rkey_t &out);
    ccs_status_t release(ccs_rkey_t handle);
    // ccs_rkey_ptr: where [remote, remote + length) is mapped here, or
    // CCS_ERR_UNSUPPORTED saying why it is not. `call` prefixes errors.
    ccs_status_t mapped_address(const char *call, ccs_rkey_t handle, uint64_t remote, size_t length,
                                void *&out) const;

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
    // Drops `owner`'s implicit keys for which doomed(key) holds; how many.
    template <typename Doomed>
    uint64_t drop_implicit(int owner, Doomed doomed);
    // The key's fields checked (tag, owner) into `k`: the route's part
    // unpacked, where the owner publishes liveness, and the mapping.
    // `call` prefixes errors.
    ccs_status_t read(const char *call, int owner, const void *buffer, size_t length, bool owner_failed,
                      remote_key &k);

    const std::vector<transport *> &route_;
    std::vector<bool> same_node_;
    transport *atomics_;
    int rank_;
    key_secret secret_;
    const memory_registry &memory_;
    generation_views views_;
    std::unordered_set<int> failed_;
    handle_table<remote_key> keys_;
    std::unordered_map<int, std::vector<uint64_t>> implicit_;  // owner -> key ids
};

}  // namespace ccs
