// Configuration and attributes of the UCX plugin: which UCX transports it
// will get and what they do.
#include "ucx_callbacks.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ccs::ucx {
namespace {

// UCX transport names (and aliases) whose put and get need no CPU at the
// target: shared memory, cross-memory attach and the InfiniBand/RoCE
// reliable transports. tcp and ud emulate RMA in software.
bool moves_rma_natively(const std::string &tl) {
    static const char *const native[] = {"all", "sm", "shm", "mm", "posix", "sysv", "xpmem", "knem", "cma",
                                         "ib", "rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "dc", "dc_x",
                                         "dc_mlx5", "cuda_ipc", "rocm_ipc"};
    for (const char *n : native)
        if (tl == n) return true;
    return false;
}

// Those that carry out atomics themselves (UCX emulates them over the
// others): shared memory (CPU atomics in the segment) and the
// InfiniBand/RoCE transports (the adapter's).
bool does_atomics_natively(const std::string &tl) {
    static const char *const native[] = {"all", "sm", "shm", "mm", "posix", "sysv", "xpmem", "self", "ib", "rc",
                                         "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "dc", "dc_x", "dc_mlx5"};
    for (const char *n : native)
        if (tl == n) return true;
    return false;
}

}  // namespace

bool ucx_plugin::read_config(const plugin::core_services &core, config &out, std::string &reason) {
    size_t in_flight = 0;
    if (!core.param_size("MAX_PACKET", "0",
                         "largest AM packet handed to UCX (eager or rendezvous); the core fragments bigger payloads; "
                         "0: 4m where UCX_TLS names a transport with native RMA, else CCS_UCX_EAGER_MAX",
                         0, size_t{1} << 30, out.max_packet, reason, "0 or from 256 bytes to 1g") ||
        !core.param_choice<rma_mode>("RMA", "auto",
                                     "put/get: auto (UCX's where its lanes to a peer do RMA without the peer's CPU, "
                                     "else the core's active messages), native or am",
                                     {{"auto", rma_mode::automatic},
                                      {"native", rma_mode::native},
                                      {"am", rma_mode::active_messages}},
                                     out.rma, reason) ||
        !core.param_size("SENDS_IN_FLIGHT", "256", "AM packets per peer UCX may hold before the core queues", 1,
                         65536, in_flight, reason) ||
        !core.param_size("EAGER_MAX", "256k",
                         "largest AM packet sent eager to peers whose UCX lanes have no RMA (TCP), where UCX's "
                         "rendezvous is emulated; 0: UCX chooses",
                         0, size_t{1} << 30, out.eager_max, reason, "from 0 to 1g") ||
        !core.param_choice<bool>("WAKEUP", "1",
                                 "1: UCX gives a wake-up descriptor (UCP_FEATURE_WAKEUP) and blocking waits sleep "
                                 "on it; 0: waits over UCX sleep only in short slices",
                                 {{"1", true}, {"0", false}}, out.wakeup, reason))
        return false;
    if (out.max_packet != 0 && out.max_packet < 256) {
        reason = "CCS_UCX_MAX_PACKET=" + std::to_string(out.max_packet) + ": must be 0 or from 256 bytes to 1g";
        return false;
    }
    out.max_sends_in_flight = static_cast<uint32_t>(in_flight);
    return true;
}

size_t max_packet_for(const config &cfg, const transports &tls) {
    if (cfg.max_packet != 0) return cfg.max_packet;
    return tls.native_rma || cfg.eager_max < (64u << 10) ? size_t{4} << 20 : cfg.eager_max;
}

ccs_plugin_status_t ucx_plugin::query(const plugin::core_services &core, const config &cfg,
                                      ccs_plugin_attr_v1_t &attr) {
    ucp_config_t *ucx_config = nullptr;
    ucs_status_t st = read_ucx_config(&ucx_config);
    if (st != UCS_OK) {
        core.log(CCS_PLUGIN_LOG_ERROR, std::string("cannot read the UCX configuration: ") + ucs_status_string(st));
        return CCS_PLUGIN_ERR_INVALID;
    }
    const transports tls = configured_transports(ucx_config);
    ucp_config_release(ucx_config);
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    const bool rma = cfg.rma == rma_mode::native || (cfg.rma == rma_mode::automatic && tls.native_rma);
    // Without CAP_PUT/GET the core carries RMA in active messages for every
    // peer; with them, a peer whose lanes turn out to be software-emulated
    // is switched over when its endpoint is made.
    attr.caps = CCS_PLUGIN_CAP_AM | (rma ? CCS_PLUGIN_CAP_PUT | CCS_PLUGIN_CAP_GET : 0) |
                (tls.native_atomics ? CCS_PLUGIN_CAP_ATOMIC : 0);
    attr.scope = CCS_PLUGIN_SCOPE_NETWORK;
    attr.priority = 50;
    attr.am_max_packet = max_packet_for(cfg, tls);
    if (CCS_PLUGIN_COVERS(&attr, am_nocopy_min)) attr.am_nocopy_min = nocopy_min;
    if (CCS_PLUGIN_COVERS(&attr, am_placeable_max)) attr.am_placeable_max = placeable_max_for(tls);
    std::snprintf(attr.description, sizeof attr.description, "UCX %u.%u.%u UCP, UCX_TLS=%s; put/get %s%s", major,
                  minor, release, tls.names.c_str(),
                  !rma ? "by the core's active messages"
                       : cfg.rma == rma_mode::native ? "by UCX (forced)" : "by UCX where its lanes do RMA natively",
                  tls.native_atomics ? "; network atomics" : "");
    return CCS_PLUGIN_OK;
}

ucs_status_t read_ucx_config(ucp_config_t **config) { return ucp_config_read("CCS", nullptr, config); }

transports configured_transports(const ucp_config_t *ucx_config) {
    transports out{"all", true, true};
    char *text = nullptr;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) return out;
    ucp_config_print(ucx_config, f, nullptr, UCS_CONFIG_PRINT_CONFIG);
    std::fclose(f);
    std::istringstream lines(std::string(text, size));
    std::free(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("UCX_TLS=", 0) != 0) continue;
        out.names = line.substr(8);
        break;
    }
    // "^tcp" means everything but tcp; an exclusion list may leave a native one.
    if (out.names.empty() || out.names[0] == '^') return out;
    out.native_rma = out.native_atomics = false;
    std::istringstream list(out.names);
    for (std::string tl; std::getline(list, tl, ',');) {
        out.native_rma = out.native_rma || moves_rma_natively(tl);
        out.native_atomics = out.native_atomics || does_atomics_natively(tl);
    }
    return out;
}

ccs_plugin_status_t status_from_ucs(ucs_status_t status) {
    switch (status) {
    case UCS_OK: return CCS_PLUGIN_OK;
    case UCS_INPROGRESS: return CCS_PLUGIN_IN_PROGRESS;
    case UCS_ERR_NO_RESOURCE: return CCS_PLUGIN_AGAIN;
    case UCS_ERR_NO_MEMORY: return CCS_PLUGIN_ERR_NO_MEMORY;
    case UCS_ERR_INVALID_PARAM: return CCS_PLUGIN_ERR_INVALID;
    case UCS_ERR_UNSUPPORTED: return CCS_PLUGIN_ERR_UNSUPPORTED;
    case UCS_ERR_NO_DEVICE: return CCS_PLUGIN_ERR_NO_DEVICE;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_REJECTED:
    case UCS_ERR_CANCELED: return CCS_PLUGIN_ERR_PEER_FAILED;
    case UCS_ERR_EXCEEDS_LIMIT: return CCS_PLUGIN_ERR_LIMIT;
    case UCS_ERR_INVALID_ADDR: return CCS_PLUGIN_ERR_ACCESS;
    default: return CCS_PLUGIN_ERR_TRANSPORT;
    }
}

}  // namespace ccs::ucx
