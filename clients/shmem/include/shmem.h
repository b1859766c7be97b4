/*
 * OpenSHMEM 1.5 over CCS (libccs_shmem). Compile with oshcc / oshc++ and
 * start with oshrun (or ccsrun, mpirun, mpiexec): see clients/shmem/README.md
 * for what is built and what is not built yet.
 *
 * Every PE's symmetric heap is one CCS symmetric allocation of
 * SHMEM_SYMMETRIC_SIZE bytes; the program's global and static variables are
 * symmetric too (registered at shmem_init). RMA, atomics and waits are CCS
 * calls on one CCS context; see ccs/rma.h for how each moves.
 *
 * A call that is given what it cannot carry out (a PE out of range, an
 * address that is not symmetric, a destroyed context) prints the reason on
 * stderr, naming the call, and ends the job with exit code 1, since these
 * calls have no error return.
 */
#ifndef CCS_SHMEM_H
#define CCS_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SHMEM_API __attribute__((visibility("default")))
#define SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define SHMEM_API
#define SHMEM_DEPRECATED
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ constants */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "CCS OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum {
    SHMEM_THREAD_SINGLE = 0,
    SHMEM_THREAD_FUNNELED = 1,
    SHMEM_THREAD_SERIALIZED = 2,
    SHMEM_THREAD_MULTIPLE = 3
};

enum {
    SHMEM_CMP_EQ = 0,
    SHMEM_CMP_NE = 1,
    SHMEM_CMP_GT = 2,
    SHMEM_CMP_GE = 3,
    SHMEM_CMP_LT = 4,
    SHMEM_CMP_LE = 5
};
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Work arrays of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Hints of shmem_malloc_with_hints: accepted; every block serves both. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* ------------------------------------------------------------- contexts */
typedef struct shmem_ctx_s *shmem_ctx_t;
SHMEM_API extern struct shmem_ctx_s shmem_ctx_default_object_;
#define SHMEM_CTX_DEFAULT (&shmem_ctx_default_object_)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* ------------------------------------------------------- setup, query */
SHMEM_API void shmem_init(void);
SHMEM_API int shmem_init_thread(int requested, int *provided);
SHMEM_API void shmem_query_thread(int *provided);
SHMEM_API void shmem_finalize(void);
/* Ends every PE of the job; the job's exit code is status (0 .. 255). */
SHMEM_API void shmem_global_exit(int status);
SHMEM_API int shmem_my_pe(void);
SHMEM_API int shmem_n_pes(void);
SHMEM_API int shmem_pe_accessible(int pe);
SHMEM_API int shmem_addr_accessible(const void *addr, int pe);
SHMEM_API void *shmem_ptr(const void *dest, int pe);
SHMEM_API void shmem_info_get_version(int *major, int *minor);
SHMEM_API void shmem_info_get_name(char *name);
SHMEM_DEPRECATED SHMEM_API void start_pes(int npes);
SHMEM_DEPRECATED SHMEM_API int _my_pe(void);
SHMEM_DEPRECATED SHMEM_API int _num_pes(void);

/* ------------------------------------------------------ symmetric heap */
SHMEM_API void *shmem_malloc(size_t size);
SHMEM_API void *shmem_malloc_with_hints(size_t size, long hints);
SHMEM_API void *shmem_calloc(size_t count, size_t size);
SHMEM_API void *shmem_align(size_t alignment, size_t size);
SHMEM_API void *shmem_realloc(void *ptr, size_t size);
SHMEM_API void shmem_free(void *ptr);
SHMEM_DEPRECATED SHMEM_API void *shmalloc(size_t size);
SHMEM_DEPRECATED SHMEM_API void *shmemalign(size_t alignment, size_t size);
SHMEM_DEPRECATED SHMEM_API void *shrealloc(void *ptr, size_t size);
SHMEM_DEPRECATED SHMEM_API void shfree(void *ptr);

/* ---------------------------------------------------------------- RMA
 * The standard RMA types (OpenSHMEM 1.5, table 5): X(TYPE, TYPENAME). */
