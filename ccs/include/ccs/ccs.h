/*
 * CCS - common communication subsystem. Public C API.
 *
 * Plain C99. Every call returns a ccs_status_t; ccs_strerror() names it and
 * ccs_last_error() gives the detail of the last failure on this thread
 * (which plugin, which path, which rank, why).
 *
 * Threading: ccs_init takes a thread level, as MPI_Init_thread does (see
 * ccs_thread_level_t). Below CCS_THREAD_MULTIPLE the caller serializes its
 * calls. Handlers and completion callbacks run inside ccs_progress() and
 * inside the blocking calls that make progress (ccs_barrier,
 * ccs_context_create/destroy, ccs_finalize, and ccs_am_send when its send
 * queue is full), and, with the progress thread on, on that thread too
 * (CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD). Never two at once.
 */
#ifndef CCS_CCS_H
#define CCS_CCS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CCS_API __attribute__((visibility("default")))
#else
#define CCS_API
#endif

#define CCS_VERSION_MAJOR 0
#define CCS_VERSION_MINOR 1
#define CCS_VERSION_PATCH 0

/* ------------------------------------------------------------------ status */

typedef enum ccs_status {
    CCS_OK = 0,
    CCS_ERR_INVALID_ARG = 1,      /* NULL pointer, bad flag, bad size       */
    CCS_ERR_NOT_INITIALIZED = 2,  /* before ccs_init or after ccs_finalize  */
    CCS_ERR_FINALIZED = 3,        /* ccs_init after the last ccs_finalize   */
    CCS_ERR_INVALID_RANK = 4,     /* rank outside [0, size)                 */
    CCS_ERR_INVALID_CONTEXT = 5,  /* never created, or already destroyed    */
    CCS_ERR_INVALID_HANDLER = 6,  /* handler id out of range                */
    CCS_ERR_UNKNOWN_HANDLER = 7,  /* no handler registered under that id    */
    CCS_ERR_HANDLER_IN_USE = 8,   /* id already registered in this context  */
    CCS_ERR_TOO_MANY_ARGS = 9,    /* more than CCS_AM_MAX_ARGS words        */
    CCS_ERR_MESSAGE_TOO_LARGE = 10,
    CCS_ERR_NO_MEMORY = 11,
    CCS_ERR_IN_HANDLER = 12,      /* blocking call from inside a handler    */
    CCS_ERR_PLUGIN_NOT_FOUND = 13,
    CCS_ERR_PLUGIN_LOAD = 14,     /* dlopen failed or symbol missing        */
    CCS_ERR_PLUGIN_ABI = 15,      /* unsupported ABI version or table size  */
    CCS_ERR_PLUGIN_INIT = 16,     /* plugin found no device or failed init  */
    CCS_ERR_NO_TRANSPORT = 17,    /* no usable plugin reaches a peer        */
    CCS_ERR_BOOTSTRAP = 18,       /* launcher / PMI exchange failed         */
    CCS_ERR_TRANSPORT = 19,       /* a transport reported an error          */
    CCS_ERR_PEER_FAILED = 20,     /* the peer process died or is unreachable*/
    CCS_ERR_UNSUPPORTED = 21,
    CCS_ERR_CANCELED = 22,
    CCS_ERR_TOO_MANY_CONTEXTS = 23,
    CCS_ERR_NOT_FOUND = 24,       /* unknown statistic or name              */
    CCS_ERR_INTERNAL = 25,
    CCS_ERR_OVERFLOW = 26,        /* a size or displacement exceeds 64 bits */
    CCS_ERR_NOT_COMMITTED = 27,   /* datadesc used before ccs_datadesc_commit */
    CCS_ERR_INVALID_MEMORY = 28,  /* memory handle never registered or already deregistered */
    CCS_ERR_NOT_REGISTERED = 29,  /* address in no region the process registered or exposed */
    CCS_ERR_OUT_OF_RANGE = 30,    /* access outside the region a key or handle covers */
    CCS_ERR_INVALID_KEY = 31,     /* remote key malformed, released, for another process, or stale */
    CCS_ERR_NO_RESOURCES = 32,    /* a transport's registration limit, nothing left to evict */
    CCS_ERR_INVALID_TEAM = 33,    /* team never created, destroyed, or of a destroyed context */
    CCS_ERR_REFUSED = 34,         /* the target refused a large message     */
    CCS_STATUS_COUNT_ = 35        /* not a status: one past the last        */
} ccs_status_t;

