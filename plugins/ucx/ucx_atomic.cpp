// Atomics by UCX (ucp_atomic_op_nbx) on memory the core registered for
// network atomics, to peers whose lanes do atomics: the adapter's where it
// has them, CPU atomics in UCX's shared-memory segments on a node. Where
// UCX would emulate them (TCP: the target's UCX applies them with its
// CPU, unseen by the core's own atomics) the answer is UNSUPPORTED.
//
// UCX 1.13's fetching and, or and xor leave the word wrong (5 fetch-and 32
// leaves 5), while its compare-and-swap is right: those three, when they
// fetch, are a compare-and-swap loop, as OpenSHMEM libraries build them
// where a network lacks them.
#include "ucx_callbacks.hpp"

namespace ccs::ucx {
namespace {

// UCP's operation for each of the ABI's; FETCH is a fetch-and-add of 0 and
// SET a swap whose old value is dropped (UCP has neither).
ucp_atomic_op_t ucp_op(uint32_t op) {
    switch (op) {
    case CCS_PLUGIN_ATOMIC_AND: return UCP_ATOMIC_OP_AND;
    case CCS_PLUGIN_ATOMIC_OR: return UCP_ATOMIC_OP_OR;
    case CCS_PLUGIN_ATOMIC_XOR: return UCP_ATOMIC_OP_XOR;
    case CCS_PLUGIN_ATOMIC_SWAP:
    case CCS_PLUGIN_ATOMIC_SET: return UCP_ATOMIC_OP_SWAP;
    case CCS_PLUGIN_ATOMIC_CSWAP: return UCP_ATOMIC_OP_CSWAP;
    default: return UCP_ATOMIC_OP_ADD;  // ADD, FETCH
    }
}

bool bitwise(uint32_t op) {
    return op == CCS_PLUGIN_ATOMIC_AND || op == CCS_PLUGIN_ATOMIC_OR || op == CCS_PLUGIN_ATOMIC_XOR;
}

// What a bitwise `op` with `bits` makes of `word`, in `width` bytes.
uint64_t apply_bitwise(uint32_t op, uint64_t word, uint64_t bits, uint32_t width) {
    const uint64_t out = op == CCS_PLUGIN_ATOMIC_AND ? word & bits : op == CCS_PLUGIN_ATOMIC_OR ? word | bits : word ^ bits;
    return width == 4 ? out & 0xffffffffull : out;
}

}  // namespace

ccs_plugin_status_t ucx_plugin::atomic(int32_t rank, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                                       uint64_t compare, void *result, void *rkey, uint64_t token) {
    peer *p = peer_at(rank);
    if (!p || !rkey || (width != 4 && width != 8) || op > CCS_PLUGIN_ATOMIC_SET) return CCS_PLUGIN_ERR_INVALID;
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(*p, why);
    if (!ep) return why;
    if (!p->native_atomics) return CCS_PLUGIN_ERR_UNSUPPORTED;
    const ucp_rkey_h key = static_cast<remote_key *>(rkey)->rkey;
    // Both words are a uint64_t's: little-endian, a 4-byte one is its low half.
    auto *r = new rma_request{this, token, 1, UCS_OK};  // the 1: held until all is issued
    r->width = width;
    r->result = op == CCS_PLUGIN_ATOMIC_SET ? nullptr : result;
    if (bitwise(op) && result) {
        r->op = op;
        r->operand = operand;
        r->ep = ep;
        r->key = key;
        r->remote = remote;
        r->reply = 0;  // the first guess at the word's value
        return compare_and_swap_step(r) ? CCS_PLUGIN_IN_PROGRESS : issued(r);
    }
    // UCP fetches for swaps always (CSWAP: the operand buffer holds what to
    // compare with, the reply buffer what to swap in); a post (add, and,
    // or, xor without a result) completes when issued and needs a flush
    // to be done there.
    const bool swap = op == CCS_PLUGIN_ATOMIC_SWAP || op == CCS_PLUGIN_ATOMIC_CSWAP || op == CCS_PLUGIN_ATOMIC_SET;
    const bool fetches = swap || op == CCS_PLUGIN_ATOMIC_FETCH || result;
    r->operand = op == CCS_PLUGIN_ATOMIC_FETCH ? 0 : op == CCS_PLUGIN_ATOMIC_CSWAP ? compare : operand;
    r->reply = op == CCS_PLUGIN_ATOMIC_CSWAP ? operand : 0;
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    rp.cb.send = callbacks::rma_piece_done;
    rp.user_data = r;
    rp.datatype = ucp_dt_make_contig(width);
    if (fetches) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.reply_buffer = &r->reply;
    }
    r->piece([&] { return ucp_atomic_op_nbx(ep, ucp_op(op), &r->operand, 1, remote, key, &rp); });
    if (!fetches && !p->put_visible_on_return && r->status == UCS_OK) {
        ucp_request_param_t fp{};
        fp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        fp.cb.send = callbacks::rma_piece_done;
        fp.user_data = r;
        r->piece([&] { return ucp_ep_flush_nbx(ep, &fp); });
    }
    return issued(r);
}

// r->reply: the word's value as last seen. Swaps in what the op makes of
// it, and again with each value a miss returns, until one holds (false:
// r->reply is the old value) or one is in flight (true:
// compare_and_swap_done goes on), or UCX refused (false, r->status).
bool ucx_plugin::compare_and_swap_step(rma_request *r) {
    for (;;) {
        const uint64_t seen = r->reply;
        r->reply = apply_bitwise(r->op, seen, r->operand, r->width);
        r->compare = seen;
        ucp_request_param_t rp{};
        rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE |
                          UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.cb.send = callbacks::compare_and_swap_done;
        rp.user_data = r;
        rp.datatype = ucp_dt_make_contig(r->width);
        rp.reply_buffer = &r->reply;
        void *q = ucp_atomic_op_nbx(r->ep, UCP_ATOMIC_OP_CSWAP, &r->compare, 1, r->remote, r->key, &rp);
        if (UCS_PTR_IS_PTR(q)) return true;
        if (UCS_PTR_IS_ERR(q)) {
            r->status = UCS_PTR_STATUS(q);
            return false;
        }
        if (r->reply == seen) return false;  // it held
    }
}

void callbacks::compare_and_swap_done(void *request, ucs_status_t status, void *user_data) {
    auto *r = static_cast<rma_request *>(user_data);
    ucp_request_free(request);
    if (status != UCS_OK) r->status = status;
    r->owner->compare_and_swap_steps_.push_back(r);
    r->owner->reports_ = true;
}

void ucx_plugin::continue_compare_and_swap(rma_request *r) {
    if (r->status == UCS_OK && r->reply != r->compare && compare_and_swap_step(r)) return;
    on_rma_piece_done(r, r->status);  // reports it
}

}  // namespace ccs::ucx
