/*
 * CCS teams and collectives.
 *
 *   ccs_team_t world, evens;
 *   ccs_team_world(ctx, &world);                        // every process
 *   ccs_team_split_strided(world, 0, 2, (n + 1) / 2, &evens);
 *   double local = ..., sum;
 *   ccs_team_allreduce(world, &local, &sum, 1, CCS_ACC_DOUBLE, CCS_ACC_SUM, NULL);
 *
 * A team is an ordered set of processes with its own numbering (team rank
 * 0 .. size-1). Each context has a world team of every process; a team
 * made from a parent belongs to the parent's context. Collectives on
 * different teams (and so on different contexts, as two runtimes in one
 * process use them) never mix, and any number may be in flight at once.
 *
 * Every member calls the collectives of a team in the same order, with
 * the same root, sizes, type and op (as in MPI). Where a message shows that
 * a member passed something else, the call fails with CCS_ERR_INVALID_ARG
 * naming it, and nothing past the buffers' given lengths is written.
 *
 * Completion: each collective takes a ccs_completion_t. NULL makes the
 * call blocking: it returns once the collective finished on this process
 * (its result is in place, its buffers reusable). Otherwise the call
 * returns at once and the completion (callback and/or counter) runs inside
 * a later ccs_progress; the buffers belong to CCS until then.
 *
 * Reductions use the element types and operations of accumulate
 * (ccs/rma.h), with one order of combination fixed by the team and the
 * data's size, so that floating-point results of ccs_team_allreduce are
 * bitwise the same on every member. A process failing during a collective ends it with
 * CCS_ERR_PEER_FAILED, never a hang, on every member still waiting for
 * something that depended on it (with a barrier, allreduce, allgather or
 * alltoall that is every member, unless the process had done its whole
 * part before it died; a member that got all it needed succeeds). A team
 * whose members are all alive goes on working. Threads: as the rest of
 * CCS (ccs_init_params_t.thread_level).
 */
#ifndef CCS_COLL_H
#define CCS_COLL_H

#include <ccs/rma.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A team handle; stale handles (destroyed, or of a destroyed context) are
 * detected: CCS_ERR_INVALID_TEAM. */
typedef struct ccs_team {
    uint64_t id;
} ccs_team_t;

/* CCS_TEAM_WORLD: every process, on the core's own context. Shared by every
 * runtime in the process: a runtime whose collectives may run while
 * another's do takes its own context's world team instead. */
#ifdef __cplusplus
#define CCS_TEAM_NULL (ccs_team_t{0})
#define CCS_TEAM_WORLD (ccs_team_t{1})
#else
#define CCS_TEAM_NULL ((ccs_team_t){0})
#define CCS_TEAM_WORLD ((ccs_team_t){1})
#endif

/* ------------------------------------------------------------------ teams */

/* The world team of `context` (local: every process has it). */
CCS_API ccs_status_t ccs_team_world(ccs_context_t context, ccs_team_t *team);

/* Collective over `parent`: the members with parent ranks start,
 * start + stride, ... (`size` of them) form a new team, numbered in that
 * order (OpenSHMEM's shmem_team_split_strided). Every member of parent
 * calls it with the same arguments; the others get CCS_TEAM_NULL and
 * CCS_OK. stride >= 1 (any value when size is 1). When the arguments are
 * bad or differ on any member, every member gets an error
 * (CCS_ERR_INVALID_ARG) and no team. */
CCS_API ccs_status_t ccs_team_split_strided(ccs_team_t parent, int start, int stride, int size, ccs_team_t *team);

/* The same for a list: parent ranks ranks[0 .. count-1] (distinct) become
 * team ranks 0 .. count-1 (ARMCI_Group_create, MPI_Group_incl). */
CCS_API ccs_status_t ccs_team_create(ccs_team_t parent, const int *ranks, int count, ccs_team_t *team);

/* Local: the handle is stale from here on. Collectives already started on
 * the team still finish. A context's world team is not destroyed (it goes
 * with the context, and with it every team made from it); CCS_TEAM_WORLD
 * lives until the last ccs_finalize. */
CCS_API ccs_status_t ccs_team_destroy(ccs_team_t team);

CCS_API ccs_status_t ccs_team_rank(ccs_team_t team, int *rank);
CCS_API ccs_status_t ccs_team_size(ccs_team_t team, int *size);
/* The rank in `to` of the process that has rank `rank` in `from`; -1 when
 * it is not a member of `to`. */
CCS_API ccs_status_t ccs_team_translate(ccs_team_t from, int rank, ccs_team_t to, int *to_rank);

/* ------------------------------------------------------------ collectives
 * Sizes are in bytes, except `count` of reductions (elements of `type`).
 * src and dst of reductions may be the same buffer (in place). */

CCS_API ccs_status_t ccs_team_barrier(ccs_team_t team, const ccs_completion_t *completion);

/* `length` bytes of root's buffer into every member's buffer. */
CCS_API ccs_status_t ccs_team_broadcast(ccs_team_t team, void *buffer, size_t length, int root,
                                        const ccs_completion_t *completion);

/* dst (root only; may be NULL elsewhere) = src of rank 0 op src of rank 1
 * op ... (type a ccs_acc_type_t, op a ccs_acc_op_t, as ccs_accumulate;
 * CCS_ACC_REPLACE gives the last rank's). */
