#include "core/am/parked_payload.hpp"

#include "core/transport.hpp"

namespace ccs {

ccs_plugin_status_t parked_payload::fetch(void *to, uint64_t placement) {
    const uint64_t id = id_;
    id_ = 0;
    const std::shared_ptr<transport> route = route_.lock();
    if (!route || id == 0) return CCS_PLUGIN_ERR_INVALID;
    return route->parked_fetch(id, to, length_, placement);
}

void parked_payload::release() {
    if (id_ == 0) return;
    const uint64_t id = id_;
    id_ = 0;
    if (const std::shared_ptr<transport> route = route_.lock()) route->parked_release(id);
}

}  // namespace ccs
