/*
 * CCS transport plugin ABI, version 1.
 *
 * A plugin is a shared object libccs_plugin_<name>.so that exports one
 * const data symbol:
 *
 *     CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = { ... };
 *
 * It is a data object, like NCCL's ncclNetPlugin_vN, so the core never
 * converts a dlsym() result to a function pointer. Rules:
 *   - Every struct starts with struct_size. Tables grow append-only; the core
 *     reads only the fields a plugin's struct_size covers and gives missing
 *     or NULL operations typed stubs that return CCS_PLUGIN_ERR_UNSUPPORTED.
 *   - A breaking change is a new symbol ccs_plugin_v2; the core probes the
 *     newest symbol first and keeps shims for the old ones.
 *   - Only C types cross this boundary: no C++ type, no exception.
 *   - Plugins log and read parameters only through ccs_plugin_services_v1_t.
 *   - Fill tables with designated initializers, never by position.
 */
#ifndef CCS_PLUGIN_V1_H
#define CCS_PLUGIN_V1_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCS_PLUGIN_ABI_VERSION_1 1u
#define CCS_PLUGIN_SYMBOL_V1 "ccs_plugin_v1"

#if defined(__GNUC__)
#define CCS_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CCS_PLUGIN_EXPORT
#endif

/* Probes of the append-only structs: whether the struct `s` points to (a
 * table, services, attributes) was built with `member` at all, judged by its
 * struct_size; CCS_PLUGIN_HAS also asks that a function member be set.
 * Read an appended member only behind one of these. */
#define CCS_PLUGIN_COVERS(s, member) \
    ((s)->struct_size >= offsetof(__typeof__(*(s)), member) + sizeof((s)->member))
#define CCS_PLUGIN_HAS(s, member) (CCS_PLUGIN_COVERS(s, member) && (s)->member != NULL)

typedef int32_t ccs_plugin_status_t;
enum {
    CCS_PLUGIN_OK = 0,
    CCS_PLUGIN_AGAIN = 1,               /* no resources now; retry later     */
    CCS_PLUGIN_IN_PROGRESS = 2,         /* started; completes via rma_complete */
    CCS_PLUGIN_ERR_NO_DEVICE = -1,      /* nothing to drive on this machine  */
    CCS_PLUGIN_ERR_NO_MEMORY = -2,
    CCS_PLUGIN_ERR_INVALID = -3,
    CCS_PLUGIN_ERR_UNSUPPORTED = -4,    /* operation not provided            */
    CCS_PLUGIN_ERR_PEER_FAILED = -5,
    CCS_PLUGIN_ERR_TRANSPORT = -6,
    CCS_PLUGIN_ERR_SYSTEM = -7,         /* an OS call failed (see the log)   */
    CCS_PLUGIN_ERR_ACCESS = -8,         /* remote memory refused this access */
    CCS_PLUGIN_ERR_LIMIT = -9           /* registration limit reached        */
};

/* Capability bits (ccs_plugin_attr_v1_t.caps). */
#define CCS_PLUGIN_CAP_AM (1ull << 0)         /* am_send / am_deliver      */
#define CCS_PLUGIN_CAP_AM_ORDERED (1ull << 1) /* FIFO per (source, target) */
#define CCS_PLUGIN_CAP_PUT (1ull << 2)        /* put without the target's CPU */
#define CCS_PLUGIN_CAP_GET (1ull << 3)        /* get without the target's CPU */
#define CCS_PLUGIN_CAP_MAP_SHARED (1ull << 4) /* rkey_ptr maps peers' ccs_mem_alloc memory */
/* atomic: the plugin carries out 32- and 64-bit atomics itself (network
 * adapter atomics, or CPU atomics in memory its lanes map), at least to
 * some peers; it answers UNSUPPORTED for a peer it cannot. */
#define CCS_PLUGIN_CAP_ATOMIC (1ull << 5)
/* Bits 6..63 are reserved for later capabilities. Without CAP_PUT /
 * CAP_GET (or when an operation returns UNSUPPORTED) the core carries RMA
 * in active messages. */

/* The operations of the atomic entry point; the values are
 * ccs_atomic_op_t's. */
