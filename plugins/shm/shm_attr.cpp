// Configuration and attributes of the shm plugin.
#include "shm_plugin.hpp"

#include <cstdio>

#include <unistd.h>

namespace ccs::shm {

bool shm_plugin::read_config(const plugin::core_services &core, config &out, std::string &reason) {
    if (!core.param_size("RING_SIZE", "256k",
                         "bytes per ring (one per ordered pair of local processes that talk); power of two", 16u << 10,
                         1u << 30, out.ring_capacity, reason, "a power of two from 16k to 1G"))
        return false;
    if ((out.ring_capacity & (out.ring_capacity - 1)) != 0) {
        reason = core.variable("RING_SIZE") + "='" + std::to_string(out.ring_capacity) +
                 "' must be a power of two from 16k to 1G";
        return false;
    }
    if (!core.param_size("MAX_PACKET", "32k", "largest AM packet; bigger payloads are fragmented by the core", 256,
                         ring_max_record(out.ring_capacity), out.max_packet, reason,
                         "from 256 bytes to a quarter of CCS_SHM_RING_SIZE minus 16"))
        return false;
    if (!core.param_size("RING_IDLE_MS", "1000",
                         "milliseconds a ring to a peer may go unused before its memory goes back to the system",
                         2, 3600 * 1000, out.ring_idle_ms, reason, "milliseconds from 2 to 3600000"))
        return false;
    return core.param_choice<bulk_copy::method>("BULK_COPY", "auto",
                                                "copies of 1 MiB and more to and from mapped peer memory: auto "
                                                "(time both ways on the first ones), memcpy or movsb",
                                                {{"auto", bulk_copy::method::trial},
                                                 {"memcpy", bulk_copy::method::memcpy},
                                                 {"movsb", bulk_copy::method::movsb}},
                                                out.bulk, reason);
}

ccs_plugin_status_t shm_plugin::query(const plugin::core_services &core, const config &cfg,
                                      ccs_plugin_attr_v1_t &attr) {
    if (::access("/dev/shm", W_OK) != 0) {
        core.log(CCS_PLUGIN_LOG_INFO, "/dev/shm is not writable");
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    attr.caps = CCS_PLUGIN_CAP_AM | CCS_PLUGIN_CAP_AM_ORDERED | CCS_PLUGIN_CAP_PUT | CCS_PLUGIN_CAP_GET |
                CCS_PLUGIN_CAP_MAP_SHARED;
    attr.scope = CCS_PLUGIN_SCOPE_NODE;
    attr.priority = 100;
    attr.am_max_packet = cfg.max_packet;
    std::snprintf(attr.description, sizeof attr.description,
                  "POSIX shm: an SPSC ring of %zu KiB per pair that talks, doorbells; put/get by mapping "
                  "ccs_mem_alloc memory, else cross-memory attach",
                  cfg.ring_capacity >> 10);
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::shm