/* Name and meaning of a status ("CCS_ERR_INVALID_RANK: rank is outside ...").
 * Never NULL, also for values that are not a status. */
CCS_API const char *ccs_strerror(ccs_status_t status);

/* Detail of the last failed call on this thread (empty string if none). */
CCS_API const char *ccs_last_error(void);

/* ------------------------------------------------------- init / finalize */

/* How threads may call CCS, as MPI's levels. */
typedef enum ccs_thread_level {
    CCS_THREAD_SINGLE = 0,     /* one thread in the process                 */
    CCS_THREAD_FUNNELED = 1,   /* only the thread that called ccs_init      */
    CCS_THREAD_SERIALIZED = 2, /* any thread, one at a time                 */
    /* Any thread, at the same time. Calls are serialized inside CCS (one
     * lock, given up while a call waits or sleeps); a handler runs on one
     * thread, never two at once. */
    CCS_THREAD_MULTIPLE = 3
} ccs_thread_level_t;

enum ccs_init_flags {
    /* Start the progress thread (also CCS_PROGRESS_THREAD=1): it makes
     * progress for the whole process while the application computes, so
     * gets, atomics, accumulates and messages aimed at this process are
     * served without its calls. It keeps out of the way while the
     * application polls, and sleeps on the transports' wake-ups otherwise.
     * Where it runs: ccs_info_print. */
    CCS_INIT_PROGRESS_THREAD = 1u << 0
};

typedef struct ccs_init_params {
    size_t struct_size; /* sizeof(ccs_init_params_t); lets the struct grow */
    uint64_t flags;     /* ccs_init_flags                                   */
    /* Appended: read when struct_size covers it, else CCS_THREAD_SINGLE. */
    int thread_level;   /* the ccs_thread_level_t this runtime needs       */
} ccs_init_params_t;

/* Reference counted: several runtimes in one process may each call
 * ccs_init/ccs_finalize; the first init connects the job, the last finalize
 * (collective over all processes) disconnects it. params may be NULL. The
 * thread level provided is the highest any init asked for (all runtimes of
 * the process share it): ccs_query_thread. */
CCS_API ccs_status_t ccs_init(const ccs_init_params_t *params);
CCS_API ccs_status_t ccs_finalize(void);
CCS_API ccs_status_t ccs_initialized(int *flag);
/* Ends the whole job at once, as MPI_Abort: this process prints `reason`
 * (may be NULL) on stderr with its rank, asks the launcher to stop every
 * process (ccsrun, mpirun and mpiexec then exit with exit_code), and exits
 * with exit_code without finalizing. Works before ccs_init too (this
 * process alone). Returns only to refuse an exit code outside 0 .. 255:
 * CCS_ERR_INVALID_ARG. */
CCS_API ccs_status_t ccs_abort(int exit_code, const char *reason);
/* The thread level provided now (a ccs_thread_level_t). */
CCS_API ccs_status_t ccs_query_thread(int *level);

CCS_API ccs_status_t ccs_rank(int *rank);
CCS_API ccs_status_t ccs_size(int *size);

/* ---------------------------------------------------------------- contexts */

/* A context isolates one runtime: its own handler table, its own message
 * streams, its own teardown. Handles are values; a destroyed or stale handle
 * is detected (CCS_ERR_INVALID_CONTEXT), never dereferenced. */
typedef struct ccs_context {
    uint64_t id;
} ccs_context_t;

