// The C entry points of the atomics: standard, extended and bitwise types
// (tables 6 and 7), blocking and _nbi, with and without a context, and the
// deprecated names of OpenSHMEM 1.3.
#include "atomics.hpp"

using namespace ccs::shmem;

extern "C" {
#define SHMEM_DEFINE_AMO_EXTENDED_(T, N)                                                                         \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                                   \
        return atomic_fetching<T>("shmem_" #N "_atomic_fetch", ctx, CCS_ATOMIC_FETCH, source, 0, 0, pe);        \
    }                                                                                                            \
    T shmem_##N##_atomic_fetch(const T *source, int pe) {                                                        \
        return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe);                                      \
    }                                                                                                            \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) {                  \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_fetch_nbi", ctx, CCS_ATOMIC_FETCH, fetch, source, 0, 0, pe); \
    }                                                                                                            \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                                       \
        shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, fetch, source, pe);                                  \
    }                                                                                                            \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                                 \
        atomic_post<T>("shmem_" #N "_atomic_set", ctx, CCS_ATOMIC_SET, dest, value, pe);                         \
    }                                                                                                            \
    void shmem_##N##_atomic_set(T *dest, T value, int pe) {                                                      \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, dest, value, pe);                                          \
    }                                                                                                            \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                                   \
        return atomic_fetching<T>("shmem_" #N "_atomic_swap", ctx, CCS_ATOMIC_SWAP, dest, value, 0, pe);        \
    }                                                                                                            \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe) {                                                        \
        return shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe);                                  \
    }                                                                                                            \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {                  \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_swap_nbi", ctx, CCS_ATOMIC_SWAP, fetch, dest, value, 0, pe); \
    }                                                                                                            \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                                       \
        shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);                              \
    }
SHMEM_AMO_EXTENDED_TYPES_(SHMEM_DEFINE_AMO_EXTENDED_)

