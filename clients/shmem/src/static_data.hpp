// The program's global and static variables as symmetric objects: the
// main executable's writable data and bss, registered with CCS at
// shmem_init, their base and key exchanged once, so that an address in
// them is translated to the same variable on any PE (executables are
// position independent: the bases differ from PE to PE).
#pragma once

#include <ccs/coll.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccs::shmem {
class static_data {
public:
    // Collective over `world`. CCS's status on failure, with the reason in
    // `why` (also for a program without writable data: that is not one).
    ccs_status_t create(ccs_team_t world, int npes, std::string &why);
    void destroy();

    bool contains(const void *p, size_t length) const {
        const uintptr_t a = reinterpret_cast<uintptr_t>(p);
        return a >= base_ && a <= base_ + length_ && length <= base_ + length_ - a;
    }
    uint64_t address_on(int pe, const void *local) const {
        return peers_[static_cast<size_t>(pe)].base + (reinterpret_cast<uintptr_t>(local) - base_);
    }
    ccs_rkey_t key_of(int pe) const { return peers_[static_cast<size_t>(pe)].key; }

private:
    struct peer {
        uint64_t base;
        ccs_rkey_t key;
    };
    uintptr_t base_ = 0;
    size_t length_ = 0;
    ccs_mem_t mem_{0};
    std::vector<peer> peers_;
};
}  // namespace ccs::shmem
