#include "core/rma/accumulate_kernels.hpp"

namespace ccs {
namespace {

// The loops, inlined into one build per vector width below.
[[gnu::always_inline]] inline void apply(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes,
                                         uint8_t *old) {
    if (old) std::memcpy(old, dst, bytes);
    const size_t n = bytes / acc_element_size(a.type);
    auto run = [&](auto zero) [[gnu::always_inline]] {
        using T = decltype(zero);
        T scale;
        std::memcpy(&scale, a.scale, sizeof scale);
        acc_apply_as<T>(a.op, reinterpret_cast<T *>(dst), reinterpret_cast<const T *>(src), n, scale);
    };
    // Signed sums and products wrap as unsigned ones do (and would be
    // undefined as signed); only MIN and MAX need the sign.
    const bool ordered = a.op == CCS_ACC_MIN || a.op == CCS_ACC_MAX;
    switch (a.type) {
    case CCS_ACC_INT32: ordered ? run(int32_t{}) : run(uint32_t{}); break;
    case CCS_ACC_UINT32: run(uint32_t{}); break;
    case CCS_ACC_INT64: ordered ? run(int64_t{}) : run(uint64_t{}); break;
    case CCS_ACC_UINT64: run(uint64_t{}); break;
    case CCS_ACC_FLOAT: run(float{}); break;
    case CCS_ACC_DOUBLE: run(double{}); break;
    case CCS_ACC_COMPLEX_FLOAT: run(std::complex<float>{}); break;
    default: run(std::complex<double>{}); break;
    }
}

[[gnu::target("avx512f")]] void apply_avx512(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes,
                                             uint8_t *old) {
    apply(a, dst, src, bytes, old);
}
[[gnu::target("avx2")]] void apply_avx2(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes,
                                        uint8_t *old) {
    apply(a, dst, src, bytes, old);
}
void apply_baseline(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t *old) {
    apply(a, dst, src, bytes, old);
}

using kernel = void (*)(const rma_accumulate &, uint8_t *, const uint8_t *, size_t, uint8_t *);

// The widest build this CPU runs. Chosen by hand rather than by an ifunc
// (target_clones): a resolver runs before the sanitizers' runtimes start.
kernel widest() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return apply_avx512;
    if (__builtin_cpu_supports("avx2")) return apply_avx2;
    return apply_baseline;
}

}  // namespace

// The loops are memory-bound at 64 KiB and more, compute-bound below,
// where AVX-512 does 8 doubles an instruction to the baseline's 2.
void apply_accumulate(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t *old) {
    if (!bytes) return;  // (the buffers of an empty reduction may be null)
    static const kernel chosen = widest();
    chosen(a, dst, src, bytes, old);
}

}  // namespace ccs
