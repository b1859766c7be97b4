// Accumulate: into a node peer's ccs_mem_alloc block mapped here, applied
// in place under the block's lock (block_lock.hpp); anywhere else the
// target combines the initiator's elements into its memory, in pieces of
// at most accumulate_piece bytes, one message at a time in its progress,
// taking the block's lock where the memory is a block. So each element is
// updated atomically with respect to every other accumulate, from any
// number of processes, whichever way each came; a piece is never larger
// than that, so a large accumulate is not buffered whole.
//
//   accumulate request  args {token, handle, addr, op | type << 8 | fetch << 16, offset, scale (2 words)}
//                       payload: the piece's elements
//   accumulate reply    args {token, status, offset}   payload: old values (fetch), or the refusal's reason
#include "core/rma/rma_engine.hpp"

#include "core/rma/block_lock.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"

#include <cstring>
#include <vector>

namespace ccs {

bool rma_engine::try_mapped_accumulate(const rma_request &q) {
    if (q.key.id == 0 || q.target == rank_ || q.remote.length == 0) return false;
    const remote_key *k = keys_.find(q.key.id);
    if (!k || !k->mapped || !k->lock || k->owner != q.target ||
        !range_holds(k->base, k->length, q.remote.address, q.remote.length))
        return false;  // the general path takes it, or says what is wrong
    {
        const block_lock_guard hold(k->lock);
        if (k->ended()) return false;  // the general path says so
        apply_accumulate(q.acc, k->mapped + (q.remote.address - k->base),
                         reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(q.local.address)), q.remote.length,
                         static_cast<uint8_t *>(q.acc.fetched));
    }
    release_fence();  // visible before the completion is
    ++stats_.accumulates;
    stats_.bytes += q.remote.length;
    complete_now(q.completion);
    return true;
}

void rma_engine::issue_accumulate(request &r) {
    r.at = stage::in_flight;
    const rma_accumulate &a = r.op.acc;
    const auto *src = reinterpret_cast<const uint8_t *>(r.op.local.data()[0].address);
    const uint64_t remote = r.op.remote.data()[0].address;
    const size_t bytes = r.op.remote.bytes();
    uint64_t scale[2];
    std::memcpy(scale, a.scale, sizeof scale);
    const uint64_t how = a.op | static_cast<uint64_t>(a.type) << 8 | static_cast<uint64_t>(a.fetched != nullptr) << 16;
    context &internal = *contexts_.by_id(context_table::internal_id);
    const auto handler = static_cast<uint16_t>(first_handler_ + accumulate_request);
    r.parts = static_cast<uint32_t>((bytes + accumulate_piece - 1) / accumulate_piece);
    for (size_t offset = 0; offset < bytes; offset += accumulate_piece) {
        const size_t n = std::min(accumulate_piece, bytes - offset);
        const uint64_t args[7] = {r.token, key_handle(r), remote + offset, how, offset, scale[0], scale[1]};
        // Without a completion the AM engine copies what must wait.
        const ccs_status_t st = am_.send(internal, r.op.target, handler, args, 7, src + offset, n, nullptr);
        if (st != CCS_OK) return finish(r, st, last_error());  // replies to earlier pieces find nothing
    }
}

void rma_engine::on_accumulate_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    rma_accumulate a;
    ccs_status_t st = CCS_OK;
    const uint64_t addr = m->nargs >= 7 ? m->args[2] : 0;
    if (m->nargs >= 7) {
        a.op = static_cast<uint8_t>(m->args[3] & 0xff);
        a.type = static_cast<uint8_t>((m->args[3] >> 8) & 0xff);
        std::memcpy(a.scale, &m->args[5], 16);
    }
    const bool fetch = m->nargs >= 7 && (m->args[3] >> 16) & 1;
    if (m->nargs < 7 || a.op > CCS_ACC_REPLACE || a.type > CCS_ACC_COMPLEX_DOUBLE ||
        addr % acc_alignment(a.type) != 0 || m->payload_size % acc_element_size(a.type) != 0)
        st = fail(CCS_ERR_INTERNAL, "a malformed accumulate request");
    else
        st = self->memory_.check_access(m->args[1], addr, m->payload_size);
    std::vector<uint8_t> old(st == CCS_OK && fetch ? m->payload_size : 0);
    if (st == CCS_OK) {
        const block_lock_guard hold(self->memory_.block_lock(addr, m->payload_size));
        apply_accumulate(a, reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(addr)),
                         static_cast<const uint8_t *>(m->payload), m->payload_size, fetch ? old.data() : nullptr);
    }
    const std::string why = st == CCS_OK ? std::string() : last_error();
    const uint64_t args[3] = {m->args[0], static_cast<uint64_t>(st), m->nargs >= 7 ? m->args[4] : 0};
    context &internal = *self->contexts_.by_id(context_table::internal_id);
    const void *data = st == CCS_OK ? static_cast<const void *>(old.data()) : why.data();
    const size_t length = st == CCS_OK ? old.size() : why.size();
    // A failed reply means the requester died: nobody is left to tell.
    (void)self->am_.send(internal, m->source, static_cast<uint16_t>(self->first_handler_ + accumulate_reply), args, 3,
                         data, length, nullptr);
}

void rma_engine::on_accumulate_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 3) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;  // failed already
    request &r = it->second;
    const auto st = static_cast<ccs_status_t>(m->args[1]);
    if (st != CCS_OK) {
        self->finish(r, st,
                     "rank " + std::to_string(r.op.target) + " refused it: " +
                         std::string(static_cast<const char *>(m->payload), m->payload_size));
        self->requests_.erase(it);
        return;
    }
    const uint64_t offset = m->args[2];
    if (r.op.acc.fetched && offset <= r.op.remote.bytes() && m->payload_size <= r.op.remote.bytes() - offset)
        std::memcpy(static_cast<uint8_t *>(r.op.acc.fetched) + offset, m->payload, m->payload_size);
    if (--r.parts > 0) return;
    self->finish(r, CCS_OK);
    self->requests_.erase(it);
}

}  // namespace ccs
