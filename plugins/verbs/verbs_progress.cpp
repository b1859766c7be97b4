// Progress: the completion queue polled into records, packets delivered in
// order, buffers posted again and their credits returned, connections
// brought up, idle peers watched, finished operations and failures told
// to the core. Work request ids carry what completed: a receive buffer's
// index (tag 1), a connection buffer's (tag 2), an unsignalled request's
// place in its connection (tag 3: it completes only with an error or a
// flush), or a send-side work record (tag 0; records are 8-byte aligned).
#include "verbs_plugin.hpp"
#include "verbs_status.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>

namespace ccs::verbs {
bool verbs_plugin::post_receives(uint32_t count) {
    if (receive_buffers_->free_count() < count && !receive_buffers_->grow(pd_, count)) return false;
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t b = receive_buffers_->take();
        ibv_sge sge{reinterpret_cast<uintptr_t>(receive_buffers_->at(b)), static_cast<uint32_t>(cfg_.eager_size),
                    receive_buffers_->lkey(b)};
        ibv_recv_wr wr{};
        wr.wr_id = static_cast<uint64_t>(b) << 3 | tag_receive;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        ibv_recv_wr *bad = nullptr;
        if (ops_.post_srq_recv(srq_, &wr, bad) != 0) {
            receive_buffers_->give(b);
            return false;
        }
        ++receives_posted_;
    }
    return true;
}

void verbs_plugin::post_connect_receive(int32_t buffer) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(connect_buffers_->at(buffer)),
                static_cast<uint32_t>(connect_buffers_->buffer_size()), connect_buffers_->lkey(buffer)};
    ibv_recv_wr wr{};
    wr.wr_id = static_cast<uint64_t>(buffer) << 3 | tag_connect;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr *bad = nullptr;
    if (ops_.post_recv(connect_qp_, &wr, bad) != 0) connect_buffers_->give(buffer);
}

int verbs_plugin::poll() {
    ibv_wc wc[32];
    int total = 0;
    for (;;) {
        const int n = ops_.poll_cq(cq_, 32, wc);
        if (n < 0) {
            log(CCS_PLUGIN_LOG_ERROR, "ibv_poll_cq failed");
            break;
        }
        for (int i = 0; i < n; ++i) on_completion(wc[i]);
        total += n;
        if (n < 32) break;
    }
    return total;
}

void verbs_plugin::on_completion(const ibv_wc &wc) {
    switch (wc.wr_id & 7) {
    case tag_receive: return on_receive(wc);
    case tag_connect: {
        const auto b = static_cast<int32_t>(wc.wr_id >> 3);
        if (wc.status == IBV_WC_SUCCESS && wc.byte_len > grh_size)
            on_connect_message(connect_buffers_->at(b) + grh_size, wc.byte_len - grh_size);
        if (wc.status == IBV_WC_SUCCESS || wc.status == IBV_WC_LOC_LEN_ERR) post_connect_receive(b);
        else connect_buffers_->give(b);
        return;
    }
    case tag_plain: {
        const auto it = rank_of_qpn_.find(wc.qp_num);
        if (it == rank_of_qpn_.end()) return;
        peer &p = peers_[static_cast<size_t>(it->second)];
        completed_up_to(p, wc.wr_id >> 3);
        const completion_meaning m = meaning_of(wc.status);
        if (m.fate != connection_fate::intact && m.fate != connection_fate::flushed)
            fail_peer(p, std::string("the connection failed: ") + m.text);
        return;
    }
    default: on_send_completion(wc, reinterpret_cast<work *>(wc.wr_id));
    }
}

void verbs_plugin::on_receive(const ibv_wc &wc) {
    const auto b = static_cast<int32_t>(wc.wr_id >> 3);
    --receives_posted_;
    const auto it = rank_of_qpn_.find(wc.qp_num);
    peer *p = it == rank_of_qpn_.end() ? nullptr : &peers_[static_cast<size_t>(it->second)];
    if (wc.status != IBV_WC_SUCCESS || !p) {
        receive_buffers_->give(b);
        post_receives(1);
        if (p && wc.status != IBV_WC_WR_FLUSH_ERR)
            fail_peer(*p, std::string("a receive from it failed: ") + meaning_of(wc.status).text);
        return;
    }
    if (wc.wc_flags & IBV_WC_WITH_IMM) p->out.freed_low_bits(ntohl(wc.imm_data));
    if (p->state == link::answered) p->state = link::ready;  // it sends: its pair is connected to ours
    arrivals_.push_back({p->rank, b, wc.byte_len});
}