typedef enum ccs_plugin_atomic_op {
    CCS_PLUGIN_ATOMIC_ADD = 0,
    CCS_PLUGIN_ATOMIC_AND = 1,
    CCS_PLUGIN_ATOMIC_OR = 2,
    CCS_PLUGIN_ATOMIC_XOR = 3,
    CCS_PLUGIN_ATOMIC_SWAP = 4,
    CCS_PLUGIN_ATOMIC_CSWAP = 5, /* if (word == compare) word = operand */
    CCS_PLUGIN_ATOMIC_FETCH = 6, /* reads the word                      */
    CCS_PLUGIN_ATOMIC_SET = 7    /* word = operand, nothing fetched      */
} ccs_plugin_atomic_op_t;

/* Which peers a plugin can reach at all; the core routes by this, never by
 * a plugin's name. */
typedef enum ccs_plugin_scope {
    CCS_PLUGIN_SCOPE_NODE = 1,    /* only processes on the same node */
    CCS_PLUGIN_SCOPE_NETWORK = 2  /* processes on any node           */
} ccs_plugin_scope_t;

typedef enum ccs_plugin_log_level {
    CCS_PLUGIN_LOG_ERROR = 1,
    CCS_PLUGIN_LOG_WARN = 2,
    CCS_PLUGIN_LOG_INFO = 3,
    CCS_PLUGIN_LOG_DEBUG = 4
} ccs_plugin_log_level_t;

typedef struct ccs_plugin_attr_v1 {
    size_t struct_size;       /* set by the core                            */
    uint64_t caps;            /* CCS_PLUGIN_CAP_*                           */
    uint32_t scope;           /* ccs_plugin_scope_t                         */
    uint32_t priority;        /* higher wins among plugins of one scope     */
    size_t am_max_packet;     /* largest packet am_send accepts, in bytes   */
    char description[160];    /* one line for ccs_info                      */
    /* Appended: packets of at least this many bytes go to am_send_nocopy
     * when the core can keep them untouched; 0: never. */
    size_t am_nocopy_min;
    /* Appended: set by a plugin that lands placeable payloads in place
     * (services->am_place): the largest payload (last iov entry)
     * am_send_placeable takes, its head aside. The core then pushes large
     * messages' payloads to its peers in pieces of this size. 0: no
     * placing; pieces are packets of am_max_packet in all. */
    size_t am_placeable_max;
} ccs_plugin_attr_v1_t;

typedef struct ccs_plugin_iov_v1 {
    const void *base;
    size_t length;
} ccs_plugin_iov_v1_t;

/* A writable local segment (get's destination). */
typedef struct ccs_plugin_buffer_v1 {
    void *base;
    size_t length;
} ccs_plugin_buffer_v1_t;

/* A segment in a peer's address space. */
typedef struct ccs_plugin_remote_v1 {
    uint64_t address;
    size_t length;
} ccs_plugin_remote_v1_t;

/* What the core tells a plugin about the job at init. */
typedef struct ccs_plugin_job_v1 {
    size_t struct_size;
    int32_t rank;
    int32_t size;
    const char *job_id;           /* unique among concurrent jobs         */
    const uint32_t *node_of_rank; /* dense node index of every rank       */
    uint32_t num_nodes;
    /* Appended (check struct_size): the thread level the job started
     * with, a ccs_thread_level_t value (0 single .. 3 multiple). A plugin
     * that must choose its locking at init (a UCX worker's thread mode)
     * reads it; am_send_concurrent may still be asked later, when another
     * runtime raises the level. */
    int32_t thread_level;
} ccs_plugin_job_v1_t;

