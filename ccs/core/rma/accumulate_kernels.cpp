#include "core/rma/accumulate_kernels.hpp"

namespace ccs {

// One build per vector width, picked at load time (an ifunc): the loops
// are memory-bound at 64 KiB and more, compute-bound below, where AVX-512
// does 8 doubles an instruction to the baseline's 2.
[[gnu::target_clones("avx512f", "avx2", "default")]]
void apply_accumulate(const rma_accumulate &a, uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t *old) {
    if (old) std::memcpy(old, dst, bytes);
    const size_t n = bytes / acc_element_size(a.type);
    auto run = [&](auto zero) {
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

}  // namespace ccs
