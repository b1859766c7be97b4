// No C++ exception may leave the library through a C entry point: each one
// runs its body through guarded(), which turns exceptions into statuses and
// holds the API lock (util/api_lock.hpp) while threads share the library.
#pragma once

#include "util/api_lock.hpp"
#include "util/error.hpp"

#include <ccs/ccs.h>

#include <new>
#include <stdexcept>
#include <string>

namespace ccs {

template <typename Body>
ccs_status_t guarded(Body body) noexcept {
    const api_lock::entry inside;
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

}  // namespace ccs