#ifdef __cplusplus
#define CCS_CONTEXT_NULL (ccs_context_t{0})
#else
#define CCS_CONTEXT_NULL ((ccs_context_t){0})
#endif

enum ccs_context_flags {
    /* Active messages of this context may be delivered in any order. */
    CCS_CONTEXT_UNORDERED = 1u << 0,
    /* With the progress thread on: this context's handlers may run on it,
     * as messages arrive, while the application computes. Without the flag
     * they wait for the application's next call that makes progress and
     * run on that thread, in arrival order. Either way no two handlers run
     * at once. (Completion callbacks run wherever progress completes the
     * operation; counters are updated atomically.) */
    CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD = 1u << 1
};

typedef struct ccs_am_message ccs_am_message_t;
/* Runs inside ccs_progress and the calls that wait, on the calling thread.
 * A handler of a new context may run while ccs_context_create is still
 * waiting on this process (a faster peer sent already): the context's
 * handle is already in *context then. */
typedef void (*ccs_am_handler_fn)(const ccs_am_message_t *message, void *arg);

typedef struct ccs_am_handler_entry {
    uint16_t id;
    ccs_am_handler_fn handler;
    void *arg;
} ccs_am_handler_entry_t;

/* A large-message header handler (ccs/am_large.h) for ccs_context_params_t. */
struct ccs_am_header;
typedef void (*ccs_am_header_fn)(const struct ccs_am_header *header, void *arg);
typedef struct ccs_am_header_handler_entry {
    uint16_t id;
    ccs_am_header_fn handler;
    void *arg;
} ccs_am_header_handler_entry_t;

typedef struct ccs_context_params {
    size_t struct_size;   /* sizeof(ccs_context_params_t)                   */
    uint64_t flags;       /* ccs_context_flags                               */
    const char *name;     /* for messages and statistics; may be NULL        */
    /* Handlers registered before the creation barrier, so no peer can send
     * to this context before they exist. May be NULL. */
    const ccs_am_handler_entry_t *handlers;
    size_t num_handlers;
    /* Header handlers of large messages (ccs/am_large.h), registered with
     * the handlers above, under ids none of them takes. May be NULL.
     * (Appended: a struct_size that ends before them means none.) */
    const ccs_am_header_handler_entry_t *header_handlers;
    size_t num_header_handlers;
} ccs_context_params_t;

/* Collective over all processes, called in the same order everywhere
 * (like MPI_Comm_dup): when it returns on any process the context exists on
 * every process. Handlers given in params are in place everywhere by then;
 * handlers registered later need a ccs_barrier before peers use them. If
 * the arguments are bad on any process, every process gets an error
 * (CCS_ERR_INVALID_ARG where another process failed) and no context.
 * *context is written before the creation barrier, so a handler that runs
 * during the call (a faster peer sent already) finds the handle there; on
 * failure it is reset to {0}. params may be NULL. */
CCS_API ccs_status_t ccs_context_create(const ccs_context_params_t *params,
                                        ccs_context_t *context);

/* Local. Sends of this context still queued are handed to the transport
 * first (their callbacks run); messages that arrive for it afterwards are
 * dropped and counted (statistic am.dropped_destroyed_context), and the
 * part of any message half received for it is released. Other contexts
 * are not touched. */
CCS_API ccs_status_t ccs_context_destroy(ccs_context_t context);

/* Called at the target when a message cannot be delivered (unknown handler:
 * CCS_ERR_UNKNOWN_HANDLER), and on every process when a peer fails
 * (CCS_ERR_PEER_FAILED; its queued sends complete with that status). Also
 * at the sender when the transport refuses a message that ccs_am_send had
 * queued (it returned CCS_OK) and that has no completion to tell: peer is
 * the target, status the transport's error. The process keeps running.
 * A message refused after part of it went is not delivered either: the
 * target drops that part, and later messages do not wait for it.
 * Without a handler, the problem is logged. */
