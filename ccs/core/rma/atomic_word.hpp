// How every CCS atomic is carried out: the CPU's atomic instructions on one
// word, wherever that runs (on memory mapped here, or at the target for an
// active message). One mechanism, so atomics on a word from any path are
// atomic with respect to each other.
#pragma once

#include <ccs/rma.h>

#include <cstddef>
#include <cstdint>

namespace ccs {

// What an atomic asks for, as it travels: op and width (4 or 8 bytes)
// checked by the caller, operands already fitted to the width.
struct rma_atomic {
    uint8_t op = CCS_ATOMIC_ADD;
    uint8_t width = 8;
    uint64_t operand = 0, compare = 0;
};

// Applies `a` to the word at `word` (aligned to a.width); returns the value
// it held before (zero-extended).
template <typename T>
inline T apply_atomic_as(const rma_atomic &a, T *word) {
    const T operand = static_cast<T>(a.operand);
    switch (a.op) {
    case CCS_ATOMIC_ADD: return __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST);
    case CCS_ATOMIC_AND: return __atomic_fetch_and(word, operand, __ATOMIC_SEQ_CST);
    case CCS_ATOMIC_OR: return __atomic_fetch_or(word, operand, __ATOMIC_SEQ_CST);
    case CCS_ATOMIC_XOR: return __atomic_fetch_xor(word, operand, __ATOMIC_SEQ_CST);
    case CCS_ATOMIC_SWAP:
    case CCS_ATOMIC_SET: return __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST);
    case CCS_ATOMIC_CSWAP: {
        T expected = static_cast<T>(a.compare);
        __atomic_compare_exchange_n(word, &expected, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return expected;  // the old value, whether or not it was replaced
    }
    default: return __atomic_load_n(word, __ATOMIC_SEQ_CST);  // CCS_ATOMIC_FETCH
    }
}

inline uint64_t apply_atomic(const rma_atomic &a, void *word) {
    if (a.width == 4) return apply_atomic_as(a, static_cast<uint32_t *>(word));
    return apply_atomic_as(a, static_cast<uint64_t *>(word));
}

// Stores `old` (a.width bytes) where the caller wants the fetched value.
inline void store_fetched(const rma_atomic &a, void *fetched, uint64_t old) {
    if (!fetched) return;
    if (a.width == 4) *static_cast<uint32_t *>(fetched) = static_cast<uint32_t>(old);
    else *static_cast<uint64_t *>(fetched) = old;
}

}  // namespace ccs
