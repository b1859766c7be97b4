// Memory the core allocates to be shareable (ccs_mem_alloc): an anonymous
// memory file (memfd) mapped shared, so a transport on the same node can
// map the same pages into a peer and put/get become plain loads and stores.
// A process-wide table, so transports can ask about any address.
#pragma once

#include <ccs/ccs.h>

#include <cstddef>
#include <cstdint>

namespace ccs {

struct shared_allocation {
    uint64_t id = 0;  // unique in this process, never reused
    int fd = -1;
    uintptr_t addr = 0;
    size_t length = 0;    // the file's, all mapped from addr
    size_t reserved = 0;  // address space held from addr (>= length; the rest inaccessible)
};

// Where to map a new allocation: anywhere (at 0), or at `at` if that
// address space is free, with `reserve` bytes held from there so that the
// same range is free in every process of a symmetric allocation.
struct placement {
    uintptr_t at = 0;
    size_t reserve = 0;
};

// Each returns CCS_OK or an error with ccs_last_error set. `placed`: the
// allocation starts at where.at (always true without one).
ccs_status_t shared_allocation_create(size_t length, shared_allocation &out, const placement &where = {},
                                      bool *placed = nullptr);
// The allocation starting at addr; false if there is none.
bool shared_allocation_destroy(uintptr_t addr);
// The allocation holding all of [addr, addr + length), or null.
const shared_allocation *shared_allocation_find(uintptr_t addr, size_t length);

}  // namespace ccs
