// How the software fabric moves work: one send-queue entry at a time, in
// order per queue pair, checked as an adapter would check it.
#include "soft_fabric.hpp"
#include "soft_objects.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ccs::verbs::testing {
namespace {

using clock = std::chrono::steady_clock;

constexpr size_t grh_size = 40;

size_t total_of(const std::vector<ibv_sge> &sges) {
    size_t n = 0;
    for (const ibv_sge &s : sges) n += s.length;
    return n;
}

}  // namespace

soft_host &soft_fabric::add_host(std::vector<soft_device_spec> devices) {
    hosts_.push_back(std::make_unique<soft_host>(*this, std::move(devices)));
    return *hosts_.back();
}

soft_qp *soft_fabric::find_qp(uint16_t lid, const ibv_gid &gid, bool global, uint32_t qpn) const {
    for (soft_qp *q : qps_)
        if (q->qp_num == qpn && (global ? std::memcmp(&q->gid, &gid, sizeof gid) == 0 : q->lid == lid)) return q;
    return nullptr;
}

void soft_fabric::complete(soft_cq *cq, const ibv_wc &wc, soft_qp *frees, uint32_t releases) {
    if (cq->entries.size() >= static_cast<size_t>(cq->cqe)) cq_overflow = true;
    cq->entries.push_back({wc, frees, releases});
    if (cq->armed && cq->channel) {
        cq->armed = false;
        auto *ch = static_cast<soft_channel *>(cq->channel);
        ch->events.push_back(cq);
        const uint64_t one = 1;
        [[maybe_unused]] ssize_t n = ::write(ch->fd, &one, sizeof one);
    }
}

void soft_fabric::send_completion(soft_qp &q, const send_item &it, ibv_wc_status status, bool always) {
    ++q.unreported;
    if (!it.signalled && !always && status == IBV_WC_SUCCESS) return;
    ibv_wc wc{};
    wc.wr_id = it.wr_id;
    wc.status = status;
    wc.qp_num = q.qp_num;
    wc.opcode = it.opcode == IBV_WR_RDMA_READ                ? IBV_WC_RDMA_READ
                : it.opcode == IBV_WR_RDMA_WRITE             ? IBV_WC_RDMA_WRITE
                : it.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD   ? IBV_WC_FETCH_ADD
                : it.opcode == IBV_WR_ATOMIC_CMP_AND_SWP     ? IBV_WC_COMP_SWAP
                                                             : IBV_WC_SEND;
    complete(static_cast<soft_cq *>(q.send_cq), wc, &q, q.unreported);
    q.unreported = 0;
}

void soft_fabric::to_error(soft_qp &q) {
    q.state = IBV_QPS_ERR;
    for (const recv_item &r : q.rq) {
        ibv_wc wc{};
        wc.wr_id = r.wr_id;
        wc.status = IBV_WC_WR_FLUSH_ERR;
        wc.qp_num = q.qp_num;
        complete(static_cast<soft_cq *>(q.recv_cq), wc, nullptr, 0);
    }
    q.rq.clear();
}

const soft_mr *soft_fabric::region(const soft_host *owner, uint32_t key, uint64_t addr, size_t length,
                                   int access) const {
    const auto it = mrs_.find(key);
    if (it == mrs_.end()) return nullptr;
    const soft_mr *mr = it->second;
    const auto base = reinterpret_cast<uintptr_t>(mr->addr);
    if (mr->host != owner || addr < base || length > mr->length || addr - base > mr->length - length) return nullptr;
    if (access && (mr->access & access) != access) return nullptr;
    return mr;
}

bool soft_fabric::local_ok(const soft_qp &q, const std::vector<ibv_sge> &sges, int access) const {
    for (const ibv_sge &s : sges)
        if (s.length > 0 && !region(q.host, s.lkey, s.addr, s.length, access)) return false;
    return true;
}

