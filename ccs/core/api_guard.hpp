// Shared checks for the C entry points: no C++ exception may leave the
// library, and every call needs a running runtime.
#pragma once

#include "runtime.hpp"
#include "util/error.hpp"

#include <new>
#include <stdexcept>

namespace ccs {

template <typename Body>
ccs_status_t guarded(Body body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return fail(CCS_ERR_NO_MEMORY, "out of memory");
    } catch (const std::exception &e) {
        return fail(CCS_ERR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return fail(CCS_ERR_INTERNAL, "internal error: unknown exception");
    }
}

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
    if (rt.am().in_callback())
        return fail(CCS_ERR_IN_HANDLER, std::string(call) + " may not be called from a handler or completion callback");
    return CCS_OK;
}

}  // namespace ccs
