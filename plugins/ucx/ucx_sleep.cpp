// Sleeping until UCX has something: the worker's event descriptor, armed
// with ucp_worker_arm, which answers BUSY while events wait to be
// progressed.
#include "ucx_callbacks.hpp"

namespace ccs::ucx {

int32_t ucx_plugin::wakeup_fd() const {
    if (!cfg_.wakeup || !worker_) return -1;
    int fd = -1;
    const ucs_status_t st = ucp_worker_get_efd(worker_, &fd);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_INFO, std::string("no wake-up descriptor: ucp_worker_get_efd: ") + ucs_status_string(st));
        return -1;
    }
    return fd;
}

ccs_plugin_status_t ucx_plugin::wakeup_arm() {
    if (!cfg_.wakeup || !worker_) return CCS_PLUGIN_ERR_UNSUPPORTED;
    // Recorded but not yet handed to the core: progress first.
    if (delivered_ < arrivals_.size() || reports_ || !waiting_rendezvous_.empty()) return CCS_PLUGIN_AGAIN;
    const ucs_status_t st = ucp_worker_arm(worker_);
    if (st == UCS_ERR_BUSY) return CCS_PLUGIN_AGAIN;
    if (st != UCS_OK) return CCS_PLUGIN_ERR_UNSUPPORTED;
    // A sleep may last long: a dead peer is looked for at once after it.
    liveness_.look_next();
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::ucx