void verbs_plugin::on_send_completion(const ibv_wc &wc, work *w) {
    peer &p = peers_[static_cast<size_t>(w->peer)];
    if (w->what != work::kind::connect) completed_up_to(p, w->stamp);
    const completion_meaning m = meaning_of(wc.status);
    // The request that failed says why; those flushed behind it, that the
    // connection is gone.
    const ccs_plugin_status_t status = m.fate != connection_fate::flushed ? m.status
                                       : p.state == link::failed         ? CCS_PLUGIN_ERR_PEER_FAILED
                                                                         : CCS_PLUGIN_ERR_TRANSPORT;
    if (wc.status != IBV_WC_SUCCESS && m.fate != connection_fate::flushed && w->what != work::kind::connect)
        fail_peer(p, std::string("the connection failed: ") + m.text);
    switch (w->what) {
    case work::kind::connect:
        --connect_sends_;
        connect_buffers_->give(w->buffer);
        break;
    case work::kind::send:
        if (w->buffer >= 0) send_buffers_->give(w->buffer);
        break;
    case work::kind::credits:
    case work::kind::probe:
        if (w->buffer >= 0) replies_->give(w->buffer);
        break;
    case work::kind::rma: {
        rma_op *op = w->op;
        --op->pending;
        if (wc.status != IBV_WC_SUCCESS && op->status == CCS_PLUGIN_OK) op->status = status;
        if (op->width != 0) on_atomic_step(p, *op);
        else if (op->pending == 0 && (op->next == op->pieces.size() || op->status != CCS_PLUGIN_OK)) {
            if (op->next != op->pieces.size())
                waiting_rma_.erase(std::remove(waiting_rma_.begin(), waiting_rma_.end(), op), waiting_rma_.end());
            finish_rma(op);
        }
        break;
    }
    }
    give_work(w);
}

int32_t verbs_plugin::deliver_arrivals() {
    int32_t n = 0;
    // By the front: a handler's nested progress delivers what follows, in order.
    while (!arrivals_.empty()) {
        const arrival a = arrivals_.front();
        arrivals_.pop_front();
        core_.deliver(a.source, receive_buffers_->at(a.buffer), a.length);
        receive_buffers_->give(a.buffer);
        post_receives(1);
        peer &p = peers_[static_cast<size_t>(a.source)];
        p.in.freed_one();
        if (p.in.untold() >= std::max<uint32_t>(1, p.granted / 2)) return_credits(p);
        ++n;
    }
    return n;
}

void verbs_plugin::check_idle_peers(clock::time_point now) {
    for (peer &p : peers_) {
        if (p.state != link::ready || p.rank == rank_) continue;
        if (p.same_node && !plugin::process_exists(p.address.pid)) {
            fail_peer(p, "its process " + std::to_string(p.address.pid) + " is gone");
            continue;
        }
        if (cfg_.keepalive.count() == 0) continue;
        if (p.posted != p.seen_posted) {  // in use since the last look
            p.seen_posted = p.posted;
            p.last_used = now;
        } else if (now - p.last_used >= cfg_.keepalive) {
            probe(p);
            p.seen_posted = p.posted;
            p.last_used = now;
        }
    }
}

int32_t verbs_plugin::progress() {
    if (armed_ && channel_) {  // the completion event that may have woken us
        ibv_cq *fired = nullptr;
        while (ops_.get_cq_event(channel_, fired) == 0) ops_.ack_cq_events(fired, 1);
        armed_ = false;
    }
    int32_t n = poll();
    n += deliver_arrivals();
    if (!waiting_rma_.empty()) {  // operations the send queue had no room for
        std::vector<rma_op *> waiting;
        waiting.swap(waiting_rma_);
        for (rma_op *op : waiting) {
            peer &p = peers_[static_cast<size_t>(op->peer)];
            if (p.state != link::ready) waiting_rma_.push_back(op);
            else if (op->width != 0) issue_atomic_step(p, *op);
            else if (!issue_pieces(p, *op) && op->pending == 0) finish_rma(op);
            else if (op->next < op->pieces.size()) waiting_rma_.push_back(op);
        }
    }
    if (!connecting_.empty()) resend_connects(clock::now());
    if (pacer_.due()) check_idle_peers(clock::now());
    if (!finished_rma_.empty()) {
        std::vector<std::pair<uint64_t, ccs_plugin_status_t>> done;
        done.swap(finished_rma_);
        for (const auto &[token, status] : done) core_.rma_complete(token, status);
        n += static_cast<int32_t>(done.size());
    }
    if (!failed_peers_.empty()) {
        std::vector<std::pair<int32_t, std::string>> failed;
        failed.swap(failed_peers_);
        for (const auto &[rank, why] : failed) core_.peer_failed(rank, why);
        n += static_cast<int32_t>(failed.size());
    }
    return n;
}

int32_t verbs_plugin::wakeup_fd() const { return channel_ ? channel_->fd : -1; }

ccs_plugin_status_t verbs_plugin::wakeup_arm() {
    if (!channel_) return CCS_PLUGIN_ERR_UNSUPPORTED;
    if (!arrivals_.empty() || !finished_rma_.empty() || !failed_peers_.empty() || !connecting_.empty() ||
        !waiting_rma_.empty())
        return CCS_PLUGIN_AGAIN;  // connections resend on a clock: keep polling
    if (!armed_) {
        if (ops_.req_notify_cq(cq_) != 0) return CCS_PLUGIN_AGAIN;
        armed_ = true;
    }
    // What completed before the queue was armed raises no event.
    return poll() > 0 ? CCS_PLUGIN_AGAIN : CCS_PLUGIN_OK;
}

}  // namespace ccs::verbs