std::vector<uint8_t> soft_fabric::gather(const send_item &it) const {
    if (it.inlined) return it.inline_bytes;
    std::vector<uint8_t> bytes;
    for (const ibv_sge &s : it.sges) {
        const auto *b = reinterpret_cast<const uint8_t *>(s.addr);
        bytes.insert(bytes.end(), b, b + s.length);
    }
    return bytes;
}

bool soft_fabric::scatter(const std::vector<ibv_sge> &sges, const uint8_t *bytes, size_t n) {
    if (total_of(sges) < n) return false;
    for (const ibv_sge &s : sges) {
        const size_t k = std::min<size_t>(s.length, n);
        if (k) std::memcpy(reinterpret_cast<void *>(s.addr), bytes, k);
        bytes += k;
        n -= k;
    }
    return true;
}

bool soft_fabric::step_datagram(soft_qp &q, send_item &it) {
    soft_qp *t = find_qp(it.ah->dlid, it.ah->dgid, it.ah->global, it.remote_qpn);
    const std::vector<uint8_t> bytes = gather(it);
    if (drop_datagrams > 0) {
        --drop_datagrams;
    } else if (t && !t->host->dead && t->qp_type == IBV_QPT_UD && t->qkey == it.remote_qkey &&
               (t->state == IBV_QPS_RTR || t->state == IBV_QPS_RTS) && !t->rq.empty()) {
        const recv_item r = t->rq.front();
        t->rq.pop_front();
        std::vector<uint8_t> packet(grh_size, 0);
        packet.insert(packet.end(), bytes.begin(), bytes.end());
        ibv_wc wc{};
        wc.wr_id = r.wr_id;
        wc.qp_num = t->qp_num;
        wc.src_qp = q.qp_num;
        wc.opcode = IBV_WC_RECV;
        wc.byte_len = static_cast<uint32_t>(packet.size());
        wc.status = scatter(r.sges, packet.data(), packet.size()) ? IBV_WC_SUCCESS : IBV_WC_LOC_LEN_ERR;
        complete(static_cast<soft_cq *>(t->recv_cq), wc, nullptr, 0);
    }
    send_completion(q, it, IBV_WC_SUCCESS, false);
    return true;
}