#define SHMEM_RMA_TYPES_(X)                                                    \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)  \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)             \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)    \
    X(unsigned int, uint) X(unsigned long, ulong)                               \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)          \
    X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)   \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

#define SHMEM_DECLARE_RMA_(T, N)                                                                         \
    SHMEM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                     \
    SHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                     \
    SHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                 \
    SHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                           int pe);                                                       \
    SHMEM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                 \
    SHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                           int pe);                                                       \
    SHMEM_API void shmem_##N##_p(T *dest, T value, int pe);                                             \
    SHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                        \
    SHMEM_API T shmem_##N##_g(const T *source, int pe);                                                 \
    SHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                            \
    SHMEM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                    int pe);                                                              \
    SHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                                        ptrdiff_t sst, size_t nelems, int pe);                            \
    SHMEM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                    int pe);                                                              \
    SHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                                        ptrdiff_t sst, size_t nelems, int pe);
SHMEM_RMA_TYPES_(SHMEM_DECLARE_RMA_)

/* Sized forms: X(BITS) for elements of BITS / 8 bytes, and mem for bytes. */
#define SHMEM_RMA_SIZES_(X) X(8) X(16) X(32) X(64) X(128)
#define SHMEM_DECLARE_SIZED_(B)                                                                           \
    SHMEM_API void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);                  \
    SHMEM_API void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);                  \
    SHMEM_API void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);            \
    SHMEM_API void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                          int pe);                                                        \
    SHMEM_API void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);            \
    SHMEM_API void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                          int pe);                                                        \
    SHMEM_API void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                                 size_t nelems, int pe);                                                  \
    SHMEM_API void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,     \
                                     ptrdiff_t sst, size_t nelems, int pe);                               \
    SHMEM_API void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                                 size_t nelems, int pe);                                                  \
    SHMEM_API void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,     \
                                     ptrdiff_t sst, size_t nelems, int pe);
SHMEM_RMA_SIZES_(SHMEM_DECLARE_SIZED_)

SHMEM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

/* ------------------------------------------------------------- atomics
 * Standard AMO types (table 6) take every operation below; the extended
 * ones (float, double) fetch, set and swap; the bitwise ones (table 7)
 * and, or, xor. X(TYPE, TYPENAME). */
#define SHMEM_AMO_STANDARD_TYPES_(X)                                                       \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                  \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)              \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)               \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_EXTENDED_TYPES_(X) SHMEM_AMO_STANDARD_TYPES_(X) X(float, float) X(double, double)
#define SHMEM_AMO_BITWISE_TYPES_(X)                                                         \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)          \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

#define SHMEM_DECLARE_AMO_EXTENDED_(T, N)                                                                   \
    SHMEM_API T shmem_##N##_atomic_fetch(const T *source, int pe);                                          \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                     \
    SHMEM_API void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                         \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);    \
    SHMEM_API void shmem_##N##_atomic_set(T *dest, T value, int pe);                                        \
    SHMEM_API void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    SHMEM_API T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                          \
    SHMEM_API T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                     \
    SHMEM_API void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                         \
    SHMEM_API void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEM_AMO_EXTENDED_TYPES_(SHMEM_DECLARE_AMO_EXTENDED_)

#define SHMEM_DECLARE_AMO_STANDARD_(T, N)                                                                      \
    SHMEM_API T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                             \
    SHMEM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);        \
    SHMEM_API void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);            \
    SHMEM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, \
                                                           int pe);                                            \
    SHMEM_API T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                                 \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                            \
    SHMEM_API void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);          \
    SHMEM_API void shmem_##N##_atomic_inc(T *dest, int pe);                                                    \
    SHMEM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                               \
    SHMEM_API T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                        \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    SHMEM_API void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                       \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);  \
    SHMEM_API void shmem_##N##_atomic_add(T *dest, T value, int pe);                                           \
    SHMEM_API void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);