typedef void (*ccs_error_handler_fn)(ccs_context_t context, ccs_status_t status,
                                     int peer, const char *detail, void *arg);
CCS_API ccs_status_t ccs_context_set_error_handler(ccs_context_t context,
                                                   ccs_error_handler_fn handler,
                                                   void *arg);

/* -------------------------------------------------------------- completion */

typedef void (*ccs_completion_fn)(ccs_status_t status, void *arg);

/* Where a call takes a completion, NULL means "nothing to tell me": the
 * call then copies what it must so buffers are reusable on return. Either
 * member may be NULL: the callback runs, and the counter (ccs/rma.h) is
 * incremented, inside ccs_progress once the operation completed. */
struct ccs_counter;
typedef struct ccs_completion {
    ccs_completion_fn callback;
    void *arg;
    struct ccs_counter *counter;
} ccs_completion_t;

/* --------------------------------------------------------- active messages */

#define CCS_AM_MAX_ARGS 8
#define CCS_AM_MAX_HANDLERS 1024 /* handler ids are 0 .. 1023 */

struct ccs_am_message {
    ccs_context_t context;
    int source;            /* sender's rank                               */
    uint16_t handler;      /* id the message was sent to                  */
    size_t nargs;
    const uint64_t *args;  /* nargs words                                 */
    const void *payload;   /* valid only during the handler: copy out     */
    size_t payload_size;
};

/* An id outside [0, CCS_AM_MAX_HANDLERS) is CCS_ERR_INVALID_HANDLER for
 * every call that takes one; deregistering an id with no handler is
 * CCS_ERR_UNKNOWN_HANDLER. */
CCS_API ccs_status_t ccs_am_handler_register(ccs_context_t context,
                                             uint16_t handler_id,
                                             ccs_am_handler_fn handler,
                                             void *arg);
CCS_API ccs_status_t ccs_am_handler_deregister(ccs_context_t context,
                                               uint16_t handler_id);

/* Send an active message. args: nargs (<= CCS_AM_MAX_ARGS) words, copied.
 * payload: payload_size bytes. With a completion the payload must stay
 * untouched until its callback runs (large payloads are then sent from it
 * without a copy); without one it is copied and reusable on return.
 * Never blocks inside a handler. Outside handlers, when the bytes waiting
 * for the transport pass CCS_AM_QUEUE_LIMIT, it makes progress (handlers
 * and callbacks may run) until they fall below it. */
CCS_API ccs_status_t ccs_am_send(ccs_context_t context, int target,
                                 uint16_t handler_id, const uint64_t *args,
                                 size_t nargs, const void *payload,
                                 size_t payload_size,
                                 const ccs_completion_t *completion);

/* The same with a noncontiguous payload: `count` elements of the committed
 * datadesc `dd` at `base` (see ccs/datadesc.h). The handler still receives
 * one contiguous buffer. Each packet's share is packed straight into the
 * transport; without a completion, what must wait is packed into a copy. */
/* An opaque handle, not a pointer to anything the caller may read: CCS
 * looks it up in a table (a freed or made-up handle is refused, and a
 * handle freed once never names another datadesc). NULL is no datadesc. */
typedef struct ccs_datadesc_s *ccs_datadesc_t;
CCS_API ccs_status_t ccs_am_send_datadesc(ccs_context_t context, int target,
                                          uint16_t handler_id,
                                          const uint64_t *args, size_t nargs,
                                          const void *base, int64_t count,
                                          ccs_datadesc_t dd,
                                          const ccs_completion_t *completion);

/* ---------------------------------------------------------------- progress */

/* Runs handlers and completion callbacks that are ready. Never blocks. When
 * called in a loop with nothing to do it backs off and yields the CPU, so
 * more processes than cores still make progress. */
CCS_API ccs_status_t ccs_progress(void);

/* Blocking barrier over all processes (dissemination, O(log N) rounds).
 * Returns CCS_ERR_PEER_FAILED, instead of waiting forever, once any process
 * is known to have failed. */
