// A software RDMA fabric behind verbs_ops, so the verbs plugin's own code
// runs in unit tests where no device exists. Each soft_host is one
// process's view (its adapters); hosts share one fabric, which carries
// work requests between queue pairs with the semantics the plugin relies
// on: reliable connections deliver in order, wait while the receiver has
// no buffer (RNR), fail with RETRY_EXC_ERR when the peer does not answer in
// time, move to ERROR on any error and flush what follows; remote access is
// checked against the target's memory regions and their access flags;
// datagrams are delivered behind a 40-byte routing header, or dropped.
// The wire is instant: work moves when any host calls into the fabric.
#pragma once

#include "verbs_ops.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccs::verbs::testing {

struct soft_device_spec {
    std::string name = "soft0";
    std::vector<unsigned> near_cpus;
    bool ethernet = false;
    bool roce_v2 = true;          // Ethernet: the type of GID entry 1 (entry 0 is RoCE v1)
    bool gids = true;             // Ethernet: whether the port has GIDs at all
    ibv_port_state state = IBV_PORT_ACTIVE;
    uint16_t lid = 0;             // 0: the fabric assigns one (InfiniBand)
    bool atomics = true;
    uint32_t max_message = 1u << 30;
    int max_sge = 4;
    int max_srq_wr = 16384;
    int max_cqe = 65536;
    uint32_t max_inline = 220;    // 0: the device takes no inline data
    int max_mr = 1 << 20;
};

class soft_fabric;
struct soft_qp;
struct soft_cq;
struct soft_mr;
struct send_item;

class soft_host final : public verbs_ops {
public:
    soft_host(soft_fabric &fabric, std::vector<soft_device_spec> devices);
    ~soft_host() override;

    // Fault injection: the next modify_qp fails with this errno (0: none).
    int fail_next_modify = 0;
    // The next reg_mr fails with this errno.
    int fail_next_reg_mr = 0;
    // Pages mapped read-only: reg_mr refuses write access to them (EFAULT).
    std::vector<std::pair<const void *, size_t>> read_only;
    // A dead host answers nothing: reliable sends to it exhaust their retries.
    bool dead = false;
    // Why list_devices finds nothing when there are no devices.
    std::string no_device_reason = "no RDMA device (soft fabric: none configured)";

    std::vector<device_entry> list_devices(std::string &why) override;
    ibv_context *open_device(const std::string &name) override;
    int close_device(ibv_context *context) override;
    int query_device(ibv_context *context, ibv_device_attr &attr) override;
    int query_port(ibv_context *context, uint8_t port, ibv_port_attr &attr) override;
    int query_gid(ibv_context *context, uint8_t port, uint32_t index, ibv_gid_entry &entry) override;
    ibv_pd *alloc_pd(ibv_context *context) override;
    int dealloc_pd(ibv_pd *pd) override;
    ibv_mr *reg_mr(ibv_pd *pd, void *addr, size_t length, int access) override;
    int dereg_mr(ibv_mr *mr) override;
    ibv_comp_channel *create_comp_channel(ibv_context *context) override;
    int destroy_comp_channel(ibv_comp_channel *channel) override;
    ibv_cq *create_cq(ibv_context *context, int entries, ibv_comp_channel *channel) override;
    int destroy_cq(ibv_cq *cq) override;
    int req_notify_cq(ibv_cq *cq) override;
    int get_cq_event(ibv_comp_channel *channel, ibv_cq *&cq) override;
    void ack_cq_events(ibv_cq *cq, unsigned count) override;
    int poll_cq(ibv_cq *cq, int entries, ibv_wc *wc) override;
    ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr &attr) override;
    int destroy_srq(ibv_srq *srq) override;
    int post_srq_recv(ibv_srq *srq, ibv_recv_wr *wr, ibv_recv_wr *&bad) override;
    ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr &attr) override;
    int modify_qp(ibv_qp *qp, ibv_qp_attr &attr, int mask) override;
    int destroy_qp(ibv_qp *qp) override;
    int post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr *&bad) override;
    int post_recv(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr *&bad) override;
    ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr &attr) override;
    int destroy_ah(ibv_ah *ah) override;

    // Objects still alive (a test checks teardown frees them all).
    size_t live_objects() const;
    const std::vector<soft_device_spec> &devices() const { return devices_; }

private:
    friend class soft_fabric;
    soft_fabric &fabric_;
    std::vector<soft_device_spec> devices_;
    size_t contexts_ = 0, pds_ = 0, mrs_ = 0, channels_ = 0, cqs_ = 0, srqs_ = 0, qps_ = 0, ahs_ = 0;
};

class soft_fabric {
public:
    soft_fabric() = default;
    soft_fabric(const soft_fabric &) = delete;
    soft_fabric &operator=(const soft_fabric &) = delete;

    // A host with these devices (one process's view of its adapters).
    soft_host &add_host(std::vector<soft_device_spec> devices = {soft_device_spec{}});

    // How long a reliable send waits for an unresponsive peer before it
    // completes with RETRY_EXC_ERR.
    std::chrono::milliseconds retry_time{200};
    // Datagrams to drop before delivering again.
    int drop_datagrams = 0;
    // Set when a completion queue had no room for an entry: a plugin bug.
    bool cq_overflow = false;

    // Moves whatever can move. Every call into a host does this too.
    void pump();

private:
    friend class soft_host;
    friend struct soft_qp;
    uint16_t next_lid_ = 1;
    uint32_t next_qpn_ = 0x100;
    uint32_t next_key_ = 0x1000;
    std::vector<std::unique_ptr<soft_host>> hosts_;
    std::vector<soft_qp *> qps_;
    std::map<uint32_t, soft_mr *> mrs_;  // by key (lkey == rkey here)
    bool pumping_ = false;

    soft_qp *find_qp(uint16_t lid, const ibv_gid &gid, bool global, uint32_t qpn) const;
    bool step(soft_qp &q);  // one send-queue entry of q; false if it could not move
    bool step_datagram(soft_qp &q, send_item &it);
    ibv_wc_status carry(soft_qp &q, soft_qp &t, send_item &it, bool &blocked);
    // `frees` send-queue slots of `frees` once polled.
    void complete(soft_cq *cq, const ibv_wc &wc, soft_qp *frees, uint32_t releases);
    void send_completion(soft_qp &q, const send_item &it, ibv_wc_status status, bool always);
    void to_error(soft_qp &q);
    // The region `key` names, if `owner` registered it, it holds the range
    // and allows `access`; null otherwise.
    const soft_mr *region(const soft_host *owner, uint32_t key, uint64_t addr, size_t length,
                                 int access) const;
    bool local_ok(const soft_qp &q, const std::vector<ibv_sge> &sges, int access) const;
    std::vector<uint8_t> gather(const send_item &it) const;
    static bool scatter(const std::vector<ibv_sge> &sges, const uint8_t *bytes, size_t n);
};

}  // namespace ccs::verbs::testing
