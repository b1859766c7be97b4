// Configuration of the verbs plugin and what its device offers.
#include "verbs_plugin.hpp"

#include <cstdio>

namespace ccs::verbs {
namespace {

bool read_count(const plugin::core_services &core, const char *name, const char *default_value,
                const char *description, size_t min, size_t max, uint32_t &out, std::string &reason) {
    size_t v = 0;
    if (!core.param_size(name, default_value, description, min, max, v, reason,
                         ("from " + std::to_string(min) + " to " + std::to_string(max)).c_str()))
        return false;
    out = static_cast<uint32_t>(v);
    return true;
}

bool read_small(const plugin::core_services &core, const char *name, const char *default_value,
                const char *description, size_t max, uint8_t &out, std::string &reason) {
    uint32_t v = 0;
    if (!read_count(core, name, default_value, description, 0, max, v, reason)) return false;
    out = static_cast<uint8_t>(v);
    return true;
}

}  // namespace

bool verbs_plugin::read_config(const plugin::core_services &core, config &out, std::string &reason) {
    const std::string device = core.param("DEVICE", "",
                                          "RDMA device and port to use, as <device> or <device>:<port> "
                                          "(e.g. mlx5_0:1); empty: the device nearest to this process, "
                                          "its first active port");
    if (!parse_device_request(device, out.device, reason)) return false;
    const std::string gid = core.param("GID_INDEX", "auto",
                                       "GID table index (RoCE, or InfiniBand across subnets); auto: the first "
                                       "RoCE v2 entry on Ethernet ports, none on InfiniBand");
    if (gid != "auto") {
        char *end = nullptr;
        const long v = std::strtol(gid.c_str(), &end, 10);
        if (gid.empty() || *end != '\0' || v < 0 || v > 255) {
            reason = core.variable("GID_INDEX") + "='" + gid + "' must be auto or from 0 to 255";
            return false;
        }
        out.device.gid_index = static_cast<int>(v);
    }
    uint32_t connect_ms = 0, keepalive_ms = 0, wakeup = 1;
    if (!core.param_size("EAGER_SIZE", "8k",
                         "receive buffer size: the largest active-message packet; the core splits larger messages",
                         1024, size_t{1} << 20, out.eager_size, reason, "from 1k to 1m") ||
        !read_count(core, "CREDITS", "32",
                    "receive buffers granted to each connected peer (packets it may have in flight to us)", 1,
                    4096, out.credits, reason) ||
        !read_count(core, "SEND_QUEUE", "256", "work requests in flight per connection", 16, 32768,
                    out.send_queue, reason) ||
        !read_count(core, "RECEIVE_BUFFERS", "16384",
                    "receive buffers over all peers; peers beyond it get fewer credits", 64, 1u << 20,
                    out.max_receive_buffers, reason) ||
        !read_small(core, "TIMEOUT", "14", "transport timeout exponent: 4.096 us * 2^n per attempt", 31,
                    out.rc.timeout, reason) ||
        !read_small(core, "RETRY_COUNT", "7", "transport retries before a peer counts as lost", 7,
                    out.rc.retry_count, reason) ||
        !read_small(core, "RNR_RETRY", "7", "receiver-not-ready retries (7: without end)", 7, out.rc.rnr_retry,
                    reason) ||
        !read_count(core, "CONNECT_TIMEOUT_MS", "30000",
                    "how long a peer may take to answer a connection request, in ms", 100, 3600000, connect_ms,
                    reason) ||
        !read_count(core, "KEEPALIVE_MS", "1000",
                    "idle connections are probed this often (ms), so a dead peer is noticed; 0: never", 0,
                    3600000, keepalive_ms, reason) ||
        !read_count(core, "WAKEUP", "1",
                    "1: blocking waits sleep on the completion channel; 0: they sleep in short slices", 0, 1,
                    wakeup, reason))
        return false;
    out.connect_timeout = std::chrono::milliseconds(connect_ms);
    out.keepalive = std::chrono::milliseconds(keepalive_ms);
    out.wakeup = wakeup != 0;
    return true;
}

ccs_plugin_status_t verbs_plugin::query_on(verbs_ops &ops, const plugin::core_services &core, const config &cfg,
                                           ccs_plugin_attr_v1_t &attr) {
    std::string why;
    const std::vector<device_entry> devices = ops.list_devices(why);
    const int chosen = choose_device(devices, cfg.device, allowed_cpus(), why);
    if (chosen < 0) {
        core.log(CCS_PLUGIN_LOG_INFO, why);
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    const device_entry &d = devices[static_cast<size_t>(chosen)];
    ibv_context *context = ops.open_device(d.name);
    if (!context) {
        core.log(CCS_PLUGIN_LOG_INFO, "cannot open RDMA device " + d.name);
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    port_facts facts;
    const ccs_plugin_status_t st = read_port(ops, context, d.name, cfg.device, facts, why);
    ops.close_device(context);
    if (st != CCS_PLUGIN_OK) {
        core.log(CCS_PLUGIN_LOG_INFO, why);
        return st;
    }
    if (facts.max_srq_wr == 0) {
        core.log(CCS_PLUGIN_LOG_INFO, d.name + " has no shared receive queue, which this plugin needs");
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    attr.caps = CCS_PLUGIN_CAP_AM | CCS_PLUGIN_CAP_AM_ORDERED | CCS_PLUGIN_CAP_PUT | CCS_PLUGIN_CAP_GET |
                (facts.atomics ? CCS_PLUGIN_CAP_ATOMIC : 0);
    attr.scope = CCS_PLUGIN_SCOPE_NETWORK;
    // Below UCX: where both work, UCX's protocols are the default and this
    // plugin is chosen by name.
    attr.priority = 40;
    attr.am_max_packet = cfg.eager_size;
    std::snprintf(attr.description, sizeof attr.description, "libibverbs RC on %s port %u (%s, MTU %s%s)",
                  d.name.c_str(), facts.port, facts.ethernet ? (facts.roce_v2 ? "RoCE v2" : "RoCE v1") : "InfiniBand",
                  mtu_name(facts.mtu), facts.atomics ? ", atomics" : "");
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::verbs
