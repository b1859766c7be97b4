/*
 * CCS memory registration and one-sided operations (put, get, fences).
 *
 *   ccs_mem_t mem;
 *   ccs_mem_register(buf, len, &mem);            // cached: cheap when repeated
 *   ccs_rkey_pack(mem, key, &key_len);           // ship key to the others
 *   ...
 *   ccs_rkey_t rk;
 *   ccs_rkey_unpack(owner, key, key_len, &rk);   // on the others
 *   ccs_put(ctx, owner, src, 8, remote_addr, rk, &done);
 *   ccs_fence(ctx, owner);                       // everything issued before is complete
 *
 * Or name only (owner, remote address) with CCS_RKEY_IMPLICIT: the core
 * asks the owner for the key once and caches it; the owner answers only
 * for memory it registered (or, after ccs_mem_expose_all(1), any memory).
 *
 * RMA operations are not ordered with each other; conflicting concurrent
 * accesses are not errors (the bytes are then unspecified). Completions
 * (callback and/or counter) run inside ccs_progress. Remote ranges are
 * checked against the key's region: an access outside it completes with
 * CCS_ERR_OUT_OF_RANGE and touches nothing. Threads: as the rest of CCS
 * (ccs_init_params_t.thread_level).
 */
#ifndef CCS_RMA_H
#define CCS_RMA_H

#include <ccs/ccs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A local registration. A stale handle (deregistered) is detected. */
typedef struct ccs_mem {
    uint64_t id;
} ccs_mem_t;

/* A remote key unpacked for one owner; {0} is CCS_RKEY_IMPLICIT. */
typedef struct ccs_rkey {
    uint64_t id;
} ccs_rkey_t;

/* CCS_RKEY_SYMMETRIC: remote_addr is an address in this process's part of
 * a symmetric allocation (ccs_mem_alloc_symmetric, below); the operation
 * reaches the same offset in the target's part. No key is ever issued
 * with this value. */
#ifdef __cplusplus
#define CCS_RKEY_IMPLICIT (ccs_rkey_t{0})
#define CCS_RKEY_SYMMETRIC (ccs_rkey_t{0xffffffff00000000ull})
#else
#define CCS_RKEY_IMPLICIT ((ccs_rkey_t){0})
#define CCS_RKEY_SYMMETRIC ((ccs_rkey_t){0xffffffff00000000ull})
#endif

/* Makes [addr, addr + length) reachable by other processes' put and get.
 * Registrations are cached: registering pages already registered costs a
 * lookup, and deregistered pages stay registered until the unused total
 * passes CCS_RCACHE_MAX_UNUSED. length 0 is allowed (a key that reaches
 * nothing). CCS_ERR_INVALID_MEMORY for a range that reaches past the end of
 * the address space or is not all mapped. */
CCS_API ccs_status_t ccs_mem_register(void *addr, size_t length, ccs_mem_t *mem);
/* Who carries out CCS atomics on a registration's words (see atomics,
 * below): one mechanism per registration, chosen when it is made. */
typedef enum ccs_atomics_by {
    CCS_ATOMICS_BY_CPU = 0,     /* the CPU's atomic instructions (ccs_mem_register) */
    CCS_ATOMICS_BY_NETWORK = 1  /* the network adapter's own atomics               */
} ccs_atomics_by_t;
/* ccs_mem_register, choosing the mechanism of atomics on the memory.
 * CCS_ATOMICS_BY_NETWORK (as GASNet-EX's atomic domains and UCP's atomics):
 * every ccs_atomic on it, from every process, its owner too, is carried
 * out by the transport's own atomics, the network adapter's where it has
 * them; the indexed put (CPU atomics) is refused on it. Errors:
 * CCS_ERR_UNSUPPORTED when no transport of this process carries out
 * atomics itself (ccs_peer_query: CCS_PEER_NETWORK_ATOMICS);
 * CCS_ERR_INVALID_ARG when the range overlaps a live registration of the
 * other mechanism (ccs_mem_register then refuses the same overlap), or
 * `by` is not a ccs_atomics_by_t. Deregister with ccs_mem_deregister. */
CCS_API ccs_status_t ccs_mem_register_atomics(void *addr, size_t length, int by, ccs_mem_t *mem);
/* CCS_ERR_INVALID_MEMORY for a handle never registered, already
 * deregistered, or from ccs_mem_alloc (free that with ccs_mem_free).
 * Every key packed for the registration is stale from here on (see
 * ccs_rkey_pack). */
