#include "core/rma/accumulate_kernels.hpp"

namespace ccs {
namespace {

// The loops, inlined into one build per vector width below; the type and
// the scale are read once for all the spans.
[[gnu::always_inline]] inline void apply(const rma_accumulate &a, const acc_span *spans, size_t count, uint8_t *old) {
    auto run = [&](auto zero) [[gnu::always_inline]] {
        using T = decltype(zero);
        T scale;
        std::memcpy(&scale, a.scale, sizeof scale);
        const auto each = [&](auto body) [[gnu::always_inline]] {
            for (size_t i = 0; i < count; ++i) {
                const acc_span &s = spans[i];
                if (old) {
                    std::memcpy(old, s.dst, s.bytes);
                    old += s.bytes;
                }
                body(reinterpret_cast<T *>(s.dst), reinterpret_cast<const T *>(s.src), s.bytes / sizeof(T));
            }
        };
        // The unscaled sum, the common case, chosen once for all the spans
        // rather than per span: a span may be one element.
        if (a.op == CCS_ACC_SUM && scale == T(1))
            each([](T *dst, const T *src, size_t n) [[gnu::always_inline]] {
                for (size_t i = 0; i < n; ++i) dst[i] += src[i];
            });
        else
            each([&](T *dst, const T *src, size_t n)
                     [[gnu::always_inline]] { acc_apply_as<T>(a.op, dst, src, n, scale); });
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

[[gnu::target("avx512f")]] void apply_avx512(const rma_accumulate &a, const acc_span *spans, size_t count,
                                             uint8_t *old) {
    apply(a, spans, count, old);
}
[[gnu::target("avx2")]] void apply_avx2(const rma_accumulate &a, const acc_span *spans, size_t count, uint8_t *old) {
    apply(a, spans, count, old);
}
void apply_baseline(const rma_accumulate &a, const acc_span *spans, size_t count, uint8_t *old) {
    apply(a, spans, count, old);
}

using kernel = void (*)(const rma_accumulate &, const acc_span *, size_t, uint8_t *);

// The widest build this CPU runs. Chosen by hand rather than by an ifunc
// (target_clones): a resolver runs before the sanitizers' runtimes start.
kernel widest() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return apply_avx512;
    if (__builtin_cpu_supports("avx2")) return apply_avx2;
    return apply_baseline;
}

kernel chosen_kernel() {
    static const kernel chosen = widest();
    return chosen;
}

}  // namespace

void apply_accumulate_spans(const rma_accumulate &a, const acc_span *spans, size_t count, uint8_t *old) {
    chosen_kernel()(a, spans, count, old);
}

// The loops are memory-bound at 64 KiB and more, compute-bound below,
// where AVX-512 does 8 doubles an instruction to the baseline's 2.
void apply_accumulate(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t *old) {
    if (!bytes) return;  // (the buffers of an empty reduction may be null)
    const acc_span one{dst, src, bytes};
    chosen_kernel()(a, &one, 1, old);
}

}  // namespace ccs