SHMEM_AMO_STANDARD_TYPES_(SHMEM_DECLARE_AMO_STANDARD_)

#define SHMEM_AMO_BITWISE_OPS_(X, T, N) X(T, N, and) X(T, N, or) X(T, N, xor)
#define SHMEM_DECLARE_AMO_BITWISE_OP_(T, N, OP)                                                                \
    SHMEM_API T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                       \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
    SHMEM_API void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                    \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_API void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                          \
    SHMEM_API void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);
#define SHMEM_DECLARE_AMO_BITWISE_(T, N) SHMEM_AMO_BITWISE_OPS_(SHMEM_DECLARE_AMO_BITWISE_OP_, T, N)
SHMEM_AMO_BITWISE_TYPES_(SHMEM_DECLARE_AMO_BITWISE_)

/* Deprecated names (OpenSHMEM 1.3) of the standard atomics. */
#define SHMEM_DEPRECATED_AMO_TYPES_(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_DECLARE_AMO_DEPRECATED_(T, N)                                        \
    SHMEM_DEPRECATED SHMEM_API T shmem_##N##_fetch(const T *source, int pe);       \
    SHMEM_DEPRECATED SHMEM_API void shmem_##N##_set(T *dest, T value, int pe);     \
    SHMEM_DEPRECATED SHMEM_API T shmem_##N##_swap(T *dest, T value, int pe);       \
    SHMEM_DEPRECATED SHMEM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
    SHMEM_DEPRECATED SHMEM_API T shmem_##N##_finc(T *dest, int pe);                \
    SHMEM_DEPRECATED SHMEM_API void shmem_##N##_inc(T *dest, int pe);              \
    SHMEM_DEPRECATED SHMEM_API T shmem_##N##_fadd(T *dest, T value, int pe);       \
    SHMEM_DEPRECATED SHMEM_API void shmem_##N##_add(T *dest, T value, int pe);
SHMEM_DEPRECATED_AMO_TYPES_(SHMEM_DECLARE_AMO_DEPRECATED_)
SHMEM_DEPRECATED SHMEM_API float shmem_float_fetch(const float *source, int pe);
SHMEM_DEPRECATED SHMEM_API double shmem_double_fetch(const double *source, int pe);
SHMEM_DEPRECATED SHMEM_API void shmem_float_set(float *dest, float value, int pe);
SHMEM_DEPRECATED SHMEM_API void shmem_double_set(double *dest, double value, int pe);
SHMEM_DEPRECATED SHMEM_API float shmem_float_swap(float *dest, float value, int pe);
SHMEM_DEPRECATED SHMEM_API double shmem_double_swap(double *dest, double value, int pe);
SHMEM_DEPRECATED SHMEM_API long shmem_swap(long *dest, long value, int pe);

/* ---------------------------------------------------------- signals */
SHMEM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define SHMEM_DECLARE_PUT_SIGNAL_(T, N)                                                                       \
    SHMEM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,        \
                                          uint64_t signal, int sig_op, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);       \
    SHMEM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,    \
                                              uint64_t signal, int sig_op, int pe);                           \
    SHMEM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES_(SHMEM_DECLARE_PUT_SIGNAL_)
SHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
SHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ------------------------------------- point-to-point synchronization
 * Types of table 10: X(TYPE, TYPENAME). */
#define SHMEM_SYNC_TYPES_(X)                                                             \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)            \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)             \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_DECLARE_SYNC_(T, N)                                                                                \
    SHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                        \
    SHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,            \
                                                T cmp_value);                                                    \
    SHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status,   \
                                                 int cmp, T cmp_value);                                          \
    SHMEM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                                     T *cmp_values);                                             \
    SHMEM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                                       T *cmp_values);                                           \
    SHMEM_API size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,               \
                                                        const int *status, int cmp, T *cmp_values);              \
    SHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                               \
    SHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);       \
    SHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    SHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                           T cmp_value);                                                         \
    SHMEM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,              \
                                              T *cmp_values);                                                    \
    SHMEM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                                 T *cmp_values);                                                 \
    SHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                                                  int cmp, T *cmp_values);
