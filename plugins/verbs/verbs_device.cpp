// Choosing the device and port; reading what they can do.
#include "verbs_device.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace ccs::verbs {
namespace {

const char *port_state_name(ibv_port_state s) {
    switch (s) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    }
    return "unknown";
}

bool gid_is_zero(const ibv_gid &gid) {
    return std::all_of(std::begin(gid.raw), std::end(gid.raw), [](uint8_t b) { return b == 0; });
}

// RoCE's GID: the requested entry, else the first RoCE v2 entry (it routes
// across subnets), else the first RoCE v1 one.
bool choose_gid(verbs_ops &ops, ibv_context *context, uint8_t port, int table_length, const device_request &request,
                port_facts &facts, std::string &why) {
    ibv_gid_entry entry{};
    if (request.gid_index >= 0) {
        if (request.gid_index >= table_length ||
            ops.query_gid(context, port, static_cast<uint32_t>(request.gid_index), entry) != 0 ||
            gid_is_zero(entry.gid)) {
            why = "CCS_VERBS_GID_INDEX=" + std::to_string(request.gid_index) + ": no such GID on " + facts.device +
                  " port " + std::to_string(port) + " (its table has " + std::to_string(table_length) + " entries)";
            return false;
        }
        facts.gid = entry.gid;
        facts.gid_index = request.gid_index;
        facts.roce_v2 = entry.gid_type == IBV_GID_TYPE_ROCE_V2;
        return true;
    }
    int v1 = -1;
    ibv_gid v1_gid{};
    for (int i = 0; i < table_length; ++i) {
        if (ops.query_gid(context, port, static_cast<uint32_t>(i), entry) != 0 || gid_is_zero(entry.gid)) continue;
        if (entry.gid_type == IBV_GID_TYPE_ROCE_V2) {
            facts.gid = entry.gid;
            facts.gid_index = i;
            facts.roce_v2 = true;
            return true;
        }
        if (v1 < 0) {
            v1 = i;
            v1_gid = entry.gid;
        }
    }
    if (v1 < 0) {
        why = facts.device + " port " + std::to_string(port) +
              " is Ethernet (RoCE) but has no GID: give its interface an IP address";
        return false;
    }
    facts.gid = v1_gid;
    facts.gid_index = v1;
    return true;
}

}  // namespace

bool parse_device_request(const std::string &text, device_request &out, std::string &reason) {
    out = device_request{};
    if (text.empty()) return true;
    const size_t colon = text.find(':');
    out.device = text.substr(0, colon);
    if (out.device.empty()) {
        reason = "CCS_VERBS_DEVICE='" + text + "' must be <device> or <device>:<port>, e.g. mlx5_0:1";
        return false;
    }
    if (colon == std::string::npos) return true;
    const std::string port = text.substr(colon + 1);
    char *end = nullptr;
    const long n = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || n < 1 || n > 255) {
        reason = "CCS_VERBS_DEVICE='" + text + "': the port must be a number from 1 to 255";
        return false;
    }
    out.port = static_cast<uint8_t>(n);
    return true;
}

int choose_device(const std::vector<device_entry> &devices, const device_request &request,
                  const std::vector<unsigned> &my_cpus, std::string &why) {
    if (devices.empty()) {
        if (why.empty()) why = "no RDMA device";  // else the listing said why
        return -1;
    }
    if (!request.device.empty()) {
        for (size_t i = 0; i < devices.size(); ++i)
            if (devices[i].name == request.device) return static_cast<int>(i);
        why = "CCS_VERBS_DEVICE names " + request.device + ", which is not here; devices:";
        for (const device_entry &d : devices) why += " " + d.name;
        return -1;
    }
    int best = 0;
    size_t best_shared = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
        size_t shared = 0;
        for (unsigned cpu : devices[i].near_cpus) shared += std::count(my_cpus.begin(), my_cpus.end(), cpu);
        if (shared > best_shared) {
            best = static_cast<int>(i);
            best_shared = shared;
        }
    }
    return best;
}

ccs_plugin_status_t read_port(verbs_ops &ops, ibv_context *context, const std::string &device,
                              const device_request &request, port_facts &facts, std::string &why) {
    facts = port_facts{};
    facts.device = device;
    ibv_device_attr dev{};
    if (ops.query_device(context, dev) != 0) {
        why = "ibv_query_device(" + device + ") failed";
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    ibv_port_attr pa{};
    uint8_t port = request.port;
    if (port != 0) {
        if (port > dev.phys_port_cnt || ops.query_port(context, port, pa) != 0) {
            why = device + " has no port " + std::to_string(port) + " (it has " + std::to_string(dev.phys_port_cnt) +
                  ")";
            return CCS_PLUGIN_ERR_NO_DEVICE;
        }
        if (pa.state != IBV_PORT_ACTIVE) {
            why = device + " port " + std::to_string(port) + " is " + port_state_name(pa.state) + ", not ACTIVE";
            return CCS_PLUGIN_ERR_NO_DEVICE;
        }
    } else {
        for (uint8_t p = 1; p <= dev.phys_port_cnt && port == 0; ++p)
            if (ops.query_port(context, p, pa) == 0 && pa.state == IBV_PORT_ACTIVE) port = p;
        if (port == 0) {
            why = device + " has no ACTIVE port";
            return CCS_PLUGIN_ERR_NO_DEVICE;
        }
    }
    facts.port = port;
    facts.ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    facts.lid = pa.lid;
    facts.mtu = pa.active_mtu;
    facts.max_message = pa.max_msg_sz;
    if (facts.ethernet || request.gid_index >= 0) {
        if (!choose_gid(ops, context, port, pa.gid_tbl_len, request, facts, why)) return CCS_PLUGIN_ERR_NO_DEVICE;
    } else if (facts.lid == 0) {
        why = device + " port " + std::to_string(port) + " has no LID yet (is a subnet manager running?)";
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    facts.atomics = dev.atomic_cap != IBV_ATOMIC_NONE;
    facts.max_sge = dev.max_sge;
    facts.max_qp_wr = dev.max_qp_wr;
    facts.max_srq_wr = dev.max_srq > 0 ? dev.max_srq_wr : 0;
    facts.max_rd_atomic = std::min(dev.max_qp_rd_atom, dev.max_qp_init_rd_atom);
    facts.max_cqe = dev.max_cqe;
    facts.max_mr = dev.max_mr;
    facts.max_mr_size = dev.max_mr_size;
    return CCS_PLUGIN_OK;
}

std::vector<unsigned> allowed_cpus() {
    std::vector<unsigned> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (unsigned c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

const char *mtu_name(ibv_mtu mtu) {
    switch (mtu) {
    case IBV_MTU_256: return "256";
    case IBV_MTU_512: return "512";
    case IBV_MTU_1024: return "1024";
    case IBV_MTU_2048: return "2048";
    case IBV_MTU_4096: return "4096";
    }
    return "unknown";
}

}  // namespace ccs::verbs
