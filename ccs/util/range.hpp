// Whether one address range lies inside another, without overflow: the
// check behind keys, registrations and allocations alike.
#pragma once

#include <cstdint>
#include <string>

namespace ccs {

// [addr, addr + len) inside [base, base + length).
inline bool range_holds(uint64_t base, uint64_t length, uint64_t addr, uint64_t len) {
    return addr - base <= length && len <= length - (addr - base);
}

// "[address, +length)", for error messages. Built by appending: GCC 12 at
// -O3 reports a false -Wrestrict overlap for "[" + std::string (its bug
// 105329).
inline std::string describe_range(uint64_t address, uint64_t length) {
    std::string out("[");
    out += std::to_string(address);
    out += ", +";
    out += std::to_string(length);
    out += ")";
    return out;
}

}  // namespace ccs
