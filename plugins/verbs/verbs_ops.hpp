// Every libibverbs call the plugin makes, behind one narrow interface.
// In a job it is libibverbs itself (verbs_ibv.cpp); the unit tests put a
// software fabric behind it, so that the plugin's own code (connections,
// credits, chunking, completions and their errors) runs where no RDMA
// device exists. The types are libibverbs' own: an implementation hands out
// ibv_* objects whose public fields (qp_num, lkey, rkey, ...) it fills.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ccs::verbs {

// A device as listed, before it is opened.
struct device_entry {
    std::string name;
    // The CPUs nearest to it, as hwloc reads them (empty: unknown).
    std::vector<unsigned> near_cpus;
};

class verbs_ops {
public:
    virtual ~verbs_ops() = default;

    // The devices present; empty with `why` set when there are none, or
    // the list cannot be read.
    virtual std::vector<device_entry> list_devices(std::string &why) = 0;
    virtual ibv_context *open_device(const std::string &name) = 0;
    virtual int close_device(ibv_context *context) = 0;
    virtual int query_device(ibv_context *context, ibv_device_attr &attr) = 0;
    virtual int query_port(ibv_context *context, uint8_t port, ibv_port_attr &attr) = 0;
    // The GID table's entry `index` with its type (IB, RoCE v1, RoCE v2).
    virtual int query_gid(ibv_context *context, uint8_t port, uint32_t index, ibv_gid_entry &entry) = 0;

    virtual ibv_pd *alloc_pd(ibv_context *context) = 0;
    virtual int dealloc_pd(ibv_pd *pd) = 0;
    virtual ibv_mr *reg_mr(ibv_pd *pd, void *addr, size_t length, int access) = 0;
    virtual int dereg_mr(ibv_mr *mr) = 0;

    virtual ibv_comp_channel *create_comp_channel(ibv_context *context) = 0;
    virtual int destroy_comp_channel(ibv_comp_channel *channel) = 0;
    virtual ibv_cq *create_cq(ibv_context *context, int entries, ibv_comp_channel *channel) = 0;
    virtual int destroy_cq(ibv_cq *cq) = 0;
    virtual int req_notify_cq(ibv_cq *cq) = 0;
    // After the channel's descriptor became readable: which CQ fired.
    virtual int get_cq_event(ibv_comp_channel *channel, ibv_cq *&cq) = 0;
    virtual void ack_cq_events(ibv_cq *cq, unsigned count) = 0;
    virtual int poll_cq(ibv_cq *cq, int entries, ibv_wc *wc) = 0;

    virtual ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr &attr) = 0;
    virtual int destroy_srq(ibv_srq *srq) = 0;
    virtual int post_srq_recv(ibv_srq *srq, ibv_recv_wr *wr, ibv_recv_wr *&bad) = 0;

    virtual ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr &attr) = 0;
    virtual int modify_qp(ibv_qp *qp, ibv_qp_attr &attr, int mask) = 0;
    virtual int destroy_qp(ibv_qp *qp) = 0;
    virtual int post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr *&bad) = 0;
    virtual int post_recv(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr *&bad) = 0;

    virtual ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr &attr) = 0;
    virtual int destroy_ah(ibv_ah *ah) = 0;
};

// libibverbs itself.
verbs_ops &system_verbs();

}  // namespace ccs::verbs