#define SHMEM_DEFINE_AMO_STANDARD_(T, N)                                                                           \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {                     \
        return atomic_fetching<T>("shmem_" #N "_atomic_compare_swap", ctx, CCS_ATOMIC_CSWAP, dest, value, cond, pe); \
    }                                                                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                                          \
        return shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe);                      \
    }                                                                                                              \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe) {    \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_compare_swap_nbi", ctx, CCS_ATOMIC_CSWAP, fetch, dest, value,  \
                               cond, pe);                                                                          \
    }                                                                                                              \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {                         \
        shmem_ctx_##N##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, cond, value, pe);                  \
    }                                                                                                              \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                                         \
        return atomic_fetching<T>("shmem_" #N "_atomic_fetch_inc", ctx, CCS_ATOMIC_ADD, dest, 1, 0, pe);          \
    }                                                                                                              \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                                              \
        return shmem_ctx_##N##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, dest, pe);                                      \
    }                                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {                        \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_fetch_inc_nbi", ctx, CCS_ATOMIC_ADD, fetch, dest, 1, 0, pe);  \
    }                                                                                                              \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                                             \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, fetch, dest, pe);                                  \
    }                                                                                                              \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                                            \
        atomic_post<T>("shmem_" #N "_atomic_inc", ctx, CCS_ATOMIC_ADD, dest, 1, pe);                               \
    }                                                                                                              \
    void shmem_##N##_atomic_inc(T *dest, int pe) { shmem_ctx_##N##_atomic_inc(SHMEM_CTX_DEFAULT, dest, pe); }      \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) {                                \
        return atomic_fetching<T>("shmem_" #N "_atomic_fetch_add", ctx, CCS_ATOMIC_ADD, dest, value, 0, pe);      \
    }                                                                                                              \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                                                     \
        return shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, value, pe);                               \
    }                                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {               \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_fetch_add_nbi", ctx, CCS_ATOMIC_ADD, fetch, dest, value, 0,   \
                               pe);                                                                                \
    }                                                                                                              \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {                                    \
        shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);                           \
    }                                                                                                              \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) {                                   \
        atomic_post<T>("shmem_" #N "_atomic_add", ctx, CCS_ATOMIC_ADD, dest, value, pe);                           \
    }                                                                                                              \
    void shmem_##N##_atomic_add(T *dest, T value, int pe) {                                                        \
        shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, dest, value, pe);                                            \
    }
SHMEM_AMO_STANDARD_TYPES_(SHMEM_DEFINE_AMO_STANDARD_)

#define SHMEM_DEFINE_AMO_BITWISE_OP_(T, N, OP, CCS_OP)                                                          \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {                            \
        return atomic_fetching<T>("shmem_" #N "_atomic_fetch_" #OP, ctx, CCS_OP, dest, value, 0, pe);          \
    }                                                                                                           \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                                                 \
        return shmem_ctx_##N##_atomic_fetch_##OP(SHMEM_CTX_DEFAULT, dest, value, pe);                           \
    }                                                                                                           \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {         \
        atomic_fetching_nbi<T>("shmem_" #N "_atomic_fetch_" #OP "_nbi", ctx, CCS_OP, fetch, dest, value, 0, pe); \
    }                                                                                                           \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {                              \
        shmem_ctx_##N##_atomic_fetch_##OP##_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);                     \
    }                                                                                                           \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {                               \
        atomic_post<T>("shmem_" #N "_atomic_" #OP, ctx, CCS_OP, dest, value, pe);                               \
    }                                                                                                           \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe) {                                                    \
        shmem_ctx_##N##_atomic_##OP(SHMEM_CTX_DEFAULT, dest, value, pe);                                        \
    }
#define SHMEM_DEFINE_AMO_BITWISE_(T, N)                          \
    SHMEM_DEFINE_AMO_BITWISE_OP_(T, N, and, CCS_ATOMIC_AND)      \
    SHMEM_DEFINE_AMO_BITWISE_OP_(T, N, or, CCS_ATOMIC_OR)        \
    SHMEM_DEFINE_AMO_BITWISE_OP_(T, N, xor, CCS_ATOMIC_XOR)
SHMEM_AMO_BITWISE_TYPES_(SHMEM_DEFINE_AMO_BITWISE_)

#define SHMEM_DEFINE_AMO_DEPRECATED_(T, N)                                                                          \
    T shmem_##N##_fetch(const T *source, int pe) {                                                                  \
        return atomic_fetching<T>("shmem_" #N "_fetch", SHMEM_CTX_DEFAULT, CCS_ATOMIC_FETCH, source, 0, 0, pe);    \
    }                                                                                                               \
    void shmem_##N##_set(T *dest, T value, int pe) {                                                                \
        atomic_post<T>("shmem_" #N "_set", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SET, dest, value, pe);                     \
    }                                                                                                               \
    T shmem_##N##_swap(T *dest, T value, int pe) {                                                                  \
        return atomic_fetching<T>("shmem_" #N "_swap", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SWAP, dest, value, 0, pe);    \
    }                                                                                                               \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe) {                                                         \
        return atomic_fetching<T>("shmem_" #N "_cswap", SHMEM_CTX_DEFAULT, CCS_ATOMIC_CSWAP, dest, value, cond, pe); \
    }                                                                                                               \
    T shmem_##N##_finc(T *dest, int pe) {                                                                           \
        return atomic_fetching<T>("shmem_" #N "_finc", SHMEM_CTX_DEFAULT, CCS_ATOMIC_ADD, dest, 1, 0, pe);         \
    }                                                                                                               \
    void shmem_##N##_inc(T *dest, int pe) {                                                                         \
        atomic_post<T>("shmem_" #N "_inc", SHMEM_CTX_DEFAULT, CCS_ATOMIC_ADD, dest, 1, pe);                         \
    }                                                                                                               \
    T shmem_##N##_fadd(T *dest, T value, int pe) {                                                                  \
        return atomic_fetching<T>("shmem_" #N "_fadd", SHMEM_CTX_DEFAULT, CCS_ATOMIC_ADD, dest, value, 0, pe);     \
    }                                                                                                               \
    void shmem_##N##_add(T *dest, T value, int pe) {                                                                \
        atomic_post<T>("shmem_" #N "_add", SHMEM_CTX_DEFAULT, CCS_ATOMIC_ADD, dest, value, pe);                     \
    }
SHMEM_DEPRECATED_AMO_TYPES_(SHMEM_DEFINE_AMO_DEPRECATED_)

float shmem_float_fetch(const float *source, int pe) {
    return atomic_fetching<float>("shmem_float_fetch", SHMEM_CTX_DEFAULT, CCS_ATOMIC_FETCH, source, 0, 0, pe);
}
double shmem_double_fetch(const double *source, int pe) {
    return atomic_fetching<double>("shmem_double_fetch", SHMEM_CTX_DEFAULT, CCS_ATOMIC_FETCH, source, 0, 0, pe);
}
void shmem_float_set(float *dest, float value, int pe) {
    atomic_post<float>("shmem_float_set", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SET, dest, value, pe);
}
void shmem_double_set(double *dest, double value, int pe) {
    atomic_post<double>("shmem_double_set", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SET, dest, value, pe);
}
float shmem_float_swap(float *dest, float value, int pe) {
    return atomic_fetching<float>("shmem_float_swap", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SWAP, dest, value, 0, pe);
}
double shmem_double_swap(double *dest, double value, int pe) {
    return atomic_fetching<double>("shmem_double_swap", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SWAP, dest, value, 0, pe);
}
long shmem_swap(long *dest, long value, int pe) {
    return atomic_fetching<long>("shmem_swap", SHMEM_CTX_DEFAULT, CCS_ATOMIC_SWAP, dest, value, 0, pe);
}
}
