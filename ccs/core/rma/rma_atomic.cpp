// Remote atomics: one word changed by the CPU's atomic instructions, here
// where the word is mapped (a node peer's ccs_mem_alloc block), else at the
// target inside its progress. Never by a plugin's own atomics: one
// mechanism, so every CCS atomic on a word is atomic with respect to the
// others whatever path each took.
//
//   atomic request  rma_wire.hpp
//   reply           args {token, status}   payload: the old value (width bytes)
#include "core/rma/rma_engine.hpp"
#include "core/rma/rma_wire.hpp"

#include "util/completion.hpp"
#include "util/error.hpp"

namespace ccs {

// The common case inline: an explicit key whose region is mapped here.
bool rma_engine::try_mapped_atomic(const rma_request &q) {
    const remote_key *k = mapped_key(q, q.atomic.width);
    if (!k) return false;
    const uint64_t old = apply_atomic(q.atomic, k->mapped + (q.remote.address - k->base));
    store_fetched(q.atomic, reinterpret_cast<void *>(static_cast<uintptr_t>(q.local.address)), old);
    ++stats_.atomics;
    stats_.bytes += q.atomic.width;
    complete_now(q.completion);
    return true;
}

void rma_engine::issue_atomic(request &r) {
    ++stats_.atomics_at_target;
    r.at = stage::in_flight;
    const rma_atomic &a = r.op.atomic;
    const uint64_t args[6] = {r.token,      key_handle(r), r.op.remote.data()[0].address,
                              a.op | static_cast<uint64_t>(a.width) << 8, a.operand, a.compare};
    context &internal = *contexts_.by_id(context_table::internal_id);
    const ccs_status_t st =
        am_.send(internal, r.op.target, static_cast<uint16_t>(first_handler_ + atomic_request), args, 6, nullptr, 0, nullptr);
    if (st != CCS_OK) finish(r, st, last_error());
}

void rma_engine::on_atomic_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    atomic_message q;
    const ccs_status_t st = read_atomic_message(m->args, m->nargs, q)
                                ? self->memory_.check_access(q.handle, q.address, q.atomic.width)
                                : fail(CCS_ERR_INTERNAL, "a malformed atomic request");
    alignas(8) uint8_t old[8] = {};
    if (st == CCS_OK)
        store_fetched(q.atomic, old, apply_atomic(q.atomic, reinterpret_cast<void *>(static_cast<uintptr_t>(q.address))));
    self->reply(m->source, reply_to, m->args[0], st, old, st == CCS_OK ? q.atomic.width : 0);
}

}  // namespace ccs
