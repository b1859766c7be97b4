// Failure reporting: every public call returns a ccs_status_t; the detail
// (which rank, plugin, path, reason) goes to a thread-local string that
// ccs_last_error() returns.
#pragma once

#include <ccs/ccs.h>

#include <string>

namespace ccs {

// Records `detail` as the last error of this thread and returns `status`,
// so a failing path reads `return fail(CCS_ERR_X, "...")`.
ccs_status_t fail(ccs_status_t status, std::string detail);

const std::string &last_error();

}  // namespace ccs
