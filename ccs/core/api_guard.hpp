// Shared checks for the C entry points: every call needs a running runtime,
// and blocking calls must not run inside handlers.
#pragma once

#include "runtime.hpp"
#include "util/error.hpp"
#include "util/guarded.hpp"

namespace ccs {

// The running runtime, or null with `status` set to the reason.
inline runtime *running(ccs_status_t &status, const char *call) {
    runtime *rt = runtime::current();
    if (!rt)
        status = fail(CCS_ERR_NOT_INITIALIZED,
                      std::string(call) + ": CCS is not initialized" +
                          (runtime::finalized() ? " (ccs_finalize was called)" : " (call ccs_init first)"));
    return rt;
}

// For calls that block: they would deadlock inside a handler or callback.
inline ccs_status_t check_not_in_callback(runtime &rt, const char *call) {
    if (rt.in_callback())
        return fail(CCS_ERR_IN_HANDLER, std::string(call) + " may not be called from a handler or completion callback");
    return CCS_OK;
}

}  // namespace ccs
