// Atomics by the adapter. Verbs offers 64-bit fetch-and-add and
// compare-and-swap; every other operation, and every 32-bit one (on its
// half of the aligned 64-bit word), is a compare-and-swap loop on the
// adapter: read the word, swap in the new value if it is unchanged,
// repeat with what it was otherwise. So every update of a word registered
// for network atomics is the adapter's, as the plugin ABI requires.
#include "verbs_plugin.hpp"

#include <cstring>

namespace ccs::verbs {
namespace {

uint64_t word_of(uint64_t remote) { return remote & ~uint64_t{7}; }
// Where the operand's bits lie in the word (little-endian).
unsigned shift_of(const rma_op &op) { return op.width == 8 ? 0 : static_cast<unsigned>(op.remote & 4) * 8; }
uint64_t mask_of(const rma_op &op) { return op.width == 8 ? ~uint64_t{0} : uint64_t{0xffffffff}; }
uint64_t part(const rma_op &op, uint64_t word) { return (word >> shift_of(op)) & mask_of(op); }
uint64_t with_part(const rma_op &op, uint64_t word, uint64_t value) {
    const uint64_t m = mask_of(op) << shift_of(op);
    return (word & ~m) | ((value & mask_of(op)) << shift_of(op));
}

// What `op` makes of the old value; false when it leaves the word as it
// is (a compare that fails, a fetch).
bool next_value(const rma_op &op, uint64_t old, uint64_t &out) {
    switch (op.op) {
    case CCS_PLUGIN_ATOMIC_ADD: out = old + op.operand; break;
    case CCS_PLUGIN_ATOMIC_AND: out = old & op.operand; break;
    case CCS_PLUGIN_ATOMIC_OR: out = old | op.operand; break;
    case CCS_PLUGIN_ATOMIC_XOR: out = old ^ op.operand; break;
    case CCS_PLUGIN_ATOMIC_SWAP:
    case CCS_PLUGIN_ATOMIC_SET: out = op.operand; break;
    case CCS_PLUGIN_ATOMIC_CSWAP:
        if (old != (op.compare & mask_of(op))) return false;
        out = op.operand;
        break;
    default: return false;
    }
    out &= mask_of(op);
    return true;
}

// Done by one of the adapter's own operations.
bool single_step(const rma_op &op) {
    return op.op == CCS_PLUGIN_ATOMIC_FETCH ||
           (op.width == 8 && (op.op == CCS_PLUGIN_ATOMIC_ADD || op.op == CCS_PLUGIN_ATOMIC_CSWAP));
}

}  // namespace

ccs_plugin_status_t verbs_plugin::atomic(int32_t rank, uint32_t op, uint32_t width, uint64_t remote,
                                         uint64_t operand, uint64_t compare, void *result, void *rkey,
                                         uint64_t token) {
    peer *p = peer_at(rank);
    const auto *k = static_cast<const remote_key *>(rkey);
    if (!p || !k || k->rank != rank || (width != 4 && width != 8) || remote % width != 0 ||
        op > CCS_PLUGIN_ATOMIC_SET)
        return CCS_PLUGIN_ERR_INVALID;
    // The adapter works on the whole aligned word: it must lie in the region.
    const uint64_t word = word_of(remote);
    if (word < k->base || k->length < 8 || word - k->base > k->length - 8) return CCS_PLUGIN_ERR_ACCESS;
    if (!port_.atomics) return CCS_PLUGIN_ERR_UNSUPPORTED;
    const ccs_plugin_status_t st = usable(*p);
    if (st != CCS_PLUGIN_OK) return st;
    int32_t reply = replies_->take();
    if (reply < 0 && replies_->grow(pd_, 64)) reply = replies_->take();
    if (reply < 0) return CCS_PLUGIN_AGAIN;
    auto *a = new rma_op;
    a->token = token;
    a->peer = rank;
    a->rkey = k->rkey;
    a->op = op;
    a->width = width;
    a->operand = operand;
    a->compare = compare;
    a->remote = remote;
    a->result = result;
    a->reply = reply;
    if (!send_room(*p, 1)) {
        discard_rma(a);
        return CCS_PLUGIN_AGAIN;
    }
    if (!issue_atomic_step(*p, *a)) {
        discard_rma(a);
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    return CCS_PLUGIN_IN_PROGRESS;
}

bool verbs_plugin::issue_atomic_step(peer &p, rma_op &op) {
    if (!send_room(p, 1)) {
        waiting_rma_.push_back(&op);
        return true;
    }
    ibv_send_wr wr{};
    wr.wr.atomic.remote_addr = word_of(op.remote);
    wr.wr.atomic.rkey = op.rkey;
    if (single_step(op) && op.op != CCS_PLUGIN_ATOMIC_CSWAP) {
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.wr.atomic.compare_add = op.op == CCS_PLUGIN_ATOMIC_ADD ? op.operand : 0;
    } else if (single_step(op)) {
        wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.compare_add = op.compare;
        wr.wr.atomic.swap = op.operand;
    } else if (!op.looping) {  // the loop's first read
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.wr.atomic.compare_add = 0;
    } else {
        uint64_t next = 0;
        next_value(op, part(op, op.expected), next);
        wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.compare_add = op.expected;
        wr.wr.atomic.swap = with_part(op, op.expected, next);
    }
    ibv_sge sge{reinterpret_cast<uintptr_t>(replies_->at(op.reply)), sizeof(uint64_t), replies_->lkey(op.reply)};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    work *w = take_work(work::kind::rma, p);
    w->op = &op;
    if (!post(p, wr, w)) {
        give_work(w);
        return false;
    }
    ++op.pending;
    return true;
}

void verbs_plugin::on_atomic_step(peer &p, rma_op &op) {
    if (op.status != CCS_PLUGIN_OK) return finish_rma(&op);
    uint64_t value;
    std::memcpy(&value, replies_->at(op.reply), sizeof value);
    const auto done = [&](uint64_t word) {
        const uint64_t old = part(op, word);
        if (op.result) std::memcpy(op.result, &old, op.width);
        finish_rma(&op);
    };
    if (single_step(op)) return done(value);
    if (op.looping && value == op.expected) return done(value);  // our swap took
    op.looping = true;
    op.expected = value;
    uint64_t next;
    if (!next_value(op, part(op, value), next)) return done(value);  // nothing to write
    if (!issue_atomic_step(p, op)) {
        op.status = CCS_PLUGIN_ERR_TRANSPORT;
        finish_rma(&op);
    }
}

}  // namespace ccs::verbs
