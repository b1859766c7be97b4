// C entry points: status names, init/finalize, rank and size.
#include "api_guard.hpp"

#include <array>
#include <cstddef>
#include <cstdio>

#include <unistd.h>

using namespace ccs;

namespace {

struct status_text {
    ccs_status_t status;
    const char *text;
};

// One line per status; the test suite checks that every status has one.
constexpr std::array<status_text, CCS_STATUS_COUNT_> status_texts{{
    {CCS_OK, "CCS_OK: success"},
    {CCS_ERR_INVALID_ARG, "CCS_ERR_INVALID_ARG: invalid argument (NULL pointer, bad size or flag)"},
    {CCS_ERR_NOT_INITIALIZED, "CCS_ERR_NOT_INITIALIZED: CCS is not initialized, or was finalized"},
    {CCS_ERR_FINALIZED, "CCS_ERR_FINALIZED: CCS was finalized and cannot be initialized again"},
    {CCS_ERR_INVALID_RANK, "CCS_ERR_INVALID_RANK: rank is outside [0, size)"},
    {CCS_ERR_INVALID_CONTEXT, "CCS_ERR_INVALID_CONTEXT: context was never created or was destroyed"},
    {CCS_ERR_INVALID_HANDLER, "CCS_ERR_INVALID_HANDLER: handler id out of range"},
    {CCS_ERR_UNKNOWN_HANDLER, "CCS_ERR_UNKNOWN_HANDLER: no handler registered under that id"},
    {CCS_ERR_HANDLER_IN_USE, "CCS_ERR_HANDLER_IN_USE: a handler is already registered under that id"},
    {CCS_ERR_TOO_MANY_ARGS, "CCS_ERR_TOO_MANY_ARGS: more arguments than CCS_AM_MAX_ARGS"},
    {CCS_ERR_MESSAGE_TOO_LARGE, "CCS_ERR_MESSAGE_TOO_LARGE: message too large"},
    {CCS_ERR_NO_MEMORY, "CCS_ERR_NO_MEMORY: out of memory"},
    {CCS_ERR_IN_HANDLER, "CCS_ERR_IN_HANDLER: blocking call from inside a handler or callback"},
    {CCS_ERR_PLUGIN_NOT_FOUND, "CCS_ERR_PLUGIN_NOT_FOUND: transport plugin not found"},
    {CCS_ERR_PLUGIN_LOAD, "CCS_ERR_PLUGIN_LOAD: transport plugin could not be loaded"},
    {CCS_ERR_PLUGIN_ABI, "CCS_ERR_PLUGIN_ABI: transport plugin has an unsupported ABI"},
    {CCS_ERR_PLUGIN_INIT, "CCS_ERR_PLUGIN_INIT: transport plugin failed to initialize"},
    {CCS_ERR_NO_TRANSPORT, "CCS_ERR_NO_TRANSPORT: no usable transport reaches a peer"},
    {CCS_ERR_BOOTSTRAP, "CCS_ERR_BOOTSTRAP: bootstrap (launcher or PMI) failed"},
    {CCS_ERR_TRANSPORT, "CCS_ERR_TRANSPORT: transport error"},
    {CCS_ERR_PEER_FAILED, "CCS_ERR_PEER_FAILED: peer process failed or is unreachable"},
    {CCS_ERR_UNSUPPORTED, "CCS_ERR_UNSUPPORTED: operation not supported"},
    {CCS_ERR_CANCELED, "CCS_ERR_CANCELED: operation canceled"},
    {CCS_ERR_TOO_MANY_CONTEXTS, "CCS_ERR_TOO_MANY_CONTEXTS: no context ids left"},
    {CCS_ERR_NOT_FOUND, "CCS_ERR_NOT_FOUND: no such name"},
    {CCS_ERR_INTERNAL, "CCS_ERR_INTERNAL: internal error"},
    {CCS_ERR_OVERFLOW, "CCS_ERR_OVERFLOW: a size or displacement does not fit in 64 bits"},
    {CCS_ERR_NOT_COMMITTED, "CCS_ERR_NOT_COMMITTED: datadesc not committed"},
    {CCS_ERR_INVALID_MEMORY, "CCS_ERR_INVALID_MEMORY: memory handle never registered or already deregistered"},
    {CCS_ERR_NOT_REGISTERED, "CCS_ERR_NOT_REGISTERED: address is in no registered or exposed region"},
    {CCS_ERR_OUT_OF_RANGE, "CCS_ERR_OUT_OF_RANGE: access outside the registered region"},
    {CCS_ERR_INVALID_KEY, "CCS_ERR_INVALID_KEY: remote key malformed, released or for another process"},
    {CCS_ERR_NO_RESOURCES, "CCS_ERR_NO_RESOURCES: registration limit reached and nothing left to evict"},
    {CCS_ERR_INVALID_TEAM, "CCS_ERR_INVALID_TEAM: team never created, destroyed, or of a destroyed context"},
    {CCS_ERR_REFUSED, "CCS_ERR_REFUSED: the target refused the message, or could not take it where it accepted it"},
}};

}  // namespace