SHMEM_SYNC_TYPES_(SHMEM_DECLARE_SYNC_)
/* Deprecated: wait while *ivar == cmp_value. */
#define SHMEM_DECLARE_WAIT_DEPRECATED_(T, N)                                           \
    SHMEM_DEPRECATED SHMEM_API void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM_DECLARE_WAIT_DEPRECATED_(int, int)
SHMEM_DECLARE_WAIT_DEPRECATED_(long, long)
SHMEM_DECLARE_WAIT_DEPRECATED_(long long, longlong)
SHMEM_DEPRECATED SHMEM_API void shmem_wait(long *ivar, long cmp_value);
SHMEM_DEPRECATED SHMEM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---------------------------------------------------------------- teams */
typedef struct shmem_team_s *shmem_team_t;
SHMEM_API extern struct shmem_team_s shmem_team_world_object_;
SHMEM_API extern struct shmem_team_s shmem_team_shared_object_;
#define SHMEM_TEAM_WORLD (&shmem_team_world_object_)
#define SHMEM_TEAM_SHARED (&shmem_team_shared_object_)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

SHMEM_API int shmem_team_my_pe(shmem_team_t team);
SHMEM_API int shmem_team_n_pes(shmem_team_t team);
SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                  long xaxis_mask, shmem_team_t *xaxis_team,
                                  const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                  shmem_team_t *yaxis_team);
SHMEM_API void shmem_team_destroy(shmem_team_t team);
SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---------------------------------------------------------- collectives
 * On teams: every member calls, in the same order. 0 on success. */
SHMEM_API int shmem_team_sync(shmem_team_t team);
#define SHMEM_DECLARE_COLL_(T, N)                                                                           \
    SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,         \
                                        int PE_root);                                                       \
    SHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,         \
                                        ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES_(SHMEM_DECLARE_COLL_)
SHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
SHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems);

/* Reductions (table 11): X(TYPE, TYPENAME). */
#define SHMEM_REDUCE_BITWISE_TYPES_(X)                                                       \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                   \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)                  \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)                   \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM_REDUCE_MINMAX_TYPES_(X)                                                        \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)             \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)                      \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                   \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)      \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)               \
    X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)                     \
    X(long double, longdouble)
#define SHMEM_REDUCE_ARITH_TYPES_(X) \
    SHMEM_REDUCE_MINMAX_TYPES_(X) X(double _Complex, complexd) X(float _Complex, complexf)
#define SHMEM_DECLARE_REDUCE_(T, N, OP) \
    SHMEM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM_DECLARE_REDUCE_BITWISE_(T, N) \
    SHMEM_DECLARE_REDUCE_(T, N, and) SHMEM_DECLARE_REDUCE_(T, N, or) SHMEM_DECLARE_REDUCE_(T, N, xor)
#define SHMEM_DECLARE_REDUCE_MINMAX_(T, N) SHMEM_DECLARE_REDUCE_(T, N, max) SHMEM_DECLARE_REDUCE_(T, N, min)
#define SHMEM_DECLARE_REDUCE_ARITH_(T, N) SHMEM_DECLARE_REDUCE_(T, N, sum) SHMEM_DECLARE_REDUCE_(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES_(SHMEM_DECLARE_REDUCE_BITWISE_)
SHMEM_REDUCE_MINMAX_TYPES_(SHMEM_DECLARE_REDUCE_MINMAX_)
SHMEM_REDUCE_ARITH_TYPES_(SHMEM_DECLARE_REDUCE_ARITH_)

/* ------------------------------------------ deprecated active-set forms
 * The members of the set PE_start, PE_start + 2^logPE_stride, ... (PE_size
 * of them) call; pSync is a symmetric array of the *_SYNC_SIZE longs, all
 * SHMEM_SYNC_VALUE before the call, as it leaves them. */
