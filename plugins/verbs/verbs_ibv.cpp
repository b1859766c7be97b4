// verbs_ops on libibverbs: each call is the library's, unchanged.
#include "verbs_ops.hpp"

#include <hwloc.h>
#include <hwloc/openfabrics-verbs.h>

#include <cerrno>
#include <cstring>

namespace ccs::verbs {
namespace {

// The CPUs hwloc finds nearest to `device` (its local_cpus in sysfs).
std::vector<unsigned> near_cpus(ibv_device *device) {
    std::vector<unsigned> cpus;
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) return cpus;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_topology_load(topology) == 0 && hwloc_ibv_get_device_cpuset(topology, device, set) == 0 &&
        !hwloc_bitmap_iszero(set) && !hwloc_bitmap_isfull(set)) {
        unsigned cpu;
        hwloc_bitmap_foreach_begin(cpu, set) cpus.push_back(cpu);
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topology);
    return cpus;
}

class ibv_library final : public verbs_ops {
public:
    std::vector<device_entry> list_devices(std::string &why) override {
        std::vector<device_entry> out;
        int n = 0;
        errno = 0;
        ibv_device **list = ibv_get_device_list(&n);
        if (!list) {
            const int err = errno ? errno : ENODEV;
            why = std::string("no RDMA device: ibv_get_device_list failed (") + std::strerror(err) + ")" +
                  (err == ENOSYS ? ": this kernel has no RDMA support loaded" : "");
            return out;
        }
        for (int i = 0; i < n; ++i) out.push_back({ibv_get_device_name(list[i]), near_cpus(list[i])});
        ibv_free_device_list(list);
        if (out.empty())
            why = "no RDMA device: libibverbs lists none (no RDMA adapter, kernel driver or rdma_rxe/siw link "
                  "here)";
        return out;
    }
    ibv_context *open_device(const std::string &name) override {
        int n = 0;
        ibv_device **list = ibv_get_device_list(&n);
        if (!list) return nullptr;
        ibv_context *context = nullptr;
        for (int i = 0; i < n && !context; ++i)
            if (name == ibv_get_device_name(list[i])) context = ibv_open_device(list[i]);
        ibv_free_device_list(list);
        return context;
    }
    int close_device(ibv_context *context) override { return ibv_close_device(context); }
    int query_device(ibv_context *context, ibv_device_attr &attr) override { return ibv_query_device(context, &attr); }
    int query_port(ibv_context *context, uint8_t port, ibv_port_attr &attr) override {
        return ibv_query_port(context, port, &attr);
    }
    int query_gid(ibv_context *context, uint8_t port, uint32_t index, ibv_gid_entry &entry) override {
        return ibv_query_gid_ex(context, port, index, &entry, 0);
    }

    ibv_pd *alloc_pd(ibv_context *context) override { return ibv_alloc_pd(context); }
    int dealloc_pd(ibv_pd *pd) override { return ibv_dealloc_pd(pd); }
    ibv_mr *reg_mr(ibv_pd *pd, void *addr, size_t length, int access) override {
        return ibv_reg_mr(pd, addr, length, access);
    }
    int dereg_mr(ibv_mr *mr) override { return ibv_dereg_mr(mr); }

    ibv_comp_channel *create_comp_channel(ibv_context *context) override { return ibv_create_comp_channel(context); }
    int destroy_comp_channel(ibv_comp_channel *channel) override { return ibv_destroy_comp_channel(channel); }
    ibv_cq *create_cq(ibv_context *context, int entries, ibv_comp_channel *channel) override {
        return ibv_create_cq(context, entries, nullptr, channel, 0);
    }
    int destroy_cq(ibv_cq *cq) override { return ibv_destroy_cq(cq); }
    int req_notify_cq(ibv_cq *cq) override { return ibv_req_notify_cq(cq, 0); }
    int get_cq_event(ibv_comp_channel *channel, ibv_cq *&cq) override {
        void *context = nullptr;
        return ibv_get_cq_event(channel, &cq, &context);
    }
    void ack_cq_events(ibv_cq *cq, unsigned count) override { ibv_ack_cq_events(cq, count); }
    int poll_cq(ibv_cq *cq, int entries, ibv_wc *wc) override { return ibv_poll_cq(cq, entries, wc); }

    ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr &attr) override { return ibv_create_srq(pd, &attr); }
    int destroy_srq(ibv_srq *srq) override { return ibv_destroy_srq(srq); }
    int post_srq_recv(ibv_srq *srq, ibv_recv_wr *wr, ibv_recv_wr *&bad) override {
        return ibv_post_srq_recv(srq, wr, &bad);
    }

    ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr &attr) override { return ibv_create_qp(pd, &attr); }
    int modify_qp(ibv_qp *qp, ibv_qp_attr &attr, int mask) override { return ibv_modify_qp(qp, &attr, mask); }
    int destroy_qp(ibv_qp *qp) override { return ibv_destroy_qp(qp); }
    int post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr *&bad) override { return ibv_post_send(qp, wr, &bad); }
    int post_recv(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr *&bad) override { return ibv_post_recv(qp, wr, &bad); }

    ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr &attr) override { return ibv_create_ah(pd, &attr); }
    int destroy_ah(ibv_ah *ah) override { return ibv_destroy_ah(ah); }
};

}  // namespace

verbs_ops &system_verbs() {
    static ibv_library library;
    return library;
}

}  // namespace ccs::verbs
