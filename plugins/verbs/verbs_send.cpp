// Active messages out: a send with immediate data per packet (the data is
// the running count of buffers this side freed for the peer), inline when
// small, else from a registered copy. Only as many packets as the peer
// granted buffers for; AGAIN otherwise, and the core queues.
#include "verbs_plugin.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

namespace ccs::verbs {

work *verbs_plugin::take_work(work::kind what, peer &p) {
    work *w;
    if (spare_work_.empty()) {
        work_pool_.push_back(std::make_unique<work>());
        w = work_pool_.back().get();
    } else {
        w = spare_work_.back();
        spare_work_.pop_back();
    }
    *w = work{};
    w->what = what;
    w->peer = p.rank;
    return w;
}

bool verbs_plugin::post(peer &p, ibv_send_wr &wr, work *w) {
    // Unsignalled requests leave the send queue, and the room they take in
    // the completion queue, only with a later signalled one: signal at least
    // every half queue, and every request once half the room is taken (else
    // a few unsignalled ones on each of many connections could fill it).
    bool made_here = false;
    if (!w && (p.posted - p.last_signalled >= send_queue_ / 2 || in_flight_ >= send_cq_room_ / 2)) {
        w = take_work(work::kind::send, p);
        made_here = true;
    }
    wr.next = nullptr;
    if (w) {
        wr.send_flags |= IBV_SEND_SIGNALED;
        wr.wr_id = reinterpret_cast<uintptr_t>(w);
        w->stamp = p.posted + 1;
    } else {  // an error or a flush still completes it: its stamp says how far p got
        wr.wr_id = (p.posted + 1) << 3 | tag_plain;
    }
    ibv_send_wr *bad = nullptr;
    const int err = ops_.post_send(p.qp->qp(), &wr, bad);
    if (err != 0) {
        if (made_here) give_work(w);
        if (err != ENOMEM)
            log(CCS_PLUGIN_LOG_WARN,
                "ibv_post_send to rank " + std::to_string(p.rank) + " failed: " + std::strerror(err));
        return false;
    }
    ++p.posted;
    ++in_flight_;
    if (w) p.last_signalled = p.posted;
    return true;
}

ccs_plugin_status_t verbs_plugin::am_send(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count) {
    peer *p = peer_at(rank);
    if (!p || rank == rank_ || !p->has_address || (count > 0 && !iov)) return CCS_PLUGIN_ERR_INVALID;
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += iov[i].length;
    if (total > cfg_.eager_size) return CCS_PLUGIN_ERR_INVALID;
    const ccs_plugin_status_t st = usable(*p);
    if (st != CCS_PLUGIN_OK) return st;
    if (!send_room(*p, 1)) return CCS_PLUGIN_AGAIN;
    if (p->out.available() == 0) {
        p->out.freed_total(__atomic_load_n(&credit_words_[rank], __ATOMIC_ACQUIRE));
        if (p->out.available() == 0) return CCS_PLUGIN_AGAIN;
    }
    ibv_sge sge[4];
    ibv_send_wr wr{};
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.sg_list = sge;
    work *w = nullptr;
    if (total <= max_inline_ && count <= static_cast<size_t>(std::min(port_.max_sge, 4))) {
        wr.send_flags = IBV_SEND_INLINE;  // the adapter copies the bytes now
        for (size_t i = 0; i < count; ++i)
            if (iov[i].length > 0)
                sge[wr.num_sge++] = {reinterpret_cast<uintptr_t>(iov[i].base), static_cast<uint32_t>(iov[i].length),
                                     0};
    } else {
        int32_t b = send_buffers_->take();
        if (b < 0 && send_buffers_->count() < 64u * send_queue_ && send_buffers_->grow(pd_, 64))
            b = send_buffers_->take();
        if (b < 0) return CCS_PLUGIN_AGAIN;
        uint8_t *to = send_buffers_->at(b);
        for (size_t i = 0; i < count; ++i) {
            if (iov[i].length > 0) std::memcpy(to, iov[i].base, iov[i].length);
            to += iov[i].length;
        }
        sge[0] = {reinterpret_cast<uintptr_t>(send_buffers_->at(b)), static_cast<uint32_t>(total),
                  send_buffers_->lkey(b)};
        wr.num_sge = 1;
        w = take_work(work::kind::send, *p);
        w->buffer = b;
    }
    wr.imm_data = htonl(p->in.carry());
    if (!post(*p, wr, w)) {
        if (w) {
            send_buffers_->give(w->buffer);
            give_work(w);
        }
        return CCS_PLUGIN_AGAIN;
    }
    p->out.take();
    return CCS_PLUGIN_OK;
}

void verbs_plugin::return_credits(peer &p) {
    if (p.state != link::ready || p.rank == rank_ || !send_room(p, 1)) return;
    // Written inline where the adapter takes it; else from a registered word.
    uint64_t value = p.in.freed();
    ibv_sge sge{reinterpret_cast<uintptr_t>(&value), sizeof value, 0};
    ibv_send_wr wr{};
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.wr.rdma.remote_addr = p.address.credit_base + 8 * static_cast<uint64_t>(rank_);
    wr.wr.rdma.rkey = p.address.credit_rkey;
    work *w = nullptr;
    if (max_inline_ >= sizeof value) {
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        const int32_t b = replies_->take();
        if (b < 0) return;  // the next freed buffer tries again
        std::memcpy(replies_->at(b), &value, sizeof value);
        sge = {reinterpret_cast<uintptr_t>(replies_->at(b)), sizeof value, replies_->lkey(b)};
        w = take_work(work::kind::credits, p);
        w->buffer = b;
    }
    if (!post(p, wr, w)) {
        if (w) {
            replies_->give(w->buffer);
            give_work(w);
        }
        return;
    }
    p.in.told(value);
}

void verbs_plugin::probe(peer &p) {
    // A write of the credit word: harmless, and if the peer is gone its
    // retries run out and the error completion says so.
    return_credits(p);
}

}  // namespace ccs::verbs