CCS_API ccs_status_t ccs_mem_deregister(ccs_mem_t mem);
/* Allocates `length` bytes (zeroed, page aligned) that other processes on
 * this node can map, registered: put and get to it from there become plain
 * loads and stores instead of system calls. Free with ccs_mem_free (not
 * ccs_mem_deregister). CCS_ERR_NO_RESOURCES when `length` is more than
 * this node's memory and swap could ever back (the pages would only fault
 * later). */
CCS_API ccs_status_t ccs_mem_alloc(size_t length, void **addr, ccs_mem_t *mem);
/* Ends the block's registration (its keys are stale) and unmaps it.
 * CCS_ERR_INVALID_MEMORY while a ccs_mem_register registration inside the
 * block is still live: deregister it first. */
CCS_API ccs_status_t ccs_mem_free(ccs_mem_t mem);

/* ------------------------------------------------ symmetric allocation
 * Collective over all processes of the job, as OpenSHMEM's shmem_malloc
 * and ARMCI_Malloc: each process allocates its part (`length` may differ
 * between processes, 0 too), shareable and registered as by
 * ccs_mem_alloc, and every process's key is exchanged once. Every part
 * starts at the same virtual address where every process could map it
 * there (the usual case: the address space is free at the address rank 0
 * chose, or at one a process that found it taken chose instead, a few
 * tried); otherwise, or with CCS_SYMMETRIC_ADDRESS=offset, each part lies
 * where its process mapped it and the same offset names the same
 * location. Either way put, get, atomics and accumulate take the address
 * of the location in the caller's own part with CCS_RKEY_SYMMETRIC:
 *
 *   double *x;                                   // on every process
 *   ccs_mem_alloc_symmetric(n * sizeof *x, (void **)&x, &mem);
 *   ccs_put(ctx, peer, src, 8, (uint64_t)&x[i], CCS_RKEY_SYMMETRIC, NULL);
 *
 * Each part is addressable up to the longest part's length (accesses
 * beyond the target's own part are CCS_ERR_OUT_OF_RANGE). Every process
 * must call it, in the same order as the other collective calls; a process
 * whose arguments are bad, or that cannot allocate, fails the call on
 * every process (each with the reason) and nothing stays allocated.
 * CCS_ERR_PEER_FAILED when a process failed. */
CCS_API ccs_status_t ccs_mem_alloc_symmetric(size_t length, void **addr, ccs_mem_t *mem);
/* Collective: every process frees its part of the same allocation. Finish
 * the operations on it first (ccs_fence); it returns once every process
 * has called it, and the parts are gone everywhere. CCS_ERR_INVALID_MEMORY
 * on every process when any process passes a handle that is not a
 * symmetric allocation's, or not the same one (nothing is freed then). */
CCS_API ccs_status_t ccs_mem_free_symmetric(ccs_mem_t mem);
/* Whether every part of the symmetric allocation `mem` starts at the same
 * address (*same_address 1), and the span every part is addressable to. */
CCS_API ccs_status_t ccs_mem_symmetric_query(ccs_mem_t mem, int *same_address, size_t *span);
/* The address in `rank`'s part that `local` (an address in this process's
 * part) names, e.g. for an ARMCI_Malloc pointer table.
 * CCS_ERR_NOT_REGISTERED where `local` is in no symmetric allocation. */
CCS_API ccs_status_t ccs_mem_symmetric_address(const void *local, int rank, uint64_t *remote);
/* As ccs_rkey_ptr for `length` bytes of `rank`'s part at the offset of
 * `local` (OpenSHMEM's shmem_ptr): on this node the parts are shared, so
 * node peers' parts are mapped here where the transport maps memory. */
CCS_API ccs_status_t ccs_mem_symmetric_ptr(const void *local, int rank, size_t length, void **ptr);

/* Whether implicit-key requests from other processes may reach memory this
 * process never registered (it is then registered on demand). Off by
 * default; CCS_RMA_EXPOSE=all turns it on for the whole process. */
CCS_API ccs_status_t ccs_mem_expose_all(int enable);

