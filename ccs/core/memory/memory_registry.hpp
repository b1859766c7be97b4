// This process's registered memory: public handles (ccs_mem_t) over the
// registration cache, the packed keys other processes use, whether each
// registration is live (generation_table), and the lookups that check
// incoming active-message RMA and answer implicit key requests.
//
// Memory from ccs_mem_alloc is registered outside the cache, one region
// per block: the cache merges what touches, and a block merged with its
// neighbour would no longer be one file a peer can map.
#pragma once

#include "core/memory/generation_table.hpp"
#include "core/memory/key_format.hpp"
#include "core/memory/registration_cache.hpp"
#include "core/memory/shared_allocation.hpp"
#include "core/transport.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ccs {

class memory_registry final : public registration_backend, public local_memory_lender {
public:
    // Every transport registers every region: any of them may carry RMA.
    // `atomics`: the one that carries out network atomics, or null.
    // `secret`: the job's, for the tags of packed keys.
    memory_registry(std::vector<transport *> transports, const transport *atomics, int rank, size_t max_unused_bytes,
                    const key_secret &secret);
    ~memory_registry() override;

    // ccs_mem_register, and with `network_atomics` ccs_mem_register_atomics
    // (CCS_ATOMICS_BY_NETWORK): refused where no transport carries out
    // atomics itself, or where the range overlaps a live registration whose
    // atomics take the other mechanism. `internal`: the core's own (a large
    // message's payload): covering() never answers with it, so no peer's
    // implicit key or request reaches memory through it.
    ccs_status_t register_memory(void *addr, size_t length, ccs_mem_t &out, bool network_atomics = false,
                                 bool internal = false);
    // Whether atomics on registration `handle` are the network adapter's
    // (false too for a handle that has ended).
    bool network_atomics(uint64_t handle) const {
        const auto it = handles_.find(handle);
        return it != handles_.end() && it->second.network_atomics;
    }
    // ccs_mem_deregister: refuses a handle from ccs_mem_alloc, whose pages
    // only ccs_mem_free unmaps.
    ccs_status_t deregister(ccs_mem_t mem);
    // ccs_mem_alloc / ccs_mem_free: shareable memory, registered. A block
    // of a symmetric allocation is placed as `where` asks (`placed`: it
    // lies there) and ended by free_allocation with `symmetric` only: the
    // `call` names the public call for messages.
    ccs_status_t allocate(size_t length, void *&addr, ccs_mem_t &out);
    ccs_status_t allocate_symmetric(size_t length, const placement &where, void *&addr, ccs_mem_t &out, bool &placed);
    ccs_status_t free_allocation(ccs_mem_t mem, bool symmetric = false);
    // Whether free_allocation would end `mem`: its refusal, or CCS_OK.
    ccs_status_t check_free(ccs_mem_t mem, bool symmetric) const;
    ccs_status_t pack_key(ccs_mem_t mem, void *buffer, size_t *length);
    // The same into `out`, resized to the key.
    ccs_status_t pack_key(ccs_mem_t mem, std::vector<uint8_t> &out);

    // The runtime's registration covering [addr, addr + length): a handle
    // id, or 0.
    uint64_t covering(uint64_t addr, size_t length) const;
    // Whether registration `handle` is live and holds [addr, addr +
    // length): CCS_OK, CCS_ERR_INVALID_KEY (ended) or CCS_ERR_OUT_OF_RANGE.
    // The check of an access that arrives with a key's handle.
    ccs_status_t check_access(uint64_t handle, uint64_t addr, uint64_t length) const;
    // This process's word for a registration (a key it unpacked itself).
    const generation_word *own_word(uint32_t slot) const { return generations_.word(slot); }
    generation_word *own_lock(uint32_t slot) const { return generations_.lock(slot); }
    // The accumulate lock of the ccs_mem_alloc block holding [addr, addr +
    // length), or null where that is no block's memory.
    generation_word *block_lock(uint64_t addr, size_t length) const;
    // The key for memory another process asked for by address. Registers
    // the range on demand when `expose_all`; otherwise only registered
    // memory is answered (CCS_ERR_NOT_REGISTERED).
    // `requester` is remembered: deregistering tells it to drop the key.
    ccs_status_t key_for_range(int requester, uint64_t addr, size_t length, bool expose_all, std::vector<uint8_t> &key);
    // Called on deregistration for every process that holds an implicit key
    // to the handle.
    std::function<void(int holder, uint64_t handle)> on_revoke;

    bool expose_all = false;
    registration_cache &cache() { return cache_; }
    const registration_stats &stats() const { return cache_.stats(); }

    // local_memory_lender: a region from the cache (or a ccs_mem_alloc
    // block), held until take_back.
    void *lend(const transport &t, const void *addr, size_t length, void *&hold) override;
    void take_back(void *hold) override;
    void unmapped(const void *addr, size_t length) override { cache_.note_unmapped(addr, length); }

    // registration_backend
    ccs_status_t mem_reg(region &r) override;
    void mem_dereg(region &r) override;
    ccs_status_t check_range(uintptr_t start, uintptr_t end) override;
    // check_range for [addr, addr + length) taken to whole pages, for
    // memory a transport will read that nothing registers.
    ccs_status_t check_mapped(const void *addr, size_t length);

private:
    struct registration {
        uint64_t id = 0;  // also its generation: never reused
        uintptr_t addr = 0;
        size_t length = 0;
        region *r = nullptr;  // null for length 0
        bool in_block = false;  // r is a ccs_mem_alloc block's region, not the cache's
        uint32_t slot = 0;      // its word in the generation table
        uint32_t lock_slot = 0;  // in a block: the block's registration's slot (its lock)
        std::vector<int> implicit_holders;  // ranks we sent an implicit key for it
        bool allocated = false;             // by ccs_mem_alloc: only ccs_mem_free ends it
        bool symmetric = false;             // by ccs_mem_alloc_symmetric: only ccs_mem_free_symmetric
        bool network_atomics = false;       // atomics on it by the network adapter (the key says so)
        bool internal = false;              // the core's own: not found by covering()
    };
    // Refuses [addr, addr + length) for a registration with `network`
    // atomics where a live registration of the other mechanism overlaps it.
    ccs_status_t check_atomics_mechanism(uintptr_t addr, size_t length, bool network) const;
    size_t network_registrations_ = 0;  // live ones: until then no overlap is looked for
    ccs_status_t allocate_at(const char *call, size_t length, const placement &where, void *&addr, ccs_mem_t &out,
                             bool *placed);
    ccs_status_t pack(const registration &reg, std::vector<uint8_t> &out) const;
    // The region for [addr, addr + length) (length > 0): a block's own
    // where the range lies inside one, else the cache's.
    ccs_status_t acquire_region(void *addr, size_t length, registration &reg);
    void release_region(const registration &reg);

    std::vector<transport *> transports_;
    const transport *atomics_;
    int rank_;
    key_secret secret_;
    generation_table generations_;
    bool generations_open_ = false;
    registration_cache cache_;
    // The regions of ccs_mem_alloc blocks, by start address, and the slot
    // whose lock word guards accumulates into each.
    std::map<uintptr_t, std::unique_ptr<region>> blocks_;
    std::map<uintptr_t, uint32_t> block_locks_;
    uint64_t next_id_ = 1;
    std::unordered_map<uint64_t, registration> handles_;
    // Ends a registration: its implicit holders told, its region released.
    void drop(std::unordered_map<uint64_t, registration>::iterator it);
    std::multimap<uintptr_t, uint64_t> by_addr_;  // start -> handle id
};

}  // namespace ccs