/* Services the core hands a plugin; `core` is passed back unchanged. */
typedef struct ccs_plugin_services_v1 {
    size_t struct_size;
    void *core;
    void (*log)(void *core, int32_t level, const char *message);
    /* Value of CCS_<PLUGIN>_<NAME> (plugin name upper-cased), or
     * default_value when unset. The core lists it in ccs_info. */
    const char *(*param_get)(void *core, const char *name,
                             const char *default_value,
                             const char *description);
    /* A packet arrived. `packet` is valid only during the call. Called only
     * from inside the plugin's progress(). */
    void (*am_deliver)(void *core, int32_t source, const void *packet,
                       size_t length);
    /* The plugin found that `peer` died or became unreachable. After this
     * the core sends nothing more to it; the plugin returns
     * CCS_PLUGIN_ERR_PEER_FAILED if it still does. Call at most once per
     * peer, from progress(). */
    void (*peer_failed)(void *core, int32_t peer, const char *reason);
    /* A put or get that returned CCS_PLUGIN_IN_PROGRESS finished. Called
     * only from inside progress(). */
    void (*rma_complete)(void *core, uint64_t token, ccs_plugin_status_t status);
    /* Whether [addr, addr + length) lies in memory the core allocated to be
     * shared (ccs_mem_alloc). If so (returns 1): *fd is this process's
     * descriptor of the backing file, *offset where addr sits in it, *id a
     * number unique to the allocation in this process. A node-scope plugin
     * can map it into peers and turn put/get into loads and stores. */
    int32_t (*mem_shareable)(void *core, const void *addr, size_t length,
                             int32_t *fd, uint64_t *offset, uint64_t *id);
    /* An am_send_nocopy that returned CCS_PLUGIN_IN_PROGRESS finished: the
     * plugin no longer reads its iov. Called only from inside progress().
     * (Appended: check struct_size before use.) */
    void (*am_send_complete)(void *core, uint64_t token, ccs_plugin_status_t status);
    /* Receiving in place (appended: check struct_size before use). For a
     * packet sent with am_send_placeable whose payload a plugin can fetch
     * after the rest arrived (a rendezvous): `head` is every iov entry the
     * sender gave but the last (head_length bytes), `length` the last
     * entry's length. Returns where the core wants those `length` bytes,
     * and sets *placement, or returns NULL: fetch them as usual and
     * am_deliver the whole packet. A non-NULL answer is followed by exactly
     * one am_placed with that *placement, whether the bytes came or not.
     * May be called from within the transport's own callbacks inside
     * progress(); it delivers nothing. */
    void *(*am_place)(void *core, int32_t source, const void *head,
                      size_t head_length, size_t length, uint64_t *placement);
    /* The bytes of `placement` are in place (OK), or will never come (any
     * error: the peer failed, the fetch was cancelled). Called only from
     * inside progress(), not from the transport's callbacks. */
    void (*am_placed)(void *core, uint64_t placement, ccs_plugin_status_t status);
    /* Once am_send_concurrent answered OK (appended: check struct_size
     * before use): takes (take 1) or gives back (take 0) the lock the core
     * holds around every am_send to `peer`. progress() holds it around
     * whatever it does to that peer's send side itself (a ring it retires,
     * a bell it rings late), never while it delivers a packet or reports
     * a failure. */
    void (*peer_send_lock)(void *core, int32_t peer, int32_t take);
    /* Local memory for an adapter that reads and writes it by DMA
     * (appended: check struct_size before use). The core's registration
     * cache finds or registers a region holding [addr, addr + length)
     * (registering a new one with every transport, through mem_reg) and
     * returns the memh this plugin's mem_reg gave for it; *hold is the
     * core's reference, given back with local_release once the plugin no
     * longer touches that memory (from progress() too). NULL: the memory
     * cannot be registered (not mapped, or the limit is reached with
     * nothing left to evict); the plugin fails the operation. Called from
     * within put, get and atomic. */
    void *(*local_acquire)(void *core, const void *addr, size_t length, void **hold);
    void (*local_release)(void *core, void *hold);
    /* [addr, addr + length) is about to be unmapped (appended: check
     * struct_size before use). A plugin whose registrations pin pages
     * (an adapter's memory regions) reports it from its memory hooks, so
     * that the core's cache never again hands out a region over those
     * pages and deregisters it once unused: a region kept over memory
     * mapped anew would move the old pages. May be called from any
     * thread at any moment, inside munmap or malloc; it neither allocates
     * nor blocks. */
    void (*mem_unmapped)(void *core, const void *addr, size_t length);
    /* A packet sent with am_send_placeable whose payload (its last
     * `length` bytes) the plugin has not fetched but can fetch later (a
     * rendezvous whose announcement it keeps), offered in the packet's
     * turn, as am_deliver would be (appended: check struct_size before
     * use). `head` is the rest of the packet, `parked` the plugin's name
     * for the kept payload. Returns 1: the core took the packet; it calls
     * exactly one of am_parked_fetch or am_parked_release for `parked`
     * later (or the plugin ends the kept payloads at finalize). Returns 0:
     * nothing was delivered; fetch the payload as usual and am_deliver
     * the whole packet. Called only from inside progress(). */
    int32_t (*am_deliver_parked)(void *core, int32_t source, const void *head, size_t head_length, size_t length,
                                 uint64_t parked);
} ccs_plugin_services_v1_t;

