// This process's registered memory: public handles (ccs_mem_t) over the
// registration cache, the packed keys other processes use, and the lookup
// by address that checks incoming active-message RMA and answers implicit
// key requests.
#pragma once

#include "core/memory/registration_cache.hpp"
#include "core/transport.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

namespace ccs {

class memory_registry final : public registration_backend {
public:
    // Every transport registers every region: any of them may carry RMA.
    memory_registry(std::vector<transport *> transports, int rank, size_t max_unused_bytes);
    ~memory_registry() override;

    ccs_status_t register_memory(void *addr, size_t length, ccs_mem_t &out);
    // ccs_mem_deregister: refuses a handle from ccs_mem_alloc, whose pages
    // only ccs_mem_free unmaps.
    ccs_status_t deregister(ccs_mem_t mem);
    // ccs_mem_alloc / ccs_mem_free: shareable memory, registered.
    ccs_status_t allocate(size_t length, void *&addr, ccs_mem_t &out);
    ccs_status_t free_allocation(ccs_mem_t mem);
    ccs_status_t pack_key(ccs_mem_t mem, void *buffer, size_t *length);

    // The registration covering [addr, addr + length): a handle id, or 0.
    uint64_t covering(uint64_t addr, size_t length) const;
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

    // registration_backend
    ccs_status_t mem_reg(region &r) override;
    void mem_dereg(region &r) override;
    ccs_status_t check_range(uintptr_t start, uintptr_t end) override;

private:
    struct registration {
        uint64_t id;
        uintptr_t addr;
        size_t length;
        region *r;  // null for length 0
        std::vector<int> implicit_holders;  // ranks we sent an implicit key for it
        bool allocated = false;             // by ccs_mem_alloc: only ccs_mem_free ends it
    };
    ccs_status_t pack(const registration &reg, std::vector<uint8_t> &out) const;

    std::vector<transport *> transports_;
    int rank_;
    registration_cache cache_;
    uint64_t next_id_ = 1;
    std::unordered_map<uint64_t, registration> handles_;
    // Ends a registration: its implicit holders told, its region released.
    void drop(std::unordered_map<uint64_t, registration>::iterator it);
    std::multimap<uintptr_t, uint64_t> by_addr_;  // start -> handle id
};

// The parts of a packed key (see memory_registry::pack).
struct key_contents {
    int owner = -1;
    uint64_t handle = 0;
    uint64_t base = 0;
    uint64_t length = 0;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> transports;  // name, plugin key
};
bool unpack_key(const void *buffer, size_t length, key_contents &out);

}  // namespace ccs
