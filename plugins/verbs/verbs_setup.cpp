// Set-up and teardown: the port, the queues, the buffers, and every rank's
// address.
#include "verbs_plugin.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

namespace ccs::verbs {
namespace {

std::string system_error(const char *call) { return std::string(call) + " failed: " + std::strerror(errno); }

}  // namespace

verbs_plugin::verbs_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job,
                           const config &cfg, verbs_ops &ops)
    : core_(services, name), cfg_(cfg), ops_(ops), rank_(job.rank), size_(job.size) {
    if (job.node_of_rank) node_of_rank_.assign(job.node_of_rank, job.node_of_rank + job.size);
}

verbs_plugin::~verbs_plugin() { destroy(); }

ccs_plugin_status_t verbs_plugin::open_port(std::string &why) {
    const std::vector<device_entry> devices = ops_.list_devices(why);
    const int chosen = choose_device(devices, cfg_.device, allowed_cpus(), why);
    if (chosen < 0) return CCS_PLUGIN_ERR_NO_DEVICE;
    const std::string &device = devices[static_cast<size_t>(chosen)].name;
    context_ = ops_.open_device(device);
    if (!context_) {
        why = "cannot open RDMA device " + device;
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    return read_port(ops_, context_, device, cfg_.device, port_, why);
}

ccs_plugin_status_t verbs_plugin::create_queues(std::string &why) {
    pd_ = ops_.alloc_pd(context_);
    if (!pd_) {
        why = system_error("ibv_alloc_pd");
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    if (cfg_.wakeup) {
        channel_ = ops_.create_comp_channel(context_);
        if (!channel_ || fcntl(channel_->fd, F_SETFL, fcntl(channel_->fd, F_GETFL) | O_NONBLOCK) != 0) {
            why = system_error("ibv_create_comp_channel");
            return CCS_PLUGIN_ERR_SYSTEM;
        }
    }
    // One completion queue for everything; a quarter of it (at most 4096)
    // for signalled sends, the rest for receives, so it never overflows.
    const uint32_t max_cqe = static_cast<uint32_t>(std::max(port_.max_cqe, 256));
    send_cq_room_ = std::min<uint32_t>(4096, max_cqe / 4);
    srq_capacity_ = std::min({cfg_.max_receive_buffers, static_cast<uint32_t>(port_.max_srq_wr),
                              max_cqe - send_cq_room_ - 2 * connect_queue});
    cq_size_ = static_cast<int>(send_cq_room_ + srq_capacity_ + 2 * connect_queue);
    cq_ = ops_.create_cq(context_, cq_size_, channel_);
    if (!cq_) {
        why = system_error("ibv_create_cq");
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    ibv_srq_init_attr sa{};
    sa.attr.max_wr = srq_capacity_;
    sa.attr.max_sge = 1;
    srq_ = ops_.create_srq(pd_, sa);
    if (!srq_) {
        why = system_error("ibv_create_srq");
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    ibv_qp_init_attr qa{};
    qa.send_cq = cq_;
    qa.recv_cq = cq_;
    qa.qp_type = IBV_QPT_UD;
    qa.cap.max_send_wr = connect_queue;
    qa.cap.max_recv_wr = connect_queue;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    connect_qp_ = ops_.create_qp(pd_, qa);
    if (!connect_qp_) {
        why = system_error("ibv_create_qp (connection queue pair)");
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    return bring_up_datagram(ops_, connect_qp_, port_, local_qkey_, why);
}

ccs_plugin_status_t verbs_plugin::init() {
    std::string why;
    ccs_plugin_status_t st = open_port(why);
    if (st == CCS_PLUGIN_OK) {
        // Within what the device allows: reads and atomics in flight, queue depth.
        cfg_.rc.max_rd_atomic = static_cast<uint8_t>(std::clamp(port_.max_rd_atomic, 1, 16));
        send_queue_ = std::min<uint32_t>(cfg_.send_queue, static_cast<uint32_t>(std::max(port_.max_qp_wr, 16)));
        st = create_queues(why);
    }
    if (st != CCS_PLUGIN_OK) {
        log(st == CCS_PLUGIN_ERR_NO_DEVICE ? CCS_PLUGIN_LOG_INFO : CCS_PLUGIN_LOG_ERROR, why);
        return st;
    }
    send_buffers_ = std::make_unique<buffer_pool>(ops_, cfg_.eager_size);
    receive_buffers_ = std::make_unique<buffer_pool>(ops_, cfg_.eager_size);
    connect_buffers_ = std::make_unique<buffer_pool>(ops_, grh_size + connect_message_size);
    replies_ = std::make_unique<buffer_pool>(ops_, sizeof(uint64_t));
    if (!send_buffers_->grow(pd_, 64) || !connect_buffers_->grow(pd_, 2 * connect_queue) ||
        !replies_->grow(pd_, 64)) {
        log(CCS_PLUGIN_LOG_ERROR, system_error("registering the plugin's buffers (ibv_reg_mr)"));
        return CCS_PLUGIN_ERR_NO_MEMORY;
    }
    for (uint32_t i = 0; i < connect_queue; ++i) post_connect_receive(connect_buffers_->take());
    const size_t words = (static_cast<size_t>(size_) * sizeof(uint64_t) + 4095) & ~size_t{4095};
    if (posix_memalign(reinterpret_cast<void **>(&credit_words_), 4096, words) != 0) return CCS_PLUGIN_ERR_NO_MEMORY;
    std::memset(credit_words_, 0, words);
    credit_mr_ = ops_.reg_mr(pd_, credit_words_, words, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!credit_mr_) {
        log(CCS_PLUGIN_LOG_ERROR, system_error("registering the credit words (ibv_reg_mr)"));
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    peers_.resize(static_cast<size_t>(size_));
    std::mt19937 random(std::random_device{}());
    for (int32_t r = 0; r < size_; ++r) {
        peer &p = peers_[static_cast<size_t>(r)];
        p.rank = r;
        p.same_node = !node_of_rank_.empty() && node_of_rank_[static_cast<size_t>(r)] ==
                                                    node_of_rank_[static_cast<size_t>(rank_)];
        p.psn = random() & 0xffffff;
    }
    return CCS_PLUGIN_OK;
}

void verbs_plugin::destroy() {
    for (rma_op *op : waiting_rma_) finish_rma(op);
    waiting_rma_.clear();
    for (peer &p : peers_) {
        if (p.qp) ops_.destroy_qp(p.qp->qp());
        if (p.ah) ops_.destroy_ah(p.ah);
        p.qp.reset();
        p.ah = nullptr;
    }
    if (connect_qp_) ops_.destroy_qp(connect_qp_);
    if (srq_) ops_.destroy_srq(srq_);
    if (cq_) ops_.destroy_cq(cq_);
    if (channel_) ops_.destroy_comp_channel(channel_);
    send_buffers_.reset();
    receive_buffers_.reset();
    connect_buffers_.reset();
    replies_.reset();
    if (credit_mr_) ops_.dereg_mr(credit_mr_);
    std::free(credit_words_);
    if (pd_) ops_.dealloc_pd(pd_);
    if (context_) ops_.close_device(context_);
    connect_qp_ = nullptr;
    srq_ = nullptr;
    cq_ = nullptr;
    channel_ = nullptr;
    credit_mr_ = nullptr;
    credit_words_ = nullptr;
    pd_ = nullptr;
    context_ = nullptr;
}

ccs_plugin_status_t verbs_plugin::address(void *buffer, size_t *length) const {
    if (!length) return CCS_PLUGIN_ERR_INVALID;
    const size_t capacity = *length;
    *length = wire_address_size;
    if (!buffer || capacity < wire_address_size) return CCS_PLUGIN_ERR_INVALID;
    wire_address a;
    a.ethernet = port_.ethernet;
    a.mtu = port_.mtu;
    a.port = port_.port;
    a.lid = port_.lid;
    a.gid = port_.gid;
    a.connect_qpn = connect_qp_->qp_num;
    a.pid = static_cast<int32_t>(getpid());
    a.credit_base = reinterpret_cast<uintptr_t>(credit_words_);
    a.credit_rkey = credit_mr_->rkey;
    encode_address(a, static_cast<uint8_t *>(buffer), capacity);
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t verbs_plugin::connect(const void *const *addresses, const size_t *lengths) {
    if (!addresses || !lengths) return CCS_PLUGIN_ERR_INVALID;
    for (peer &p : peers_) {
        const size_t r = static_cast<size_t>(p.rank);
        if (!addresses[r] || lengths[r] == 0) continue;
        std::string why;
        if (!decode_address(addresses[r], lengths[r], p.address, why)) {
            log(CCS_PLUGIN_LOG_WARN, "rank " + std::to_string(p.rank) + " is unreachable: " + why);
            continue;
        }
        if (p.address.ethernet != port_.ethernet) {
            log(CCS_PLUGIN_LOG_WARN, "rank " + std::to_string(p.rank) + " is unreachable: its port is " +
                                         (p.address.ethernet ? "Ethernet" : "InfiniBand") + ", this one is not");
            continue;
        }
        p.has_address = true;
    }
    return CCS_PLUGIN_OK;
}

bool verbs_plugin::reachable(int32_t rank) const {
    const peer *p = peer_at(rank);
    return p && rank != rank_ && p->has_address;
}

}  // namespace ccs::verbs