typedef struct ccs_plugin_v1 {
    size_t struct_size;    /* sizeof(ccs_plugin_v1_t) when built       */
    uint32_t abi_version;  /* CCS_PLUGIN_ABI_VERSION_1                  */
    const char *name;      /* must match the file name's <name>         */

    /* Is this plugin usable on this machine, and what can it do? Called
     * without a job (ccs_info too); must not touch other processes. */
    ccs_plugin_status_t (*query)(const ccs_plugin_services_v1_t *services,
                                 ccs_plugin_attr_v1_t *attr);

    /* Local set-up. *state is the plugin's, passed to every later call. */
    ccs_plugin_status_t (*init)(const ccs_plugin_services_v1_t *services,
                                const ccs_plugin_job_v1_t *job, void **state);

    /* This process's address. *length: capacity in, size out. */
    ccs_plugin_status_t (*address)(void *state, void *buffer, size_t *length);

    /* Every rank's address (NULL, length 0 where that rank's init failed). */
    ccs_plugin_status_t (*connect)(void *state, const void *const *addresses,
                                   const size_t *lengths);

    /* After connect succeeded everywhere: 1 if peer is reachable. */
    int32_t (*reachable)(void *state, int32_t peer);

    /* Every process has connected (e.g. shared segments may be unlinked). */
    ccs_plugin_status_t (*wireup_complete)(void *state);

    void (*finalize)(void *state);

    /* Send one packet: the concatenation of iov. CCS_PLUGIN_AGAIN means no
     * room now (back-pressure): nothing was sent, try again later. On
     * CCS_PLUGIN_OK the bytes were copied or sent; iov may be reused. */
    ccs_plugin_status_t (*am_send)(void *state, int32_t peer,
                                   const ccs_plugin_iov_v1_t *iov,
                                   size_t iovcnt);

    /* Poll; deliver arrived packets through services->am_deliver. Returns
     * the number of events handled (0 when idle), never blocks. */
    int32_t (*progress)(void *state);

    /* ---- memory (the core's registration cache calls these) ---------- */

    /* Makes [addr, addr + length) reachable by peers' put and get.
     * CCS_PLUGIN_ERR_LIMIT: too much registered; the core deregisters
     * unused regions and retries. */
    ccs_plugin_status_t (*mem_reg)(void *state, void *addr, size_t length,
                                   void **memh);
    void (*mem_dereg)(void *state, void *memh);
    /* The key a peer needs to reach memh. *length: capacity in, size out
     * (buffer NULL: size only). */
    ccs_plugin_status_t (*rkey_pack)(void *state, void *memh, void *buffer,
                                     size_t *length);
    ccs_plugin_status_t (*rkey_unpack)(void *state, int32_t peer,
                                       const void *buffer, size_t length,
                                       void **rkey);
    void (*rkey_release)(void *state, void *rkey);

    /* ---- one-sided --------------------------------------------------- */

    /* Copy local segments to remote ones (put) or back (get); both lists
     * hold the same number of bytes, and the core has checked the remote
     * segments against the key's region. CCS_PLUGIN_OK: complete (put:
     * visible at the target; get: in local memory). IN_PROGRESS: completes
     * later through services->rma_complete(token). AGAIN: nothing done,
     * retry. UNSUPPORTED (e.g. the OS refused): the core falls back to
     * active messages for this peer. */
    ccs_plugin_status_t (*put)(void *state, int32_t peer,
                               const ccs_plugin_iov_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote,
                               size_t nremote, void *rkey, uint64_t token);
    ccs_plugin_status_t (*get)(void *state, int32_t peer,
                               const ccs_plugin_buffer_v1_t *local,
                               size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote,
                               size_t nremote, void *rkey, uint64_t token);

    /* ---- active messages without a copy (appended) --------------------- */

    /* am_send for a packet whose bytes the core keeps untouched until told:
     * CCS_PLUGIN_IN_PROGRESS means the plugin may read iov (every entry)
     * until it calls services->am_send_complete(token). OK: sent, iov
     * reusable. AGAIN: nothing sent. UNSUPPORTED: use am_send. The core
     * calls it only for packets of at least attr.am_nocopy_min bytes. */
    ccs_plugin_status_t (*am_send_nocopy)(void *state, int32_t peer,
                                          const ccs_plugin_iov_v1_t *iov,
                                          size_t iovcnt, uint64_t token);

    /* ---- direct access (appended) ------------------------------------- */

    /* If the owner's [remote, remote + length) of rkey is mapped into this
     * process (memory of a peer on this node), *local is where remote sits
     * here, and loads and stores there are put and get: the core then
     * copies small operations itself, without a call. The mapping lives
     * until rkey_release. UNSUPPORTED: not mapped. */
    ccs_plugin_status_t (*rkey_ptr)(void *state, void *rkey, uint64_t remote,
                                    size_t length, void **local);

    /* ---- atomics (appended; with CCS_PLUGIN_CAP_ATOMIC) ---------------- */

    /* Applies `op` (ccs_plugin_atomic_op_t) to the `width`-byte (4 or 8)
     * word at `remote` of `peer`, reached through rkey, which the core
     * unpacked for `peer` (also when `peer` is this process: memory
     * registered for plugin atomics is changed only through this entry
     * point, by its owner too, so that every update of a word takes one
     * mechanism). The core has checked alignment and the key's range.
     * `result`, if not NULL, receives the old value (width bytes) by the
     * time the operation completes. OK: done (at the target). IN_PROGRESS:
     * completes through services->rma_complete(token). AGAIN: nothing done.
     * UNSUPPORTED: this plugin cannot carry out atomics to `peer` itself
     * (its lanes there would emulate them): the core reports the
     * operation unsupported, changing nothing. */
    ccs_plugin_status_t (*atomic)(void *state, int32_t peer, uint32_t op,
                                  uint32_t width, uint64_t remote,
                                  uint64_t operand, uint64_t compare,
                                  void *result, void *rkey, uint64_t token);

    /* ---- sleeping (appended) ------------------------------------------ */

    /* A descriptor the core waits on with poll/epoll while it sleeps: it
     * becomes readable when something arrives after wakeup_arm answered OK.
     * -1: the plugin cannot wake a sleeper, and the core sleeps only in
     * short slices. Asked once, after wireup_complete; valid until
     * finalize. */
    int32_t (*wakeup_fd)(void *state);
    /* The core is about to sleep. OK: armed, an arrival from now on makes
     * wakeup_fd readable (and a failed peer is still noticed: the core's
     * sleeps are bounded, and the next progress() looks). AGAIN: something
     * is ready already; progress() instead of sleeping. The next progress()
     * disarms. The same thread calls it that calls progress(). */
    ccs_plugin_status_t (*wakeup_arm)(void *state);

    /* ---- payloads received in place (appended) ------------------------ */

    /* am_send_nocopy for a packet whose payload the target's core places
     * itself (services->am_place): a plugin that can let the target fetch
     * the last iov entry straight into place does so, even where it would
     * send other packets of this size eagerly. Same answers as
     * am_send_nocopy. NULL: the core calls am_send_nocopy instead. */
    ccs_plugin_status_t (*am_send_placeable)(void *state, int32_t peer,
                                             const ccs_plugin_iov_v1_t *iov,
                                             size_t iovcnt, uint64_t token);

    /* ---- threads (appended) ------------------------------------------- */

    /* Asked once threads may call into CCS at the same time (thread level
     * multiple), before they do. OK: from then on am_send may run for
     * different peers at the same time, on any threads, beside any other
     * call of the plugin; the core holds the peer's send lock around each
     * (services->peer_send_lock), and never runs two other calls at once.
     * Anything else, or NULL: the core keeps every call under its lock. */
    ccs_plugin_status_t (*am_send_concurrent)(void *state);

    /* Asked as am_send_concurrent is. OK: from then on put, get and atomic
     * may run at the same time as each other, on any threads, beside any
     * other call of the plugin, progress() included; their rma_complete
     * may come from progress() on another thread before they return.
     * Anything else, or NULL: every put, get and atomic under the core's
     * lock. */
    ccs_plugin_status_t (*rma_concurrent)(void *state);

    /* ---- payloads kept for the target's decision (appended) ----------- */

    /* For a payload the core took through services->am_deliver_parked:
     * fetch its `length` bytes (all of them) to `to`, then report
     * services->am_placed(placement) once, whether they came or not. OK:
     * started (or done; the report still follows from progress()).
     * INVALID: `parked` names no kept payload, or `length` is not its
     * length; nothing is reported then. Either of the two NULL: the
     * core never takes a payload from this plugin (it answers 0). */
    ccs_plugin_status_t (*am_parked_fetch)(void *state, uint64_t parked, void *to, size_t length, uint64_t placement);
    /* The payload will not be fetched: the plugin lets it go (the sender's
     * send completes). Unknown names are ignored. */
    void (*am_parked_release)(void *state, uint64_t parked);
} ccs_plugin_v1_t;

#ifdef __cplusplus
}
#endif
#endif /* CCS_PLUGIN_V1_H */