CCS_API ccs_status_t ccs_barrier(void);

/* ------------------------------------------------------ introspection */

/* Named 64-bit counters ("am.sent", "am.queue_bytes_peak", ...). */
CCS_API ccs_status_t ccs_stats_get(const char *name, uint64_t *value);
CCS_API ccs_status_t ccs_stats_print(FILE *out);

/* How this process reaches a peer (ccs_peer_query): what a runtime may
 * count on for that rank, e.g. whether ccs_rkey_ptr can give it loads and
 * stores into the peer's ccs_mem_alloc memory (shmem_ptr). */
#define CCS_PEER_SAME_NODE (1u << 0)   /* on this node (or this process)           */
#define CCS_PEER_AM_ORDERED (1u << 1)  /* the transport itself keeps AM order      */
#define CCS_PEER_PUT_NATIVE (1u << 2)  /* puts move without the peer's CPU         */
#define CCS_PEER_GET_NATIVE (1u << 3)  /* gets move without the peer's CPU         */
#define CCS_PEER_MAPS_MEMORY (1u << 4) /* its ccs_mem_alloc memory is mapped here  */
#define CCS_PEER_FAILED (1u << 5)      /* known to have failed                     */
/* A transport of this process carries out atomics itself and reaches the
 * peer: atomics on its memory registered with CCS_ATOMICS_BY_NETWORK
 * (ccs/rma.h) can go. (Whether the transport's lanes to the peer do them
 * natively shows at the first one: CCS_ERR_UNSUPPORTED if not.) */
#define CCS_PEER_NETWORK_ATOMICS (1u << 6)
/* At thread level multiple, a ccs_am_send of one packet to the peer, with
 * no callback, runs beside the other threads' calls: threads sending on
 * contexts of their own meet at most on the peer's send queue, never on a
 * process-wide lock (as puts, gets and atomics to memory mapped here do). */
#define CCS_PEER_AM_CONCURRENT (1u << 7)
/* At thread level multiple, contiguous puts and gets (ccs_put, ccs_get
 * and their _sync forms, with no callback) through the transport's own
 * RMA run beside the other threads' calls, whatever the memory, and so do
 * their completions' bookkeeping. */
#define CCS_PEER_RMA_CONCURRENT (1u << 8)
/* At thread level multiple, atomics on the peer's memory registered for
 * network atomics (CCS_PEER_NETWORK_ATOMICS, where the transport's lanes
 * carry them out), with no callback, run beside the other threads' calls
 * too. */
#define CCS_PEER_NETWORK_ATOMICS_CONCURRENT (1u << 9)
/* A contiguous large message (ccs_am_send_large) to the peer that its
 * transport lands in one piece travels with its header: the peer's
 * transport keeps the payload, unread, until the header handler accepts
 * (then fetches it straight into the destination) or refuses, so the data
 * moves with no round trip before it. Without the flag the header goes
 * first and the payload once the peer accepted. */
#define CCS_PEER_AM_LARGE_WITH_HEADER (1u << 10)

typedef struct ccs_peer_attr {
    size_t struct_size;    /* set by the caller: sizeof(ccs_peer_attr_t)   */
    uint32_t flags;        /* CCS_PEER_*                                    */
    char transport[32];    /* plugin carrying traffic to it; "self" for us */
    size_t am_max_packet;  /* largest packet on that route; the core
                              fragments larger messages                     */
} ccs_peer_attr_t;

/* Fills *attr for rank `peer`. Without the peer's CPU (PUT/GET_NATIVE)
 * may change to through it after the transport refused an operation. */
CCS_API ccs_status_t ccs_peer_query(int peer, ccs_peer_attr_t *attr);

/* What ccs_info prints: version, plugins found and why each is or is not
 * usable, environment variables read. Works without ccs_init. */
CCS_API ccs_status_t ccs_info_print(FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* CCS_CCS_H */