CCS_API ccs_status_t ccs_team_reduce(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                                     int root, const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_allreduce(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                                        const ccs_completion_t *completion);
/* Prefix reductions: dst of rank r = src of 0 op ... op src of r
 * (inclusive), or of ranks 0 .. r-1 (exclusive; rank 0's dst untouched). */
CCS_API ccs_status_t ccs_team_scan(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                                   const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_exscan(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                                     const ccs_completion_t *completion);

/* Every member's `length` bytes at src, in team rank order, into root's dst
 * (size * length bytes; dst may be NULL elsewhere). */
CCS_API ccs_status_t ccs_team_gather(ccs_team_t team, const void *src, size_t length, void *dst, int root,
                                     const ccs_completion_t *completion);
/* Variable sizes: member i's `length` bytes go to dst + offsets[i]; lengths
 * and offsets (team size entries each) are read at root only and must say
 * lengths[i] == member i's length. */
CCS_API ccs_status_t ccs_team_gatherv(ccs_team_t team, const void *src, size_t length, void *dst,
                                      const size_t *lengths, const size_t *offsets, int root,
                                      const ccs_completion_t *completion);
/* As gather, with the result on every member. */
CCS_API ccs_status_t ccs_team_allgather(ccs_team_t team, const void *src, size_t length, void *dst,
                                        const ccs_completion_t *completion);
/* As gatherv on every member: every member passes the same lengths and
 * offsets (NULL ones fail the call at once, before it takes part, as a
 * wrong root does: they decide the algorithm). */
CCS_API ccs_status_t ccs_team_allgatherv(ccs_team_t team, const void *src, size_t length, void *dst,
                                         const size_t *lengths, const size_t *offsets,
                                         const ccs_completion_t *completion);
/* src holds size blocks of `length` bytes, block j for member j; dst
 * receives block i from member i. src and dst must not overlap. */
CCS_API ccs_status_t ccs_team_alltoall(ccs_team_t team, const void *src, size_t length, void *dst,
                                       const ccs_completion_t *completion);

/* ------------------------------------------------- noncontiguous buffers
 * The same collectives on buffers described by committed datadescs
 * (ccs/datadesc.h): a buffer is `count` elements of its datadesc at an
 * address, and what travels is its packed stream (ccs_datadesc_pack's
 * order), whose bytes are what the contiguous form calls length. Where one
 * buffer holds a block for each member (gather's dst, allgather's dst,
 * alltoall's src and dst), block i is the `count` elements from i * count
 * extents on (MPI's layout): count * size elements in all. Streams are
 * matched by their bytes, so a member may describe its side with another
 * datadesc than the others, or call the contiguous form, as long as the
 * bytes agree. The data is packed when the call starts and unpacked when
 * it ends; the datadescs may be freed once the call returned. */

CCS_API ccs_status_t ccs_team_broadcast_datadesc(ccs_team_t team, void *buffer, int64_t count, ccs_datadesc_t dd,
                                                 int root, const ccs_completion_t *completion);
/* src_count * size(src_dd) == dst_count * size(dst_dd) bytes per member;
 * dst, dst_count and dst_dd are read at root only. */
CCS_API ccs_status_t ccs_team_gather_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                              ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                              ccs_datadesc_t dst_dd, int root, const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_allgather_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                                 ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                                 ccs_datadesc_t dst_dd, const ccs_completion_t *completion);
/* Variable sizes (MPI_Gatherv's layout): member i's stream lands as
 * dst_counts[i] elements of dst_dd at dst + dst_displs[i] extents of
 * dst_dd; member i's src stream must have as many bytes. The arrays are
 * read at root only for gatherv; allgatherv's, the same on every member,
 * fail the call at once when NULL (as in ccs_team_allgatherv). */
CCS_API ccs_status_t ccs_team_gatherv_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                               ccs_datadesc_t src_dd, void *dst, const int64_t *dst_counts,
                                               const int64_t *dst_displs, ccs_datadesc_t dst_dd, int root,
                                               const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_allgatherv_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                                  ccs_datadesc_t src_dd, void *dst, const int64_t *dst_counts,
                                                  const int64_t *dst_displs, ccs_datadesc_t dst_dd,
                                                  const ccs_completion_t *completion);
/* Reductions: the streams hold elements of `type` (a whole number of
 * them, the same on every member), combined as by the contiguous forms;
 * dst (of reduce: at root only, else may be NULL) receives a stream as
 * long as src's. src and dst may be the same buffer and layout. */
CCS_API ccs_status_t ccs_team_reduce_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                              ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                              ccs_datadesc_t dst_dd, int type, int op, int root,
                                              const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_allreduce_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                                 ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                                 ccs_datadesc_t dst_dd, int type, int op,
                                                 const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_scan_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                            ccs_datadesc_t src_dd, void *dst, int64_t dst_count, ccs_datadesc_t dst_dd,
                                            int type, int op, const ccs_completion_t *completion);
CCS_API ccs_status_t ccs_team_exscan_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                              ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                              ccs_datadesc_t dst_dd, int type, int op,
                                              const ccs_completion_t *completion);
/* src_count and dst_count elements per block. */
CCS_API ccs_status_t ccs_team_alltoall_datadesc(ccs_team_t team, const void *src, int64_t src_count,
                                                ccs_datadesc_t src_dd, void *dst, int64_t dst_count,
                                                ccs_datadesc_t dst_dd, const ccs_completion_t *completion);

#ifdef __cplusplus
}
#endif
#endif /* CCS_COLL_H */
