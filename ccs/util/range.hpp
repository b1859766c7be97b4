// Whether one address range lies inside another, without overflow: the
// check behind keys, registrations and allocations alike.
#pragma once

#include <cstdint>

namespace ccs {

// [addr, addr + len) inside [base, base + length).
inline bool range_holds(uint64_t base, uint64_t length, uint64_t addr, uint64_t len) {
    return addr - base <= length && len <= length - (addr - base);
}

}  // namespace ccs
