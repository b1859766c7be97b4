// Memory registration (called by the core's registration cache), remote
// keys, and put and get as RDMA writes and reads: zero copy from local
// memory the core's cache lends (registered through mem_reg), in pieces no
// larger than the port's largest message, posted as the send queue has room.
#include "verbs_plugin.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ccs::verbs {
ccs_plugin_status_t verbs_plugin::mem_reg(void *addr, size_t length, void **memh) {
    if (!addr || length == 0 || !memh) return CCS_PLUGIN_ERR_INVALID;
    if (port_.max_mr_size != 0 && length > port_.max_mr_size) {
        log(CCS_PLUGIN_LOG_INFO, "a region of " + std::to_string(length) + " bytes is beyond the device's limit of " +
                                     std::to_string(port_.max_mr_size));
        return CCS_PLUGIN_ERR_LIMIT;
    }
    // The device's regions: those registered for the core, and the plugin's own.
    const size_t own = 1 + send_buffers_->regions() + receive_buffers_->regions() + connect_buffers_->regions() +
                       replies_->regions();
    if (regions_ + own >= static_cast<uint64_t>(port_.max_mr)) {
        log(CCS_PLUGIN_LOG_INFO, "the device's " + std::to_string(port_.max_mr) + " memory regions are in use");
        return CCS_PLUGIN_ERR_LIMIT;
    }
    const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                       (port_.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    ibv_mr *mr = ops_.reg_mr(pd_, addr, length, access);
    if (!mr && (errno == EFAULT || errno == EACCES || errno == EPERM))  // read-only pages: a put's source, say
        mr = ops_.reg_mr(pd_, addr, length, IBV_ACCESS_REMOTE_READ);
    if (!mr) {
        const int err = errno;
        log(CCS_PLUGIN_LOG_INFO, "ibv_reg_mr of " + std::to_string(length) + " bytes failed: " + std::strerror(err));
        // Out of lockable memory (RLIMIT_MEMLOCK) or of the device's
        // regions: the cache evicts unused regions and retries.
        if (err == ENOMEM || err == EAGAIN || err == ENOSPC) return CCS_PLUGIN_ERR_LIMIT;
        return err == EFAULT || err == EINVAL ? CCS_PLUGIN_ERR_INVALID : CCS_PLUGIN_ERR_SYSTEM;
    }
    *memh = mr;
    ++regions_;
    return CCS_PLUGIN_OK;
}

void verbs_plugin::mem_dereg(void *memh) {
    if (!memh) return;
    ops_.dereg_mr(static_cast<ibv_mr *>(memh));
    --regions_;
}

ccs_plugin_status_t verbs_plugin::rkey_pack(void *memh, void *buffer, size_t *length) const {
    if (!memh || !length) return CCS_PLUGIN_ERR_INVALID;
    const size_t capacity = *length;
    *length = wire_key_size;
    if (!buffer) return CCS_PLUGIN_OK;
    const auto *mr = static_cast<const ibv_mr *>(memh);
    const wire_key k{reinterpret_cast<uintptr_t>(mr->addr), mr->length, mr->rkey};
    return encode_key(k, static_cast<uint8_t *>(buffer), capacity) ? CCS_PLUGIN_OK : CCS_PLUGIN_ERR_INVALID;
}

ccs_plugin_status_t verbs_plugin::rkey_unpack(int32_t rank, const void *buffer, size_t length, void **rkey) {
    wire_key k;
    std::string why;
    if (!peer_at(rank) || !buffer || !rkey) return CCS_PLUGIN_ERR_INVALID;
    if (!decode_key(buffer, length, k, why)) {
        log(CCS_PLUGIN_LOG_WARN, "a key from rank " + std::to_string(rank) + " is refused: " + why);
        return CCS_PLUGIN_ERR_INVALID;
    }
    *rkey = new remote_key{rank, k.base, k.length, k.rkey};
    return CCS_PLUGIN_OK;
}

void verbs_plugin::rkey_release(void *rkey) { delete static_cast<remote_key *>(rkey); }

bool verbs_plugin::lend(const void *addr, size_t length, rma_op &op, uint32_t &lkey) {
    void *hold = nullptr;
    auto *mr = static_cast<ibv_mr *>(core_.local_acquire(addr, length, hold));
    if (!mr) return false;
    op.holds.push_back(hold);
    lkey = mr->lkey;
    return true;
}

void verbs_plugin::discard_rma(rma_op *op) {
    for (void *hold : op->holds) core_.local_release(hold);
    if (op->reply >= 0) replies_->give(op->reply);
    delete op;
}

void verbs_plugin::finish_rma(rma_op *op) {
    finished_rma_.emplace_back(op->token, op->status);
    discard_rma(op);
}

namespace {

// The pieces of a transfer between a local list and a remote one of the
// same total: each lies within one local and one remote segment and
// carries at most `max_piece` bytes. `lkey_of(i)` gives local segment i's
// key (or fails the whole).
template <typename Local, typename Key>
bool cut_pieces(const Local *local, size_t nlocal, const ccs_plugin_remote_v1_t *remote, size_t nremote,
                uint64_t max_piece, std::vector<rma_piece> &out, Key lkey_of) {
    size_t li = 0, ri = 0;
    uint64_t loff = 0, roff = 0;
    uint32_t lkey = 0;
    bool have_key = false;
    while (li < nlocal && ri < nremote) {
        if (local[li].length == loff) {
            ++li;
            loff = 0;
            have_key = false;
            continue;
        }
        if (remote[ri].length == roff) {
            ++ri;
            roff = 0;
            continue;
        }
        if (!have_key) {
            if (!lkey_of(li, lkey)) return false;
            have_key = true;
        }
        const uint64_t n = std::min<uint64_t>({local[li].length - loff, remote[ri].length - roff, max_piece});
        out.push_back({reinterpret_cast<uintptr_t>(local[li].base) + loff, lkey, static_cast<uint32_t>(n),
                       remote[ri].address + roff});
        loff += n;
        roff += n;
    }
    return true;
}

}  // namespace

bool verbs_plugin::issue_pieces(peer &p, rma_op &op) {
    while (op.next < op.pieces.size() && send_room(p, 1)) {
        const rma_piece &piece = op.pieces[op.next];
        // Signal the last piece of each round: it completes those before.
        const bool last = op.next + 1 == op.pieces.size() || !send_room(p, 2);
        ibv_sge sge{piece.local, piece.length, piece.lkey};
        ibv_send_wr wr{};
        wr.opcode = op.opcode;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.wr.rdma.remote_addr = piece.remote;
        wr.wr.rdma.rkey = op.rkey;
        if (op.opcode == IBV_WR_RDMA_WRITE && piece.lkey == 0) wr.send_flags = IBV_SEND_INLINE;
        work *w = nullptr;
        if (last) {
            w = take_work(work::kind::rma, p);
            w->op = &op;
        }
        if (!post(p, wr, w)) {
            if (w) give_work(w);
            if (op.status == CCS_PLUGIN_OK) op.status = CCS_PLUGIN_ERR_TRANSPORT;
            op.next = op.pieces.size();
            return false;
        }
        if (w) ++op.pending;
        ++op.next;
    }
    return true;
}

ccs_plugin_status_t verbs_plugin::start_rma(peer &p, rma_op *op) {
    if (op->pieces.empty()) {
        discard_rma(op);
        return CCS_PLUGIN_OK;
    }
    if (!send_room(p, 1)) {  // nothing posted: the core tries again
        discard_rma(op);
        return CCS_PLUGIN_AGAIN;
    }
    if (!issue_pieces(p, *op) && op->pending == 0) {
        discard_rma(op);
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    if (op->next < op->pieces.size()) waiting_rma_.push_back(op);
    return CCS_PLUGIN_IN_PROGRESS;
}

namespace {

// The key's region holds every remote segment.
bool within(const remote_key &k, const ccs_plugin_remote_v1_t *remote, size_t nremote) {
    for (size_t i = 0; i < nremote; ++i)
        if (remote[i].address < k.base || remote[i].length > k.length ||
            remote[i].address - k.base > k.length - remote[i].length)
            return false;
    return true;
}

}  // namespace

template <typename Local>
ccs_plugin_status_t verbs_plugin::transfer(ibv_wr_opcode opcode, int32_t rank, const Local *local, size_t nlocal,
                                           const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey,
                                           uint64_t token) {
    peer *p = peer_at(rank);
    const auto *k = static_cast<const remote_key *>(rkey);
    if (!p || !k || k->rank != rank || (nlocal && !local) || (nremote && !remote)) return CCS_PLUGIN_ERR_INVALID;
    if (!within(*k, remote, nremote)) return CCS_PLUGIN_ERR_ACCESS;
    const ccs_plugin_status_t st = usable(*p);
    if (st != CCS_PLUGIN_OK) return st;
    auto *op = new rma_op;
    op->token = token;
    op->peer = rank;
    op->opcode = opcode;
    op->rkey = k->rkey;
    size_t total = 0;
    for (size_t i = 0; i < nlocal; ++i) total += local[i].length;
    // Small puts go inline: the adapter copies them at posting, no key needed.
    const bool inline_all = opcode == IBV_WR_RDMA_WRITE && total <= max_inline_ && nlocal == 1 && nremote == 1;
    const bool cut = cut_pieces(local, nlocal, remote, nremote, largest_piece(), op->pieces,
                                [&](size_t i, uint32_t &lkey) {
                                    if (inline_all) return lkey = 0, true;
                                    return lend(local[i].base, local[i].length, *op, lkey);
                                });
    if (!cut) {
        discard_rma(op);
        log(CCS_PLUGIN_LOG_WARN, std::string(opcode == IBV_WR_RDMA_WRITE ? "put" : "get") +
                                     ": the local buffer cannot be registered");
        return CCS_PLUGIN_ERR_ACCESS;
    }
    return start_rma(*p, op);
}

ccs_plugin_status_t verbs_plugin::put(int32_t rank, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                                      const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey,
                                      uint64_t token) {
    return transfer(IBV_WR_RDMA_WRITE, rank, local, nlocal, remote, nremote, rkey, token);
}

ccs_plugin_status_t verbs_plugin::get(int32_t rank, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                                      const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey,
                                      uint64_t token) {
    return transfer(IBV_WR_RDMA_READ, rank, local, nlocal, remote, nremote, rkey, token);
}

}  // namespace ccs::verbs
