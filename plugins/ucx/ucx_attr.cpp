// Configuration of the UCX plugin, and which UCX transports it will get.
#include "ucx_state.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ccs::ucx {
namespace {

bool parse_bytes(const std::string &text, size_t &out) {
    if (text.empty() || text[0] == '-') return false;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    unsigned long long mult = 1;
    if (*end == 'k' || *end == 'K') mult = 1ull << 10, ++end;
    else if (*end == 'm' || *end == 'M') mult = 1ull << 20, ++end;
    if (*end != '\0' || end == text.c_str() || v > (1ull << 40) / mult) return false;
    out = static_cast<size_t>(v * mult);
    return true;
}

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

}  // namespace

bool read_config(const ccs_plugin_services_v1_t &services, config &out, std::string &reason) {
    const std::string packet = services.param_get(services.core, "MAX_PACKET", "4m",
                                                  "largest AM packet handed to UCX (eager or rendezvous); the core "
                                                  "fragments bigger payloads");
    if (!parse_bytes(packet, out.max_packet) || out.max_packet < 256 || out.max_packet > (size_t{1} << 30)) {
        reason = "CCS_UCX_MAX_PACKET='" + packet + "' must be from 256 bytes to 1g";
        return false;
    }
    const std::string rma = services.param_get(services.core, "RMA", "auto",
                                               "put/get: auto (UCX's where its lanes to a peer do RMA without the "
                                               "peer's CPU, else the core's active messages), native or am");
    if (rma == "auto") out.rma = rma_mode::automatic;
    else if (rma == "native") out.rma = rma_mode::native;
    else if (rma == "am") out.rma = rma_mode::active_messages;
    else {
        reason = "CCS_UCX_RMA='" + rma + "' must be auto, native or am";
        return false;
    }
    const std::string inflight = services.param_get(services.core, "SENDS_IN_FLIGHT", "256",
                                                    "AM packets per peer UCX may hold before the core queues");
    size_t n = 0;
    if (!parse_bytes(inflight, n) || n < 1 || n > 65536) {
        reason = "CCS_UCX_SENDS_IN_FLIGHT='" + inflight + "' must be from 1 to 65536";
        return false;
    }
    out.max_sends_in_flight = static_cast<uint32_t>(n);
    return true;
}

transports configured_transports(const ucp_config_t *ucx_config) {
    transports out{"all", true};
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
    out.native_rma = false;
    std::istringstream list(out.names);
    for (std::string tl; std::getline(list, tl, ',');)
        if (moves_rma_natively(tl)) out.native_rma = true;
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
