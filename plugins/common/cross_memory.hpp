// Cross-memory attach for a node-scope plugin's RMA: the core's helper
// (util/cross_memory.hpp), its errors as plugin statuses.
#pragma once

#include "util/cross_memory.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

namespace ccs::plugin {

// What cross_memory_move's result means to the core: UNSUPPORTED where the
// kernel refuses (the core then carries RMA in messages).
inline ccs_plugin_status_t cross_memory_status(int error) {
    switch (error) {
    case 0: return CCS_PLUGIN_OK;
    case EPERM:
    case ENOSYS: return CCS_PLUGIN_ERR_UNSUPPORTED;
    case ESRCH: return CCS_PLUGIN_ERR_PEER_FAILED;
    case EFAULT: return CCS_PLUGIN_ERR_ACCESS;
    default: return CCS_PLUGIN_ERR_SYSTEM;
    }
}

}  // namespace ccs::plugin
