// Failure reporting: every public call returns a ccs_status_t; the detail
// (which rank, plugin, path, reason) goes to a thread-local string that
// ccs_last_error() returns.
#pragma once

#include <ccs/ccs.h>

#include <string>

namespace ccs {

// Records `detail` as the last error of this thread and returns `status`,
// so a failing path reads `return fail(CCS_ERR_X, "...")`. Cold: the
// compiler moves each failing path, message building and all, out of the
// function's hot code, so a call's fast path spans fewer cache lines and
// pages (it runs from cold caches after a large copy or a compute phase).
[[gnu::cold]] ccs_status_t fail(ccs_status_t status, std::string detail);

const std::string &last_error();

}  // namespace ccs
