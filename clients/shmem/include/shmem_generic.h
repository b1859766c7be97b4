/*
 * The C11 type-generic names of OpenSHMEM 1.5 (included by shmem.h in C11
 * and later): shmem_put(dest, source, nelems, pe) picks shmem_long_put for
 * a long *dest, and shmem_put(ctx, dest, ...) the context form, by the
 * number of arguments. The types are those with names of their own (char
 * .. long double); the fixed-width and size types are typedefs of these
 * and take the same functions.
 */
#ifndef CCS_SHMEM_GENERIC_H
#define CCS_SHMEM_GENERIC_H

/* The name for 4 or 5 (or 3 or 4, ...) arguments: the context form takes one more. */
#define SHMEM_PICK3_(a, b, c, NAME, ...) NAME
#define SHMEM_PICK4_(a, b, c, d, NAME, ...) NAME
#define SHMEM_PICK5_(a, b, c, d, e, NAME, ...) NAME
#define SHMEM_PICK6_(a, b, c, d, e, f, NAME, ...) NAME
#define SHMEM_PICK7_(a, b, c, d, e, f, g, NAME, ...) NAME

/* _Generic over a pointer's type: one association per named type. */
#define SHMEM_RMA_GENERIC_(p, PRE, POST)                                                                 \
    _Generic((p), float *: PRE##float##POST, double *: PRE##double##POST,                                \
             long double *: PRE##longdouble##POST, char *: PRE##char##POST, signed char *: PRE##schar##POST, \
             short *: PRE##short##POST, int *: PRE##int##POST, long *: PRE##long##POST,                  \
             long long *: PRE##longlong##POST, unsigned char *: PRE##uchar##POST,                        \
             unsigned short *: PRE##ushort##POST, unsigned int *: PRE##uint##POST,                       \
             unsigned long *: PRE##ulong##POST, unsigned long long *: PRE##ulonglong##POST)
#define SHMEM_AMO_GENERIC_(p, PRE, POST)                                                                 \
    _Generic((p), int *: PRE##int##POST, long *: PRE##long##POST, long long *: PRE##longlong##POST,     \
             unsigned int *: PRE##uint##POST, unsigned long *: PRE##ulong##POST,                         \
             unsigned long long *: PRE##ulonglong##POST)
#define SHMEM_AMO_EXT_GENERIC_(p, PRE, POST)                                                             \
    _Generic((p), int *: PRE##int##POST, long *: PRE##long##POST, long long *: PRE##longlong##POST,     \
             unsigned int *: PRE##uint##POST, unsigned long *: PRE##ulong##POST,                         \
             unsigned long long *: PRE##ulonglong##POST, float *: PRE##float##POST,                      \
             double *: PRE##double##POST)
#define SHMEM_AMO_FETCH_GENERIC_(p, PRE, POST)                                                           \
    _Generic((p), const int *: PRE##int##POST, int *: PRE##int##POST, const long *: PRE##long##POST,     \
             long *: PRE##long##POST, const long long *: PRE##longlong##POST,                            \
             long long *: PRE##longlong##POST, const unsigned int *: PRE##uint##POST,                    \
             unsigned int *: PRE##uint##POST, const unsigned long *: PRE##ulong##POST,                   \
             unsigned long *: PRE##ulong##POST, const unsigned long long *: PRE##ulonglong##POST,        \
             unsigned long long *: PRE##ulonglong##POST, const float *: PRE##float##POST,                \
             float *: PRE##float##POST, const double *: PRE##double##POST, double *: PRE##double##POST)
#define SHMEM_AMO_BIT_GENERIC_(p, PRE, POST)                                                             \
    _Generic((p), unsigned int *: PRE##uint##POST, unsigned long *: PRE##ulong##POST,                    \
             unsigned long long *: PRE##ulonglong##POST)

/* RMA: the second argument of the context form is dest. */
#define SHMEM_RMA_PLAIN_(NAME, dest, ...) SHMEM_RMA_GENERIC_(dest, shmem_, _##NAME)(dest, __VA_ARGS__)
#define SHMEM_RMA_CTX_(NAME, ctx, dest, ...) SHMEM_RMA_GENERIC_(dest, shmem_ctx_, _##NAME)(ctx, dest, __VA_ARGS__)
#define shmem_put(...) SHMEM_PICK5_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(put, __VA_ARGS__)
#define shmem_get(...) SHMEM_PICK5_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_PICK5_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_PICK5_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(get_nbi, __VA_ARGS__)
#define shmem_iput(...) SHMEM_PICK7_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(iput, __VA_ARGS__)
#define shmem_iget(...) SHMEM_PICK7_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(iget, __VA_ARGS__)
#define shmem_p(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_RMA_CTX_, SHMEM_RMA_PLAIN_, _)(p, __VA_ARGS__)
/* shmem_g(source, pe) and shmem_g(ctx, source, pe): const pointers. */
#define SHMEM_G_GENERIC_(p, PRE)                                                                          \
    _Generic((p), const float *: PRE##float_g, float *: PRE##float_g, const double *: PRE##double_g,     \
             double *: PRE##double_g, const long double *: PRE##longdouble_g, long double *: PRE##longdouble_g, \
             const char *: PRE##char_g, char *: PRE##char_g, const signed char *: PRE##schar_g,           \
             signed char *: PRE##schar_g, const short *: PRE##short_g, short *: PRE##short_g,             \
             const int *: PRE##int_g, int *: PRE##int_g, const long *: PRE##long_g, long *: PRE##long_g,  \
             const long long *: PRE##longlong_g, long long *: PRE##longlong_g,                            \
             const unsigned char *: PRE##uchar_g, unsigned char *: PRE##uchar_g,                          \
             const unsigned short *: PRE##ushort_g, unsigned short *: PRE##ushort_g,                      \
             const unsigned int *: PRE##uint_g, unsigned int *: PRE##uint_g,                              \
             const unsigned long *: PRE##ulong_g, unsigned long *: PRE##ulong_g,                          \
             const unsigned long long *: PRE##ulonglong_g, unsigned long long *: PRE##ulonglong_g)
#define SHMEM_G_PLAIN_(source, pe) SHMEM_G_GENERIC_(source, shmem_)(source, pe)
#define SHMEM_G_CTX_(ctx, source, pe) SHMEM_G_GENERIC_(source, shmem_ctx_)(ctx, source, pe)
#define shmem_g(...) SHMEM_PICK3_(__VA_ARGS__, SHMEM_G_CTX_, SHMEM_G_PLAIN_, _)(__VA_ARGS__)

/* Atomics: the word (dest, or for fetch the source) is the first pointer
 * after the context, or after `fetch` for the _nbi forms. */
#define SHMEM_AMO_PLAIN_(KIND, NAME, dest, ...) SHMEM_##KIND##_GENERIC_(dest, shmem_, _atomic_##NAME)(dest, __VA_ARGS__)
#define SHMEM_AMO_CTX_(KIND, NAME, ctx, dest, ...)                                                        \
    SHMEM_##KIND##_GENERIC_(dest, shmem_ctx_, _atomic_##NAME)(ctx, dest, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO, fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO, add, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM_PICK3_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO, fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEM_PICK3_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO, inc, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEM_PICK5_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO, compare_swap, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_EXT, swap, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_EXT, set, __VA_ARGS__)
#define shmem_atomic_fetch(...) SHMEM_PICK3_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_FETCH, fetch, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, and, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, or, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM_PICK4_(__VA_ARGS__, SHMEM_AMO_CTX_, SHMEM_AMO_PLAIN_, _)(AMO_BIT, xor, __VA_ARGS__)

/* Point-to-point synchronization on the word's type. */
#define SHMEM_SYNC_GENERIC_(p, POST)                                                                     \
    _Generic((p), int *: shmem_int_##POST, long *: shmem_long_##POST, long long *: shmem_longlong_##POST, \
             unsigned int *: shmem_uint_##POST, unsigned long *: shmem_ulong_##POST,                     \
             unsigned long long *: shmem_ulonglong_##POST)
#define shmem_wait_until(ivar, cmp, value) SHMEM_SYNC_GENERIC_(ivar, wait_until)(ivar, cmp, value)
#define shmem_test(ivar, cmp, value) SHMEM_SYNC_GENERIC_(ivar, test)(ivar, cmp, value)
#define shmem_wait_until_all(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, wait_until_all)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, wait_until_any)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, wait_until_some)(ivars, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, test_all)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, test_any)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEM_SYNC_GENERIC_(ivars, test_some)(ivars, __VA_ARGS__)

/* Team reductions on dest's type. */
#define SHMEM_REDUCE_GENERIC_(p, OP)                                                                      \
    _Generic((p), char *: shmem_char_##OP##_reduce, signed char *: shmem_schar_##OP##_reduce,            \
             short *: shmem_short_##OP##_reduce, int *: shmem_int_##OP##_reduce,                         \
             long *: shmem_long_##OP##_reduce, long long *: shmem_longlong_##OP##_reduce,                \
             unsigned char *: shmem_uchar_##OP##_reduce, unsigned short *: shmem_ushort_##OP##_reduce,   \
             unsigned int *: shmem_uint_##OP##_reduce, unsigned long *: shmem_ulong_##OP##_reduce,       \
             unsigned long long *: shmem_ulonglong_##OP##_reduce, float *: shmem_float_##OP##_reduce,    \
             double *: shmem_double_##OP##_reduce, long double *: shmem_longdouble_##OP##_reduce)
#define SHMEM_REDUCE_BIT_GENERIC_(p, OP)                                                                  \
    _Generic((p), unsigned char *: shmem_uchar_##OP##_reduce, unsigned short *: shmem_ushort_##OP##_reduce, \
             unsigned int *: shmem_uint_##OP##_reduce, unsigned long *: shmem_ulong_##OP##_reduce,       \
             unsigned long long *: shmem_ulonglong_##OP##_reduce)
#define shmem_sum_reduce(team, dest, source, n) SHMEM_REDUCE_GENERIC_(dest, sum)(team, dest, source, n)
#define shmem_prod_reduce(team, dest, source, n) SHMEM_REDUCE_GENERIC_(dest, prod)(team, dest, source, n)
#define shmem_max_reduce(team, dest, source, n) SHMEM_REDUCE_GENERIC_(dest, max)(team, dest, source, n)
#define shmem_min_reduce(team, dest, source, n) SHMEM_REDUCE_GENERIC_(dest, min)(team, dest, source, n)
#define shmem_and_reduce(team, dest, source, n) SHMEM_REDUCE_BIT_GENERIC_(dest, and)(team, dest, source, n)
#define shmem_or_reduce(team, dest, source, n) SHMEM_REDUCE_BIT_GENERIC_(dest, or)(team, dest, source, n)
#define shmem_xor_reduce(team, dest, source, n) SHMEM_REDUCE_BIT_GENERIC_(dest, xor)(team, dest, source, n)

/* Team collectives on dest's type. */
#define SHMEM_COLL_GENERIC_(p, NAME) SHMEM_RMA_GENERIC_(p, shmem_, _##NAME)
#define shmem_broadcast(team, dest, ...) SHMEM_COLL_GENERIC_(dest, broadcast)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) SHMEM_COLL_GENERIC_(dest, collect)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) SHMEM_COLL_GENERIC_(dest, fcollect)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) SHMEM_COLL_GENERIC_(dest, alltoall)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SHMEM_COLL_GENERIC_(dest, alltoalls)(team, dest, __VA_ARGS__)

#endif /* CCS_SHMEM_GENERIC_H */