/* The key other processes of this job need to reach `mem`. *length:
 * capacity in, size out; buffer NULL asks for the size only.
 * The bytes end in a tag keyed with a secret of the job (drawn by rank 0 at
 * start-up): ccs_rkey_unpack refuses any other bytes. A key is good until
 * the registration ends (ccs_mem_deregister, ccs_mem_free); then every
 * put, get and ccs_rkey_ptr through it returns CCS_ERR_INVALID_KEY, also
 * when the owner registers the same memory again. An operation that
 * passed its check before the owner deregistered may still land: finish
 * (fence) and tell the owner before it deregisters memory others write. */
CCS_API ccs_status_t ccs_rkey_pack(ccs_mem_t mem, void *buffer, size_t *length);
/* Unpacks a key `owner` packed. CCS_ERR_INVALID_KEY when the bytes are not
 * a key of this job (damaged, cut, altered), were packed by another
 * process, or (where the owner's liveness is readable here: its node) name
 * a registration that has ended. */
CCS_API ccs_status_t ccs_rkey_unpack(int owner, const void *buffer, size_t length, ccs_rkey_t *rkey);
CCS_API ccs_status_t ccs_rkey_release(ccs_rkey_t rkey);
/* Where `length` bytes at remote_addr of the key's owner are mapped in this
 * process, for plain loads and stores (OpenSHMEM's shmem_ptr, a UPC cast to
 * local): *ptr. The caller's own memory and memory from ccs_mem_alloc of a
 * process on this node are mapped where the transport can map them
 * (CCS_PEER_MAPS_MEMORY); other processes' registered heap memory, other
 * nodes and a failed owner are not: then *ptr is NULL and the call returns
 * CCS_ERR_UNSUPPORTED with the reason in ccs_last_error(). Loads and stores
 * through it are not RMA operations: no completion or fence covers them.
 * The pointer stays mapped until the key is released (after the owner
 * frees the block it reaches pages nobody else sees). CCS_ERR_INVALID_KEY
 * for a released, implicit or stale key, CCS_ERR_OUT_OF_RANGE outside the
 * key's region. */
CCS_API ccs_status_t ccs_rkey_ptr(ccs_rkey_t rkey, uint64_t remote_addr, size_t length, void **ptr);

/* LAPI-style completion counter, owned by the caller: `value` counts
 * completed operations, `errors` those that failed, `first_error` the
 * status of the first failure. Put one in ccs_completion_t.counter.
 * `value` is incremented atomically, with release order, wherever the
 * operation completes (the progress thread too): a thread that polls it
 * itself reads it with an atomic acquire load
 * (__atomic_load_n(&c.value, __ATOMIC_ACQUIRE)), then errors and
 * first_error are up to date. */
typedef struct ccs_counter {
    uint64_t value;
    uint64_t errors;
    ccs_status_t first_error;
} ccs_counter_t;

CCS_API ccs_status_t ccs_counter_init(ccs_counter_t *counter);
/* Progresses until counter->value >= value. Returns first_error if any
 * counted operation failed, CCS_ERR_PEER_FAILED rather than waiting
 * forever for a dead peer. */
CCS_API ccs_status_t ccs_counter_wait(ccs_counter_t *counter, uint64_t value);

/* Put `length` bytes from src to remote_addr in `target`'s memory. The
 * completion fires when the data is visible at the target. Without a
 * completion, src may be reused on return. */
CCS_API ccs_status_t ccs_put(ccs_context_t context, int target, const void *src, size_t length,
                             uint64_t remote_addr, ccs_rkey_t rkey, const ccs_completion_t *completion);
/* Get `length` bytes from remote_addr in `target`'s memory into dst. The
 * completion fires when the data is in dst. */
CCS_API ccs_status_t ccs_get(ccs_context_t context, int target, void *dst, size_t length,
                             uint64_t remote_addr, ccs_rkey_t rkey, const ccs_completion_t *completion);

/* Blocking forms: issue, then wait for this operation only. */
CCS_API ccs_status_t ccs_put_sync(ccs_context_t context, int target, const void *src, size_t length,
                                  uint64_t remote_addr, ccs_rkey_t rkey);
CCS_API ccs_status_t ccs_get_sync(ccs_context_t context, int target, void *dst, size_t length,
                                  uint64_t remote_addr, ccs_rkey_t rkey);

/* Noncontiguous forms: `src_count` elements of the committed datadesc
 * src_dd at src (see ccs/datadesc.h), to `dst_count` elements of dst_dd
 * laid out from remote_addr in the target (and the reverse for get). The
 * counts may differ when both sides hold the same number of bytes; the
 * data moves in stream order. CCS_BYTE with a count of bytes is the
 * contiguous case. */
