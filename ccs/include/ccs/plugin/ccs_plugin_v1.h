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

typedef int32_t ccs_plugin_status_t;
enum {
    CCS_PLUGIN_OK = 0,
    CCS_PLUGIN_AGAIN = 1,               /* no resources now; retry later     */
    CCS_PLUGIN_ERR_NO_DEVICE = -1,      /* nothing to drive on this machine  */
    CCS_PLUGIN_ERR_NO_MEMORY = -2,
    CCS_PLUGIN_ERR_INVALID = -3,
    CCS_PLUGIN_ERR_UNSUPPORTED = -4,    /* operation not provided            */
    CCS_PLUGIN_ERR_PEER_FAILED = -5,
    CCS_PLUGIN_ERR_TRANSPORT = -6,
    CCS_PLUGIN_ERR_SYSTEM = -7          /* an OS call failed (see the log)   */
};

/* Capability bits (ccs_plugin_attr_v1_t.caps). */
#define CCS_PLUGIN_CAP_AM (1ull << 0)         /* am_send / am_deliver      */
#define CCS_PLUGIN_CAP_AM_ORDERED (1ull << 1) /* FIFO per (source, target) */
/* Bits 2..63 are reserved for RMA, atomics and later capabilities. */

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
} ccs_plugin_attr_v1_t;

typedef struct ccs_plugin_iov_v1 {
    const void *base;
    size_t length;
} ccs_plugin_iov_v1_t;

/* What the core tells a plugin about the job at init. */
typedef struct ccs_plugin_job_v1 {
    size_t struct_size;
    int32_t rank;
    int32_t size;
    const char *job_id;           /* unique among concurrent jobs         */
    const uint32_t *node_of_rank; /* dense node index of every rank       */
    uint32_t num_nodes;
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
} ccs_plugin_v1_t;

#ifdef __cplusplus
}
#endif
#endif /* CCS_PLUGIN_V1_H */