// One reliable-connection entry; the status it completes with.
ibv_wc_status soft_fabric::carry(soft_qp &q, soft_qp &t, send_item &it, bool &blocked) {
    switch (it.opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: {
        if (!it.inlined && !local_ok(q, it.sges, 0)) return IBV_WC_LOC_PROT_ERR;
        std::deque<recv_item> &queue = t.srq ? static_cast<soft_srq *>(t.srq)->wrs : t.rq;
        if (queue.empty()) {  // receiver not ready: retried without end (rnr_retry 7)
            blocked = true;
            return IBV_WC_SUCCESS;
        }
        const recv_item r = queue.front();
        queue.pop_front();
        const std::vector<uint8_t> bytes = gather(it);
        ibv_wc wc{};
        wc.wr_id = r.wr_id;
        wc.qp_num = t.qp_num;
        wc.src_qp = q.qp_num;
        wc.opcode = IBV_WC_RECV;
        wc.byte_len = static_cast<uint32_t>(bytes.size());
        if (it.opcode == IBV_WR_SEND_WITH_IMM) {
            wc.imm_data = it.imm;
            wc.wc_flags = IBV_WC_WITH_IMM;
        }
        if (!scatter(r.sges, bytes.data(), bytes.size())) {
            wc.status = IBV_WC_LOC_LEN_ERR;
            complete(static_cast<soft_cq *>(t.recv_cq), wc, nullptr, 0);
            to_error(t);
            return IBV_WC_REM_INV_REQ_ERR;
        }
        complete(static_cast<soft_cq *>(t.recv_cq), wc, nullptr, 0);
        return IBV_WC_SUCCESS;
    }
    case IBV_WR_RDMA_WRITE: {
        if (!it.inlined && !local_ok(q, it.sges, 0)) return IBV_WC_LOC_PROT_ERR;
        const std::vector<uint8_t> bytes = gather(it);
        if (!region(t.host, it.rkey, it.remote_addr, bytes.size(), IBV_ACCESS_REMOTE_WRITE) ||
            !(t.access & IBV_ACCESS_REMOTE_WRITE))
            return IBV_WC_REM_ACCESS_ERR;
        if (!bytes.empty()) std::memcpy(reinterpret_cast<void *>(it.remote_addr), bytes.data(), bytes.size());
        return IBV_WC_SUCCESS;
    }
    case IBV_WR_RDMA_READ: {
        if (!local_ok(q, it.sges, IBV_ACCESS_LOCAL_WRITE)) return IBV_WC_LOC_PROT_ERR;
        const size_t n = total_of(it.sges);
        if (!region(t.host, it.rkey, it.remote_addr, n, IBV_ACCESS_REMOTE_READ) ||
            !(t.access & IBV_ACCESS_REMOTE_READ))
            return IBV_WC_REM_ACCESS_ERR;
        scatter(it.sges, reinterpret_cast<const uint8_t *>(it.remote_addr), n);
        return IBV_WC_SUCCESS;
    }
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_ATOMIC_CMP_AND_SWP: {
        if (it.sges.size() != 1 || it.sges[0].length != 8 || !local_ok(q, it.sges, IBV_ACCESS_LOCAL_WRITE))
            return IBV_WC_LOC_PROT_ERR;
        if (it.remote_addr % 8 != 0 || !region(t.host, it.rkey, it.remote_addr, 8, IBV_ACCESS_REMOTE_ATOMIC) ||
            !(t.access & IBV_ACCESS_REMOTE_ATOMIC))
            return IBV_WC_REM_ACCESS_ERR;
        auto *word = reinterpret_cast<uint64_t *>(it.remote_addr);
        const uint64_t old = *word;
        if (it.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) *word = old + it.compare_add;
        else if (old == it.compare_add) *word = it.swap;
        std::memcpy(reinterpret_cast<void *>(it.sges[0].addr), &old, 8);
        return IBV_WC_SUCCESS;
    }
    default: return IBV_WC_LOC_QP_OP_ERR;
    }
}

bool soft_fabric::step(soft_qp &q) {
    if (q.sq.empty()) return false;
    send_item &it = q.sq.front();
    if (q.state == IBV_QPS_ERR) {  // everything behind an error is flushed
        send_completion(q, it, IBV_WC_WR_FLUSH_ERR, true);
        q.sq.pop_front();
        return true;
    }
    if (q.state != IBV_QPS_RTS) return false;
    if (q.qp_type == IBV_QPT_UD) {
        step_datagram(q, it);
        q.sq.pop_front();
        return true;
    }
    soft_qp *t = find_qp(q.dlid, q.dgid, q.dglobal, q.dest_qpn);
    const bool answers = t && !t->host->dead && (t->state == IBV_QPS_RTR || t->state == IBV_QPS_RTS) &&
                         t->dest_qpn == q.qp_num;
    ibv_wc_status status = IBV_WC_SUCCESS;
    bool blocked = false;
    if (!answers) {
        blocked = true;
    } else {
        status = carry(q, *t, it, blocked);
    }
    if (blocked) {  // retried until the retry time runs out
        if (!it.tried) {
            it.tried = true;
            it.first_try = clock::now();
        }
        if (!answers && clock::now() - it.first_try >= retry_time) {
            send_completion(q, it, IBV_WC_RETRY_EXC_ERR, true);
            q.sq.pop_front();
            to_error(q);
            return true;
        }
        return false;
    }
    send_completion(q, it, status, status != IBV_WC_SUCCESS);
    q.sq.pop_front();
    if (status != IBV_WC_SUCCESS) to_error(q);
    return true;
}

void soft_fabric::pump() {
    if (pumping_) return;
    pumping_ = true;
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t i = 0; i < qps_.size(); ++i)
            while (step(*qps_[i])) moved = true;
    }
    pumping_ = false;
}

}  // namespace ccs::verbs::testing
