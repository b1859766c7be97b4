// The condition ccs_wait_until polls: `*ivar cmp value` for one integer
// type, read with an atomic acquire load.
#pragma once

#include <ccs/rma.h>

#include <cstdint>

namespace ccs {

// Checked as ints, before they become enums: an enum holding another
// value is undefined behaviour.
inline bool valid_int_type(int type) { return type >= CCS_INT32 && type <= CCS_UINT64; }
inline bool valid_cmp(int cmp) { return cmp >= CCS_CMP_EQ && cmp <= CCS_CMP_LE; }
inline size_t int_type_size(ccs_int_type_t type) { return type == CCS_INT32 || type == CCS_UINT32 ? 4 : 8; }

template <typename T>
bool compare(T a, ccs_cmp_t cmp, T b) {
    switch (cmp) {
    case CCS_CMP_EQ: return a == b;
    case CCS_CMP_NE: return a != b;
    case CCS_CMP_GT: return a > b;
    case CCS_CMP_GE: return a >= b;
    case CCS_CMP_LT: return a < b;
    case CCS_CMP_LE: return a <= b;
    }
    return false;
}

// Calls run(holds) with holds() testing the condition now; the type is
// resolved once, not on every poll.
template <typename Run>
auto with_condition(const void *ivar, ccs_int_type_t type, ccs_cmp_t cmp, uint64_t value, Run run) {
    auto as = [&](auto zero) {
        using T = decltype(zero);
        const T *word = static_cast<const T *>(ivar);
        const T wanted = static_cast<T>(value);  // modulo 2^n, as C converts
        return run([=] { return compare(__atomic_load_n(word, __ATOMIC_ACQUIRE), cmp, wanted); });
    };
    switch (type) {
    case CCS_INT32: return as(int32_t{});
    case CCS_UINT32: return as(uint32_t{});
    case CCS_INT64: return as(int64_t{});
    default: return as(uint64_t{});
    }
}

}  // namespace ccs
