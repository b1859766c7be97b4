// Collective allocations (ARMCI_Malloc, ARMCI_Malloc_group, the mutexes'
// words): each member's part is a ccs_mem_alloc block, so that node peers
// map it (puts become copies, accumulates and atomics are applied in
// place), and every member's base, length and key are known to all. An
// operation names the target's own address; `find` gives the key that
// reaches it.
#pragma once

#include "state.hpp"

#include <map>
#include <memory>

namespace ccs::armci {

struct allocation {
    ccs_mem_t mem{0};  // this process's part (id 0: it gave length 0)
    void *mine = nullptr;
    std::vector<int> members;  // absolute ids, in group order
    std::vector<uint64_t> bases;
    std::vector<uint64_t> lengths;
    std::vector<ccs_rkey_t> keys;
};

struct remote_part {
    uint64_t end;
    ccs_rkey_t key;
};

class allocation_table {
public:
    // Collective over `team` (whose members are `members`): allocates this
    // process's `length` bytes and learns everyone's. bases[i] is member
    // i's base (NULL where it gave 0). On failure (a negative length too)
    // every member gets it, since the exchange carries each member's
    // status, and nothing stays.
    ccs_status_t create(ccs_team_t team, const std::vector<int> &members, int64_t length, std::vector<void *> &bases,
                        std::string &why);
    // Collective over the allocation's members: frees it. `mine` is this
    // process's base (NULL where it gave 0: then `team` finds it by order).
    ccs_status_t destroy(ccs_team_t team, void *mine, std::string &why);
    // The key of [addr, addr + length) in `proc`'s memory, or an error.
    ccs_status_t find(int proc, uint64_t addr, uint64_t length, ccs_rkey_t &key, std::string &why) const;
    bool empty() const { return allocations_.empty(); }
    void clear();

private:
    void forget(allocation &a);
    std::vector<std::unique_ptr<allocation>> allocations_;
    std::vector<std::map<uint64_t, remote_part>> parts_;  // per process: base -> part
};

allocation_table &allocations();

}  // namespace ccs::armci
