/*
 * CCS datadescs: byte layouts of noncontiguous data (no element types).
 *
 * Constructors follow MPI's datatype constructors over MPI_BYTE, with 64-bit
 * counts, displacements and sizes. A datadesc must be committed before it
 * describes data to pack, unpack or walk. Handles are reference counted:
 * freeing one that another datadesc was built from is safe.
 *
 * Bounds follow the MPI standard (lb, ub, extent, true_lb, true_extent),
 * including negative strides and displacements and resized types with zero
 * or negative extent. Bytes have no alignment, so a struct adds no padding:
 * the extent of a struct is exactly max(ub of its blocks) - min(lb of its
 * blocks), or what lb/ub markers (from a resized member) make it.
 *
 * Any size or displacement computation that would overflow 64 bits fails
 * with CCS_ERR_OVERFLOW instead of wrapping.
 */
#ifndef CCS_DATADESC_H
#define CCS_DATADESC_H

#include <ccs/ccs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ccs_datadesc_t is declared in ccs.h. */

/* One byte: the base of every layout. Predefined, always committed. */
CCS_API extern struct ccs_datadesc_s ccs_datadesc_byte_;
#define CCS_BYTE (&ccs_datadesc_byte_)

/* Most stride levels ccs_datadesc_strided accepts (ARMCI's limit is 8). */
#define CCS_DATADESC_MAX_STRIDE_LEVELS 16

typedef enum ccs_datadesc_order {
    CCS_ORDER_C = 0,       /* last dimension varies fastest  */
    CCS_ORDER_FORTRAN = 1  /* first dimension varies fastest */
} ccs_datadesc_order_t;

/* ---------------------------------------------------------- constructors */
/* Element strides and displacements are in units of old's extent; "h"
 * variants take bytes. Every constructor returns a new, uncommitted handle. */
CCS_API ccs_status_t ccs_datadesc_contiguous(int64_t count, ccs_datadesc_t old, ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_vector(int64_t count, int64_t blocklength, int64_t stride,
                                         ccs_datadesc_t old, ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_hvector(int64_t count, int64_t blocklength, int64_t stride_bytes,
                                          ccs_datadesc_t old, ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_indexed(int64_t count, const int64_t *blocklengths,
                                          const int64_t *displacements, ccs_datadesc_t old,
                                          ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_hindexed(int64_t count, const int64_t *blocklengths,
                                           const int64_t *byte_displacements, ccs_datadesc_t old,
                                           ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_indexed_block(int64_t count, int64_t blocklength,
                                                const int64_t *displacements, ccs_datadesc_t old,
                                                ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_hindexed_block(int64_t count, int64_t blocklength,
                                                 const int64_t *byte_displacements, ccs_datadesc_t old,
                                                 ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_struct(int64_t count, const int64_t *blocklengths,
                                         const int64_t *byte_displacements, const ccs_datadesc_t *types,
                                         ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_resized(ccs_datadesc_t old, int64_t lb, int64_t extent, ccs_datadesc_t *out);
/* order is a ccs_datadesc_order_t, taken as int so that any value is
 * checked (CCS_ERR_INVALID_ARG), not undefined. */
CCS_API ccs_status_t ccs_datadesc_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes,
                                           const int64_t *starts, int order, ccs_datadesc_t old,
                                           ccs_datadesc_t *out);
CCS_API ccs_status_t ccs_datadesc_dup(ccs_datadesc_t old, ccs_datadesc_t *out);

/* ARMCI strided form: count[0] contiguous bytes; for level i = 1..levels,
 * count[i] repetitions of level i-1, stride[i-1] bytes apart. */
CCS_API ccs_status_t ccs_datadesc_strided(int stride_levels, const int64_t *count, const int64_t *stride,
                                          ccs_datadesc_t *out);
/* An I/O vector: n pieces of lengths[i] bytes at offsets[i]. */
CCS_API ccs_status_t ccs_datadesc_iov(int64_t n, const int64_t *offsets, const int64_t *lengths,
                                      ccs_datadesc_t *out);

CCS_API ccs_status_t ccs_datadesc_commit(ccs_datadesc_t dd);
/* Releases the handle and sets *dd to NULL. CCS_BYTE cannot be freed. */
CCS_API ccs_status_t ccs_datadesc_free(ccs_datadesc_t *dd);

/* ---------------------------------------------------------------- queries */
CCS_API ccs_status_t ccs_datadesc_size(ccs_datadesc_t dd, int64_t *size);
CCS_API ccs_status_t ccs_datadesc_extent(ccs_datadesc_t dd, int64_t *lb, int64_t *extent);
CCS_API ccs_status_t ccs_datadesc_true_extent(ccs_datadesc_t dd, int64_t *true_lb, int64_t *true_extent);
/* Contiguous blocks in one element after merging (needs commit). */
CCS_API ccs_status_t ccs_datadesc_num_blocks(ccs_datadesc_t dd, int64_t *blocks);
/* Whether `count` elements form one contiguous run (needs commit). */
CCS_API ccs_status_t ccs_datadesc_is_contiguous(ccs_datadesc_t dd, int64_t count, int *flag);

/* ------------------------------------------------------- pack and unpack */
/* Packs bytes [offset, offset + max_bytes) of the packed stream of `count`
 * elements at `src` into `dst`. *done: bytes written (less than max_bytes
 * only at the end of the stream). Calls carry no state: any segment, in any
 * order, as pipelines and AM fragments need. */
CCS_API ccs_status_t ccs_datadesc_pack(const void *src, int64_t count, ccs_datadesc_t dd, int64_t offset,
                                       void *dst, int64_t max_bytes, int64_t *done);
/* The reverse: bytes [offset, offset + max_bytes) of the packed stream, read
 * from `src`, go to their places in the `count` elements at `dst`. */
CCS_API ccs_status_t ccs_datadesc_unpack(const void *src, int64_t max_bytes, void *dst, int64_t count,
                                         ccs_datadesc_t dd, int64_t offset, int64_t *done);

typedef struct ccs_datadesc_iovec {
    void *base;
    int64_t length;
} ccs_datadesc_iovec_t;

/* Contiguous pieces of the stream from `offset` on, at most max_entries and
 * max_bytes, adjacent pieces merged. *entries: pieces written; *bytes: their
 * total (resume at offset + *bytes). */
CCS_API ccs_status_t ccs_datadesc_iov_walk(const void *base, int64_t count, ccs_datadesc_t dd, int64_t offset,
                                           ccs_datadesc_iovec_t *iov, int64_t max_entries, int64_t max_bytes,
                                           int64_t *entries, int64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif /* CCS_DATADESC_H */
