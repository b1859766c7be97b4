#include "util/error.hpp"

namespace ccs {
namespace {
thread_local std::string tls_last_error;
}

ccs_status_t fail(ccs_status_t status, std::string detail) {
    tls_last_error = std::move(detail);
    return status;
}

const std::string &last_error() { return tls_last_error; }

}  // namespace ccs