CCS_API ccs_status_t ccs_put_datadesc(ccs_context_t context, int target, const void *src, int64_t src_count,
                                      ccs_datadesc_t src_dd, uint64_t remote_addr, int64_t dst_count,
                                      ccs_datadesc_t dst_dd, ccs_rkey_t rkey, const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_get_datadesc(ccs_context_t context, int target, void *dst, int64_t dst_count,
                                      ccs_datadesc_t dst_dd, uint64_t remote_addr, int64_t src_count,
                                      ccs_datadesc_t src_dd, ccs_rkey_t rkey, const ccs_completion_t *completion);

/* With a notification: once the data has landed at the target (put) or
 * in dst (get), handler `handler_id` of this context runs at the target
 * with `args` and no payload, its source being the caller (DMCS put_op /
 * get_op). The completion fires when the data moved and the notification
 * is on its way. */
CCS_API ccs_status_t ccs_put_notify(ccs_context_t context, int target, const void *src, size_t length,
                                    uint64_t remote_addr, ccs_rkey_t rkey, uint16_t handler_id,
                                    const uint64_t *args, size_t nargs, const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_get_notify(ccs_context_t context, int target, void *dst, size_t length,
                                    uint64_t remote_addr, ccs_rkey_t rkey, uint16_t handler_id,
                                    const uint64_t *args, size_t nargs, const ccs_completion_t *completion);

/* The indexed put, a remote queue append: the 64-bit word at pointer_addr
 * of `target` holds an address there; it is advanced by `length` and the
 * `length` bytes at src go where it pointed, as one operation, so any
 * number of concurrent appenders (and ccs_atomic on the word) never lose
 * or overlap an element. `placed`, if not NULL, receives the address the
 * data went to by the time the completion runs. An append that would pass
 * `limit` (the queue's end, exclusive) or the key's region changes
 * nothing and fails with CCS_ERR_OUT_OF_RANGE ("the queue is full"),
 * from the call where the target's memory is mapped here, else in the
 * completion. The word moves before the data lands: a reader of the
 * queue learns that an element is complete by other means (a flag in the
 * element, a notification, a barrier). The pointer and the queue are
 * reached through one `rkey` (or CCS_RKEY_IMPLICIT, CCS_RKEY_SYMMETRIC:
 * then pointer_addr and limit are addresses in the caller's part, while
 * the word's value and *placed are addresses in the target's part);
 * pointer_addr must be aligned to 8 bytes. Without a completion src is
 * reusable on return. */
CCS_API ccs_status_t ccs_put_indexed(ccs_context_t context, int target, const void *src, size_t length,
                                     uint64_t pointer_addr, uint64_t limit, ccs_rkey_t rkey, uint64_t *placed,
                                     const ccs_completion_t *completion);
/* The same, returning once the data has landed (and *placed is written). */
CCS_API ccs_status_t ccs_put_indexed_sync(ccs_context_t context, int target, const void *src, size_t length,
                                          uint64_t pointer_addr, uint64_t limit, ccs_rkey_t rkey, uint64_t *placed);

/* ------------------------------------------------------------ atomics
 * One 32- or 64-bit integer word at the target (`type` a ccs_int_type_t,
 * below; signed and unsigned differ only in which operands fit, and
 * arithmetic wraps). The registration holding the word says who carries
 * its atomics out, and its keys carry that choice to every process:
 *  - CCS_ATOMICS_BY_CPU (every registration but those below, and every
 *    ccs_mem_alloc block): the CPU's atomic instructions on the target's
 *    memory, here where it is mapped (this process, a node peer's
 *    ccs_mem_alloc block), else by the target inside its progress, from
 *    an active message;
 *  - CCS_ATOMICS_BY_NETWORK (ccs_mem_register_atomics): the transport's
 *    own atomics (UCX's ucp_atomic_op_nbx), for the owner's own atomics
 *    too; CCS_ERR_UNSUPPORTED, changing nothing, to a peer the transport's
 *    lanes reach only by emulation (UCX over TCP).
 * One word is never updated by both (registrations of the two overlap
 * nowhere), so all CCS atomics on it are atomic with respect to each
 * other whatever path each took, from any number of processes. Put, get,
 * accumulate, plain loads and stores of the same word at the same time
 * are the caller's race (the word's bytes are then unspecified), as in
 * OpenSHMEM. */
typedef enum ccs_atomic_op {
    CCS_ATOMIC_ADD = 0,   /* word += operand (increment: operand 1)          */
    CCS_ATOMIC_AND = 1,   /* word &= operand                                  */
    CCS_ATOMIC_OR = 2,    /* word |= operand                                  */
    CCS_ATOMIC_XOR = 3,   /* word ^= operand                                  */
    CCS_ATOMIC_SWAP = 4,  /* word = operand                                   */
    CCS_ATOMIC_CSWAP = 5, /* if (word == compare) word = operand              */
    CCS_ATOMIC_FETCH = 6, /* nothing changes: reads the word                  */
    CCS_ATOMIC_SET = 7    /* word = operand, without fetching                 */
} ccs_atomic_op_t;

/* Applies `op` to the word of `type` at remote_addr (aligned to its size)
 * of `target`, reached through `rkey` (or CCS_RKEY_IMPLICIT) as ccs_put.
 * `fetched`, if not NULL, receives the value the word held before, by the
 * time the completion runs; it must be aligned to the word's size. FETCH
 * needs it, SET takes none. operand and compare must fit the type: an
 * unsigned 32-bit value, or for CCS_INT32 an int64_t in int32_t's range
 * (passed as uint64_t). Errors as ccs_put's (a key that does not cover the
 * word: CCS_ERR_OUT_OF_RANGE), and CCS_ERR_INVALID_ARG for an unknown op
 * or type, a misaligned address or result, or an operand that does not
 * fit; nothing is changed then. op and type are taken as int so that any
 * value is checked, not undefined. */
CCS_API ccs_status_t ccs_atomic(ccs_context_t context, int target, int op, int type, uint64_t remote_addr,
                                ccs_rkey_t rkey, uint64_t operand, uint64_t compare, void *fetched,
                                const ccs_completion_t *completion);
/* The same, returning once the word was changed (and *fetched written). */
CCS_API ccs_status_t ccs_atomic_sync(ccs_context_t context, int target, int op, int type, uint64_t remote_addr,
                                     ccs_rkey_t rkey, uint64_t operand, uint64_t compare, void *fetched);

/* ---------------------------------------------------------- accumulate
 * dst = dst op src, element by element, into the target's memory, as
 * Global Arrays' ARMCI_Acc and MPI_Accumulate do. Every element is updated
 * atomically with respect to every other accumulate on it, from any number
 * of processes: into a node peer's ccs_mem_alloc block mapped here the
 * caller applies it in place, holding the block's lock; anywhere else the
 * target applies it in its progress, in pieces of 64 KiB to 1 MiB (so a
 * large one is never buffered whole), taking the same lock for a block.
 * Put, get, atomics and plain stores to the same elements at the same time
 * are the caller's race. */
typedef enum ccs_acc_type {
    CCS_ACC_INT32 = 0,
    CCS_ACC_UINT32 = 1,
    CCS_ACC_INT64 = 2,
    CCS_ACC_UINT64 = 3,
    CCS_ACC_FLOAT = 4,
    CCS_ACC_DOUBLE = 5,
    CCS_ACC_COMPLEX_FLOAT = 6,  /* two floats: real, imaginary             */
    CCS_ACC_COMPLEX_DOUBLE = 7  /* two doubles                             */
} ccs_acc_type_t;
typedef enum ccs_acc_op {
    CCS_ACC_SUM = 0,      /* dst += scale * src (scale NULL: 1)               */
    CCS_ACC_PROD = 1,     /* dst *= src                                       */
    CCS_ACC_MIN = 2,      /* dst = min(dst, src); not for complex types       */
    CCS_ACC_MAX = 3,      /* dst = max(dst, src); not for complex types       */
    CCS_ACC_REPLACE = 4   /* dst = src                                        */
} ccs_acc_op_t;

/* Accumulates the `length` bytes at src (whole elements of `type`) into
 * remote_addr of `target` (aligned to the element's size, 8 for complex
 * double), reached through `rkey` (or CCS_RKEY_IMPLICIT) as ccs_put.
 * `scale` points to one element of `type` (SUM only; NULL means 1).
 * `fetched`, if not NULL, receives the `length` bytes the target held
 * before (get-accumulate), by the time the completion runs. Without a
 * completion src is reusable on return. Errors as ccs_put's, and
 * CCS_ERR_INVALID_ARG for an unknown op or type, MIN or MAX on complex
 * numbers, a length that is not whole elements, a misaligned address, or
 * a scale with another op; nothing is changed then. */
CCS_API ccs_status_t ccs_accumulate(ccs_context_t context, int target, int op, int type, const void *src,
                                    size_t length, uint64_t remote_addr, ccs_rkey_t rkey, const void *scale,
                                    void *fetched, const ccs_completion_t *completion);
/* The same, returning once every element was updated (and fetched). */
CCS_API ccs_status_t ccs_accumulate_sync(ccs_context_t context, int target, int op, int type, const void *src,
                                         size_t length, uint64_t remote_addr, ccs_rkey_t rkey, const void *scale,
                                         void *fetched);

/* The noncontiguous form: `src_count` elements of the committed datadesc
 * src_dd at src into `dst_count` elements of dst_dd laid out from
 * remote_addr in the target, in stream order as ccs_put_datadesc (both
 * sides the same number of bytes). The datadescs stay byte layouts: every
 * contiguous piece of either side must hold whole elements of `type`, and
 * the target's pieces must be aligned for them, else CCS_ERR_INVALID_ARG
 * naming the piece (nothing changed). `fetched`, if not NULL, receives the
 * old values contiguously, in stream order. */
CCS_API ccs_status_t ccs_accumulate_datadesc(ccs_context_t context, int target, int op, int type, const void *src,
                                             int64_t src_count, ccs_datadesc_t src_dd, uint64_t remote_addr,
                                             int64_t dst_count, ccs_datadesc_t dst_dd, ccs_rkey_t rkey,
                                             const void *scale, void *fetched, const ccs_completion_t *completion);

/* Completes every RMA operation this context issued to `target` (or to
 * anyone) before the call, their callbacks and counters included. ccs_fence_global is collective: when it returns
 * anywhere, every process's earlier operations in this context are
 * complete. */
CCS_API ccs_status_t ccs_fence(ccs_context_t context, int target);
CCS_API ccs_status_t ccs_fence_all(ccs_context_t context);
CCS_API ccs_status_t ccs_fence_global(ccs_context_t context);

/* Waiting for a word that another process writes (a flag set by ccs_put or
 * by a store through ccs_rkey_ptr), as OpenSHMEM's shmem_wait_until:
 * progresses until the integer of `type` at `ivar` compares to `value`
 * (converted to `type`) as `cmp` says, `*ivar cmp value`. Each poll is an
 * atomic acquire load, so what the writer stored before the word is
 * visible after the call. After the first 200 ns polls are spaced by
 * pause instructions (CCS_WAIT_GAP_NS): where lines pass slowly between
 * cores a tight poll takes the line back while the writer's store is on
 * its way. After CCS_WAIT_SPIN_US the wait sleeps in slices of up to
 * CCS_WAIT_SLEEP_MAX_US (a put brings no event to wake it). CCS_OK when
 * the condition holds (at once if it already does); CCS_ERR_PEER_FAILED
 * if a peer failure is detected during the wait and the condition still
 * does not hold (the writer may be gone), or, where a failure was known
 * before the wait (the progress thread found it), once the condition has
 * not held for 2 s more; CCS_ERR_INVALID_ARG for a NULL or misaligned ivar
 * or an unknown type or comparison; CCS_ERR_IN_HANDLER inside a handler or
 * callback. */
typedef enum ccs_int_type {
    CCS_INT32 = 0,
    CCS_UINT32 = 1,
    CCS_INT64 = 2,
    CCS_UINT64 = 3
} ccs_int_type_t;
typedef enum ccs_cmp {
    CCS_CMP_EQ = 0,
    CCS_CMP_NE = 1,
    CCS_CMP_GT = 2,
    CCS_CMP_GE = 3,
    CCS_CMP_LT = 4,
    CCS_CMP_LE = 5
} ccs_cmp_t;
/* type is a ccs_int_type_t and cmp a ccs_cmp_t, taken as int so that any
 * value a caller passes is checked, not undefined. */
CCS_API ccs_status_t ccs_wait_until(const void *ivar, int type, int cmp, uint64_t value);

#ifdef __cplusplus
}
#endif
#endif /* CCS_RMA_H */
