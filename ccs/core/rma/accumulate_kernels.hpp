// The element-wise updates of accumulate (ccs_acc_op_t on ccs_acc_type_t),
// applied by the process that owns the memory or has it mapped. Loops over
// plain arrays the compiler vectorises; old values copied out first for
// get-accumulate.
#pragma once

#include <ccs/rma.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ccs {

// What an accumulate asks for, as it travels: op and type checked by the
// caller, `scale` one element of the type (1 when the caller gave none).
struct rma_accumulate {
    uint8_t op = CCS_ACC_SUM;
    uint8_t type = CCS_ACC_DOUBLE;
    alignas(16) uint8_t scale[16] = {};
    void *fetched = nullptr;  // where the old values go, or null
};

// Bytes of one element, and the alignment an address needs.
inline size_t acc_element_size(int type) {
    switch (type) {
    case CCS_ACC_INT32:
    case CCS_ACC_UINT32:
    case CCS_ACC_FLOAT: return 4;
    case CCS_ACC_COMPLEX_DOUBLE: return 16;
    default: return 8;  // 64-bit integers, double, complex float
    }
}
inline size_t acc_alignment(int type) { return std::min<size_t>(acc_element_size(type), 8); }

// One of the type, 1, for a caller who gave no scale.
inline void acc_unit_scale(int type, uint8_t *scale) {
    std::memset(scale, 0, 16);
    switch (type) {
    case CCS_ACC_INT32:
    case CCS_ACC_UINT32: { const uint32_t one = 1; std::memcpy(scale, &one, 4); break; }
    case CCS_ACC_INT64:
    case CCS_ACC_UINT64: { const uint64_t one = 1; std::memcpy(scale, &one, 8); break; }
    case CCS_ACC_FLOAT:
    case CCS_ACC_COMPLEX_FLOAT: { const float one = 1; std::memcpy(scale, &one, 4); break; }
    default: { const double one = 1; std::memcpy(scale, &one, 8); break; }
    }
}

// Always inlined, so each vector width's build of apply_accumulate
// (accumulate_kernels.cpp) compiles the loops for its own width.
template <typename T>
[[gnu::always_inline]] inline void acc_apply_as(int op, T *dst, const T *src, size_t n, T scale) {
    switch (op) {
    case CCS_ACC_SUM:
        // Without the product when the scale is 1: exact for complex
        // numbers too ((1, 0) * (x, inf) is not (x, inf)), and what
        // reductions, which never scale, rely on.
        if (scale == T(1))
            for (size_t i = 0; i < n; ++i) dst[i] += src[i];
        else
            for (size_t i = 0; i < n; ++i) dst[i] += scale * src[i];
        break;
    case CCS_ACC_PROD:
        for (size_t i = 0; i < n; ++i) dst[i] *= src[i];
        break;
    case CCS_ACC_REPLACE: std::memmove(dst, src, n * sizeof(T)); break;
    default:
        if constexpr (requires(T a, T b) { a < b; }) {
            if (op == CCS_ACC_MIN)
                for (size_t i = 0; i < n; ++i) dst[i] = std::min(dst[i], src[i]);
            else
                for (size_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
        }
    }
}

// Applies `a` to the elements in `bytes` at dst (the owner's memory) from
// src; copies the old values to `old` first where it is not null.
// Integers wrap. Out of line (accumulate_kernels.cpp): built for AVX-512,
// AVX2 and the baseline, the CPU's widest chosen on first use.
void apply_accumulate(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t *old);

// The same over many spans (each whole elements) in one call: a layout of
// single elements would otherwise pay the call and the choice of loop
// once per element. Old values of span i follow those of span i - 1.
struct acc_span {
    uint8_t *dst;
    const uint8_t *src;
    size_t bytes;
};
void apply_accumulate_spans(const rma_accumulate &a, const acc_span *spans, size_t count, uint8_t *old);

}  // namespace ccs
