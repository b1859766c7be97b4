// Reliable connections brought up on first use, by connection messages
// over the datagram queue pair (verbs_wire.hpp tells the exchange).
// Datagrams may be lost: each side repeats its last message until the
// other answers, and gives up after CCS_VERBS_CONNECT_TIMEOUT_MS.
#include "verbs_plugin.hpp"

#include <algorithm>

namespace ccs::verbs {
namespace {

constexpr auto first_resend = std::chrono::milliseconds(10);
constexpr auto longest_resend = std::chrono::milliseconds(1000);

}  // namespace

uint32_t verbs_plugin::grant_left() const {
    const uint32_t left = srq_capacity_ > granted_total_ ? srq_capacity_ - granted_total_ : 0;
    return std::min(cfg_.credits, left);
}

ccs_plugin_status_t verbs_plugin::bring_up(peer &p) {
    switch (p.state) {
    case link::failed: return CCS_PLUGIN_ERR_PEER_FAILED;
    case link::requesting:
    case link::answered: return CCS_PLUGIN_AGAIN;
    case link::ready: return CCS_PLUGIN_OK;
    case link::none: break;
    }
    if (p.rank != rank_ && !p.has_address) return CCS_PLUGIN_ERR_INVALID;
    std::string why;
    ccs_plugin_status_t st = create_pair(p, why);
    if (st == CCS_PLUGIN_OK && p.rank == rank_) {  // a loop to itself: this process's own atomics
        st = connect_pair(p, p.qp->qp()->qp_num, p.psn, p.granted, why);
        if (st == CCS_PLUGIN_OK) {
            p.state = link::ready;
            return CCS_PLUGIN_OK;
        }
    }
    if (st != CCS_PLUGIN_OK) {
        fail_peer(p, why);
        return CCS_PLUGIN_ERR_PEER_FAILED;
    }
    p.state = link::requesting;
    p.started = clock::now();
    p.resend_gap = first_resend;
    p.next_resend = p.started + p.resend_gap;
    connecting_.push_back(p.rank);
    send_connect(p, connect_type::request);
    return CCS_PLUGIN_AGAIN;
}

ccs_plugin_status_t verbs_plugin::create_pair(peer &p, std::string &why) {
    const bool self = p.rank == rank_;
    if (!self && !p.ah) {
        ibv_ah_attr av = address_vector(port_, p.address.lid, p.address.gid, p.address.ethernet);
        p.ah = ops_.create_ah(pd_, av);
        if (!p.ah) {
            why = "cannot create an address handle for rank " + std::to_string(p.rank) + " (ibv_create_ah)";
            return CCS_PLUGIN_ERR_TRANSPORT;
        }
    }
    const uint32_t grant = grant_left();
    if (grant == 0) {
        why = "no receive buffer left to grant rank " + std::to_string(p.rank) +
              " (CCS_VERBS_RECEIVE_BUFFERS or the device's shared receive queue is exhausted)";
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    ibv_qp_init_attr qa{};
    qa.send_cq = cq_;
    qa.recv_cq = cq_;
    qa.srq = srq_;
    qa.qp_type = IBV_QPT_RC;
    qa.sq_sig_all = 0;
    qa.cap.max_send_wr = send_queue_;
    qa.cap.max_send_sge = static_cast<uint32_t>(std::min(port_.max_sge, 4));
    qa.cap.max_inline_data = 220;
    ibv_qp *qp = ops_.create_qp(pd_, qa);
    if (!qp) {  // the device takes no inline data, or less
        qa.cap.max_inline_data = 0;
        qp = ops_.create_qp(pd_, qa);
    }
    if (!qp) {
        why = "cannot create a queue pair for rank " + std::to_string(p.rank) + " (ibv_create_qp)";
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    max_inline_ = qa.cap.max_inline_data;
    p.qp = std::make_unique<rc_queue_pair>(ops_, qp);
    rank_of_qpn_[qp->qp_num] = p.rank;
    const ccs_plugin_status_t st = p.qp->to_init(port_, why);
    if (st != CCS_PLUGIN_OK) return st;
    if (!post_receives(grant)) {
        why = "cannot post receive buffers for rank " + std::to_string(p.rank);
        return CCS_PLUGIN_ERR_NO_MEMORY;
    }
    p.granted = grant;
    granted_total_ += grant;
    p.in.start();
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t verbs_plugin::connect_pair(peer &p, uint32_t qpn, uint32_t psn, uint32_t credits,
                                               std::string &why) {
    if (p.rank == rank_) {
        p.remote = {qpn, psn, port_.lid, port_.gid, port_.ethernet, port_.mtu};
    } else {
        p.remote = {qpn, psn, p.address.lid, p.address.gid, p.address.ethernet, p.address.mtu};
    }
    ccs_plugin_status_t st = p.qp->to_ready_to_receive(port_, p.remote, cfg_.rc, why);
    if (st == CCS_PLUGIN_OK) st = p.qp->to_ready_to_send(p.psn, cfg_.rc, why);
    if (st != CCS_PLUGIN_OK) return st;
    p.out.start(credits);
    p.last_used = clock::now();
    return CCS_PLUGIN_OK;
}

bool verbs_plugin::send_connect(peer &p, connect_type type) {
    if (connect_sends_ >= connect_queue) return false;  // the next resend tries again
    const int32_t b = connect_buffers_->take();
    if (b < 0) return false;
    connect_message m;
    m.type = type;
    m.from = rank_;
    m.to = p.rank;
    m.qpn = p.qp->qp()->qp_num;
    m.psn = p.psn;
    m.peer_qpn = type == connect_type::request ? 0 : p.remote.qpn;
    m.credits = type == connect_type::ready ? 0 : p.granted;
    uint8_t *bytes = connect_buffers_->at(b);
    const size_t n = encode_connect(m, bytes, connect_buffers_->buffer_size());
    ibv_sge sge{reinterpret_cast<uintptr_t>(bytes), static_cast<uint32_t>(n), connect_buffers_->lkey(b)};
    work *w = take_work(work::kind::connect, p);
    w->buffer = b;
    ibv_send_wr wr{};
    wr.wr_id = reinterpret_cast<uintptr_t>(w);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = p.ah;
    wr.wr.ud.remote_qpn = p.address.connect_qpn;
    wr.wr.ud.remote_qkey = local_qkey_;
    ibv_send_wr *bad = nullptr;
    if (ops_.post_send(connect_qp_, &wr, bad) != 0) {
        connect_buffers_->give(b);
        give_work(w);
        return false;
    }
    ++connect_sends_;
    return true;
}

void verbs_plugin::on_connect_message(const uint8_t *bytes, size_t length) {
    connect_message m;
    std::string why;
    if (!decode_connect(bytes, length, size_, rank_, m, why)) {
        log(CCS_PLUGIN_LOG_DEBUG, "dropped a connection message: " + why);
        return;
    }
    peer &p = peers_[static_cast<size_t>(m.from)];
    if (!p.has_address || p.state == link::failed) return;  // it repeats until we can answer
    const bool known = p.state == link::answered || p.state == link::ready;
    if (known && m.qpn != p.remote.qpn) {
        log(CCS_PLUGIN_LOG_WARN, "rank " + std::to_string(m.from) + " asks to connect queue pair " +
                                     std::to_string(m.qpn) + ", but is connected with " +
                                     std::to_string(p.remote.qpn) + ": ignored");
        return;
    }
    if (m.type != connect_type::request && (!p.qp || m.peer_qpn != p.qp->qp()->qp_num)) return;  // stale
    switch (m.type) {
    case connect_type::request:
        if (!known) {
            if (p.state == link::none) {
                if (create_pair(p, why) != CCS_PLUGIN_OK) return fail_peer(p, why);
                p.started = clock::now();
                connecting_.push_back(p.rank);
            }
            if (connect_pair(p, m.qpn, m.psn, m.credits, why) != CCS_PLUGIN_OK) return fail_peer(p, why);
            p.state = link::answered;
            p.resend_gap = first_resend;
            p.next_resend = clock::now() + p.resend_gap;
        }
        send_connect(p, connect_type::reply);
        return;
    case connect_type::reply:
        if (p.state == link::requesting &&
            connect_pair(p, m.qpn, m.psn, m.credits, why) != CCS_PLUGIN_OK)
            return fail_peer(p, why);
        p.state = link::ready;  // its pair receives from ours
        send_connect(p, connect_type::ready);
        return;
    case connect_type::ready:
        if (p.state == link::answered) p.state = link::ready;
        return;
    }
}

void verbs_plugin::resend_connects(clock::time_point now) {
    for (size_t i = 0; i < connecting_.size();) {
        peer &p = peers_[static_cast<size_t>(connecting_[i])];
        if (p.state != link::requesting && p.state != link::answered) {
            connecting_[i] = connecting_.back();
            connecting_.pop_back();
            continue;
        }
        ++i;
        if (now - p.started > cfg_.connect_timeout) {
            fail_peer(p, "rank " + std::to_string(p.rank) + " did not answer the connection request within " +
                             std::to_string(cfg_.connect_timeout.count()) + " ms");
            continue;
        }
        if (now < p.next_resend) continue;
        send_connect(p, p.state == link::requesting ? connect_type::request : connect_type::reply);
        p.resend_gap = std::min<clock::duration>(p.resend_gap * 2, longest_resend);
        p.next_resend = now + p.resend_gap;
    }
}

void verbs_plugin::fail_peer(peer &p, const std::string &why) {
    if (p.state == link::failed) return;
    p.state = link::failed;
    p.failure = why;
    if (p.qp) {
        std::string ignored;
        p.qp->to_error(ignored);  // what is in flight completes, flushed
    }
    for (size_t i = 0; i < waiting_rma_.size();) {
        rma_op *op = waiting_rma_[i];
        if (op->peer != p.rank) {
            ++i;
            continue;
        }
        waiting_rma_.erase(waiting_rma_.begin() + static_cast<std::ptrdiff_t>(i));
        op->status = CCS_PLUGIN_ERR_PEER_FAILED;
        op->next = op->pieces.size();
        if (op->pending == 0) finish_rma(op);
    }
    if (p.rank != rank_) failed_peers_.emplace_back(p.rank, why);
    log(CCS_PLUGIN_LOG_INFO, "rank " + std::to_string(p.rank) + " failed: " + why);
}

}  // namespace ccs::verbs
