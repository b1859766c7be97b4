// Which RDMA device and port the plugin drives, and what they can do.
// CCS_VERBS_DEVICE names one (device or device:port); otherwise the device
// nearest to the CPUs this process may run on, by hwloc, and its first
// active port. On RoCE the GID is CCS_VERBS_GID_INDEX's, or the first
// RoCE v2 entry (routable), else the first RoCE v1 one.
#pragma once

#include "verbs_ops.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ccs::verbs {

struct device_request {
    std::string device;  // empty: choose
    uint8_t port = 0;    // 0: the first active port
    int gid_index = -1;  // -1: choose (RoCE); InfiniBand addresses by LID
};

// "" (choose), "mlx5_0" or "mlx5_0:1"; false with `reason` otherwise.
bool parse_device_request(const std::string &text, device_request &out, std::string &reason);

// The index in `devices` of the requested one, or of the one whose near
// CPUs share most with `my_cpus` (the first on a tie); -1 with `why`.
int choose_device(const std::vector<device_entry> &devices, const device_request &request,
                  const std::vector<unsigned> &my_cpus, std::string &why);

// What the plugin needs to know of its port and device.
struct port_facts {
    std::string device;
    uint8_t port = 0;
    bool ethernet = false;  // RoCE: address by GID, no LID
    uint16_t lid = 0;
    ibv_gid gid{};
    int gid_index = -1;
    bool roce_v2 = false;
    ibv_mtu mtu = IBV_MTU_1024;  // the port's active MTU
    uint32_t max_message = 0;    // largest RDMA transfer, bytes
    bool atomics = false;        // 64-bit fetch-add and compare-and-swap
    int max_sge = 1;
    int max_qp_wr = 1;
    int max_srq_wr = 0;  // 0: no shared receive queue
    int max_rd_atomic = 1;
    int max_cqe = 1;
    int max_mr = 1;
    uint64_t max_mr_size = 0;
};

// The port `request` names on `context`'s device (or its first active
// one): OK and `facts`, or NO_DEVICE with `why` (no active port, no usable
// GID) or SYSTEM (a query failed).
ccs_plugin_status_t read_port(verbs_ops &ops, ibv_context *context, const std::string &device,
                              const device_request &request, port_facts &facts, std::string &why);

// The CPUs this process may run on.
std::vector<unsigned> allowed_cpus();

const char *mtu_name(ibv_mtu mtu);

}  // namespace ccs::verbs