extern "C" {

const char *ccs_strerror(ccs_status_t status) {
    for (const auto &s : status_texts)
        if (s.status == status) return s.text;
    return "unknown ccs_status_t value";
}

const char *ccs_last_error(void) { return last_error().c_str(); }

ccs_status_t ccs_init(const ccs_init_params_t *params) {
    return guarded([&]() -> ccs_status_t {
        int level = CCS_THREAD_SINGLE;
        bool progress_thread = false;
        if (params) {
            if (params->struct_size < sizeof(size_t) + sizeof(uint64_t))
                return fail(CCS_ERR_INVALID_ARG, "ccs_init: params->struct_size is too small");
            if (params->flags & ~static_cast<uint64_t>(CCS_INIT_PROGRESS_THREAD))
                return fail(CCS_ERR_INVALID_ARG, "ccs_init: unknown flags");
            progress_thread = (params->flags & CCS_INIT_PROGRESS_THREAD) != 0;
            if (params->struct_size >= offsetof(ccs_init_params_t, thread_level) + sizeof(int)) {
                level = params->thread_level;
                if (level < CCS_THREAD_SINGLE || level > CCS_THREAD_MULTIPLE)
                    return fail(CCS_ERR_INVALID_ARG, "ccs_init: thread_level " + std::to_string(level) +
                                                         " is not a ccs_thread_level_t");
            }
        }
        return runtime::acquire(level, progress_thread);
    });
}

ccs_status_t ccs_finalize(void) {
    return guarded([&]() -> ccs_status_t { return runtime::release(); });
}

ccs_status_t ccs_initialized(int *flag) {
    if (!flag) return fail(CCS_ERR_INVALID_ARG, "ccs_initialized: flag is NULL");
    *flag = runtime::current() != nullptr;
    return CCS_OK;
}

ccs_status_t ccs_abort(int exit_code, const char *reason) {
    if (exit_code < 0 || exit_code > 255)
        return fail(CCS_ERR_INVALID_ARG, "ccs_abort: exit code " + std::to_string(exit_code) + " is not in 0 .. 255");
    // Not under the API lock: the job must end even if a thread holds it.
    runtime *rt = runtime::current();
    const std::string why = reason ? reason : "";
    std::fprintf(stderr, "ccs[%d]: ccs_abort(%d)%s%s\n", rt ? rt->rank() : -1, exit_code, why.empty() ? "" : ": ",
                 why.c_str());
    std::fflush(nullptr);
    if (rt) rt->abort_job(exit_code, why);
    ::_exit(exit_code);
}

ccs_status_t ccs_query_thread(int *level) {
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_query_thread");
    if (!rt) return st;
    if (!level) return fail(CCS_ERR_INVALID_ARG, "ccs_query_thread: level is NULL");
    *level = rt->thread_level();
    return CCS_OK;
}

ccs_status_t ccs_rank(int *rank) {
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_rank");
    if (!rt) return st;
    if (!rank) return fail(CCS_ERR_INVALID_ARG, "ccs_rank: rank is NULL");
    *rank = rt->rank();
    return CCS_OK;
}

ccs_status_t ccs_size(int *size) {
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_size");
    if (!rt) return st;
    if (!size) return fail(CCS_ERR_INVALID_ARG, "ccs_size: size is NULL");
    *size = rt->size();
    return CCS_OK;
}

}  // extern "C"