SHMEM_DEPRECATED SHMEM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_DEPRECATED SHMEM_API void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM_DECLARE_ACTIVE_SET_SIZED_(B)                                                                     \
    SHMEM_DEPRECATED SHMEM_API void shmem_broadcast##B(void *dest, const void *source, size_t nelems,          \
                                                       int PE_root, int PE_start, int logPE_stride,            \
                                                       int PE_size, long *pSync);                              \
    SHMEM_DEPRECATED SHMEM_API void shmem_collect##B(void *dest, const void *source, size_t nelems,            \
                                                     int PE_start, int logPE_stride, int PE_size, long *pSync); \
    SHMEM_DEPRECATED SHMEM_API void shmem_fcollect##B(void *dest, const void *source, size_t nelems,           \
                                                      int PE_start, int logPE_stride, int PE_size,             \
                                                      long *pSync);                                            \
    SHMEM_DEPRECATED SHMEM_API void shmem_alltoall##B(void *dest, const void *source, size_t nelems,           \
                                                      int PE_start, int logPE_stride, int PE_size,             \
                                                      long *pSync);                                            \
    SHMEM_DEPRECATED SHMEM_API void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,          \
                                                       ptrdiff_t sst, size_t nelems, int PE_start,             \
                                                       int logPE_stride, int PE_size, long *pSync);
SHMEM_DECLARE_ACTIVE_SET_SIZED_(32)
SHMEM_DECLARE_ACTIVE_SET_SIZED_(64)
#define SHMEM_TO_ALL_BITWISE_TYPES_(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES_(X) \
    SHMEM_TO_ALL_BITWISE_TYPES_(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_TO_ALL_ARITH_TYPES_(X) \
    SHMEM_TO_ALL_MINMAX_TYPES_(X) X(double _Complex, complexd) X(float _Complex, complexf)
#define SHMEM_DECLARE_TO_ALL_(T, N, OP)                                                                      \
    SHMEM_DEPRECATED SHMEM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce,         \
                                                              int PE_start, int logPE_stride, int PE_size,   \
                                                              T *pWrk, long *pSync);
#define SHMEM_DECLARE_TO_ALL_BITWISE_(T, N) \
    SHMEM_DECLARE_TO_ALL_(T, N, and) SHMEM_DECLARE_TO_ALL_(T, N, or) SHMEM_DECLARE_TO_ALL_(T, N, xor)
#define SHMEM_DECLARE_TO_ALL_MINMAX_(T, N) SHMEM_DECLARE_TO_ALL_(T, N, max) SHMEM_DECLARE_TO_ALL_(T, N, min)
#define SHMEM_DECLARE_TO_ALL_ARITH_(T, N) SHMEM_DECLARE_TO_ALL_(T, N, sum) SHMEM_DECLARE_TO_ALL_(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES_(SHMEM_DECLARE_TO_ALL_BITWISE_)
SHMEM_TO_ALL_MINMAX_TYPES_(SHMEM_DECLARE_TO_ALL_MINMAX_)
SHMEM_TO_ALL_ARITH_TYPES_(SHMEM_DECLARE_TO_ALL_ARITH_)

/* ------------------------------------------------ ordering, completion */
SHMEM_API void shmem_fence(void);
SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx);
SHMEM_API void shmem_quiet(void);
SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx);
SHMEM_API void shmem_barrier_all(void);
SHMEM_API void shmem_sync_all(void);

/* ---------------------------------------------------------------- locks
 * A lock is a symmetric long, zero before its first use. Waiters get it
 * in the order they asked. */
SHMEM_API void shmem_set_lock(long *lock);
SHMEM_API int shmem_test_lock(long *lock);
SHMEM_API void shmem_clear_lock(long *lock);

/* ---------------------------------------------------- context objects */
SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx);

#ifdef __cplusplus
}
#endif

/* C11: the type-generic names (shmem_put, shmem_atomic_fetch_add, ...). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include "shmem_generic.h"
#endif
#endif /* CCS_SHMEM_H */
