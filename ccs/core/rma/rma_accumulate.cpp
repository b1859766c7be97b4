// Accumulate, contiguous or between two datadesc layouts (as lists of
// pieces, each whole elements): into a node peer's ccs_mem_alloc block
// mapped here, applied in place under the block's lock (block_lock.hpp);
// anywhere else the target combines the initiator's elements into its
// memory, in messages of at most accumulate_piece() bytes of data, a few
// unanswered (the next sent as each is answered),
// one message at a time in its progress, taking the block's lock where the
// memory is a block. So each element is updated atomically with respect to
// every other accumulate, from any number of processes, whichever way each
// came, and a large accumulate is never buffered whole.
//
//   accumulate request  rma_wire.hpp
//   accumulate reply    args {token, status, stream offset}   payload: old values (fetch), or the refusal's reason
#include "core/rma/rma_engine.hpp"

#include "core/rma/block_lock.hpp"
#include "core/rma/rma_wire.hpp"
#include "util/list_copy.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"

#include <cstring>
#include <utility>
#include <vector>

namespace ccs {

namespace {

// Applies `a` from the pieces of `from` onto those of `to` in stream order,
// `to`'s addresses moved by `shift` (where the target's memory is mapped
// here); old values go to a.fetched at their stream offset. Every piece
// holds whole elements (checked when the request was made), so every span
// between two piece boundaries does too.
// The spans go to the kernel in batches, one call for many.
void accumulate_lists(const rma_accumulate &a, const segment_list &to, uint64_t shift, const segment_list &from) {
    auto *old = static_cast<uint8_t *>(a.fetched);
    const auto piece = [](const segment_list &list, uint64_t by) {
        return [&list, by](size_t i) {
            return std::pair{reinterpret_cast<uint8_t *>(list.data()[i].address + by), list.data()[i].length};
        };
    };
    constexpr size_t batch = 64;
    acc_span spans[batch];
    size_t count = 0, bytes = 0;
    const auto flush = [&] {
        apply_accumulate_spans(a, spans, count, old);
        if (old) old += bytes;
        count = bytes = 0;
    };
    const auto add = [&](uint8_t *dst, const uint8_t *src, size_t n) {
        spans[count++] = acc_span{dst, src, n};
        bytes += n;
        if (count == batch) flush();
    };
    // One side in one piece (a strided patch from a contiguous buffer, or
    // the reverse): the other side's pieces are the spans.
    if (from.size() == 1 || to.size() == 1) {
        const bool one_source = from.size() == 1;
        const segment_list &many = one_source ? to : from;
        uint8_t *const one = piece(one_source ? from : to, one_source ? 0 : shift)(0).first;
        const uint64_t by = one_source ? shift : 0;
        size_t at = 0;
        for (size_t i = 0; i < many.size(); ++i) {
            const auto [address, n] = piece(many, by)(i);
            if (one_source) add(address, one + at, n);
            else add(one + at, address, n);
            at += n;
        }
    } else {
        copy_lists(add, to.size(), piece(to, shift), from.size(), piece(from, 0));
    }
    if (count) flush();
}

}  // namespace

bool rma_engine::try_mapped_accumulate(const rma_request &q, const rma_operation *op) {
    if (q.key.id == 0 || q.target == rank_ || q.remote.length == 0) return false;
    const remote_key *k = keys_.find(q.key.id);
    if (!k || !k->mapped || !k->lock || k->owner != q.target) return false;
    const auto inside = [k](uint64_t addr, uint64_t len) { return range_holds(k->base, k->length, addr, len); };
    if (!op && !inside(q.remote.address, q.remote.length)) return false;  // the general path says what is wrong
    for (size_t i = 0; op && i < op->remote.size(); ++i)
        if (!inside(op->remote.data()[i].address, op->remote.data()[i].length)) return false;
    const uint64_t shift = reinterpret_cast<uintptr_t>(k->mapped) - k->base;
    {
        const block_lock_guard hold(k->lock);
        if (k->ended()) return false;  // the general path says so
        if (op)
            accumulate_lists(q.acc, op->remote, shift, op->local);
        else
            apply_accumulate(q.acc, reinterpret_cast<uint8_t *>(q.remote.address + shift),
                             reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(q.local.address)),
                             q.remote.length, static_cast<uint8_t *>(q.acc.fetched));
    }
    release_fence();  // visible before the completion is
    ++stats_.accumulates;
    stats_.bytes += q.remote.length;
    complete_now(q.completion);
    return true;
}

void rma_engine::accumulate_here(request &r) {
    const rma_operation &op = r.op;
    {
        const block_lock_guard hold(memory_.block_lock(r.lo, r.hi - r.lo));
        accumulate_lists(op.acc, op.remote, 0, op.local);
    }
    finish(r, CCS_OK);
}

void rma_engine::issue_accumulate(request &r) {
    r.at = stage::in_flight;
    send_accumulate_pieces(r);
}

bool rma_engine::send_accumulate_pieces(request &r) {
    const rma_accumulate &a = r.op.acc;
    const size_t bytes = r.op.remote.bytes();
    uint64_t scale[2];
    std::memcpy(scale, a.scale, sizeof scale);
    const uint64_t fetch = static_cast<uint64_t>(a.fetched != nullptr) << 16;
    context &internal = *contexts_.by_id(context_table::internal_id);
    const auto handler = static_cast<uint16_t>(first_handler_ + accumulate_request);
    const size_t piece = accumulate_piece(r.op.target);
    while (r.sent < bytes && r.parts < accumulate_window && (r.parts + 1) * piece <= accumulate_in_flight) {
        // The next message: up to `piece` bytes of data, fewer where the
        // target's pieces it covers would make the message larger.
        accumulate_pieces_.clear();
        size_t n = 0;
        r.to.take(r.op.remote, piece, [&](uint64_t at, size_t len) {
            accumulate_pieces_.push_back({at, len});
            n += len;
            return n + 16 * accumulate_pieces_.size() < piece;
        });
        const bool one_piece = accumulate_pieces_.size() == 1;
        const uint64_t how = a.op | static_cast<uint64_t>(a.type) << 8 | fetch | (one_piece ? 0 : pieces_in_payload);
        const uint64_t args[7] = {r.token, key_handle(r), how, r.sent, scale[0], scale[1],
                                  one_piece ? accumulate_pieces_[0].address : 0};
        ccs_status_t st;
        const uint8_t *src = nullptr;
        if (one_piece && r.from.within_one(r.op.local, n, src)) {
            st = am_.send(internal, r.op.target, handler, args, 7, src, n, nullptr);
        } else {
            // The target's pieces listed when there are several, then the
            // data gathered from ours.
            if (one_piece) accumulate_scratch_.resize(n);
            else accumulate_scratch_ = write_piece_list(accumulate_pieces_.data(), accumulate_pieces_.size(), n);
            uint8_t *to = accumulate_scratch_.data() + accumulate_scratch_.size() - n;
            r.from.take(r.op.local, n, [&](uint64_t at, size_t len) {
                std::memcpy(to, reinterpret_cast<const void *>(static_cast<uintptr_t>(at)), len);
                to += len;
                return true;
            });
            st = am_.send(internal, r.op.target, handler, args, 7, accumulate_scratch_.data(),
                          accumulate_scratch_.size(), nullptr);
        }
        if (st != CCS_OK) {
            finish(r, st, last_error());  // replies to earlier pieces find nothing
            return false;
        }
        r.sent += n;
        ++r.parts;
    }
    return true;
}

void rma_engine::on_accumulate_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    // Every piece checked before any is changed.
    accumulate_message q;
    ccs_status_t st = read_accumulate_message(m->args, m->nargs, static_cast<const uint8_t *>(m->payload),
                                              m->payload_size, q)
                          ? CCS_OK
                          : fail(CCS_ERR_INTERNAL, "a malformed accumulate request");
    for (size_t i = 0; st == CCS_OK && i < q.pieces.size(); ++i)
        st = self->memory_.check_access(q.handle, q.pieces[i].address, q.pieces[i].length);
    std::vector<uint8_t> old(st == CCS_OK && q.fetch ? q.data_length : 0);
    size_t done = 0;
    for (size_t i = 0; st == CCS_OK && i < q.pieces.size(); done += q.pieces[i].length, ++i) {
        const ccs_plugin_remote_v1_t &p = q.pieces[i];
        const block_lock_guard hold(self->memory_.block_lock(p.address, p.length));
        apply_accumulate(q.acc, reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(p.address)), q.data + done,
                         p.length, q.fetch ? old.data() + done : nullptr);
    }
    const std::string why = st == CCS_OK ? std::string() : last_error();
    const uint64_t args[3] = {m->args[0], static_cast<uint64_t>(st), q.offset};
    context &internal = *self->contexts_.by_id(context_table::internal_id);
    const void *reply_data = st == CCS_OK ? static_cast<const void *>(old.data()) : why.data();
    const size_t length = st == CCS_OK ? old.size() : why.size();
    // A failed reply means the requester died: nobody is left to tell.
    (void)self->am_.send(internal, m->source, static_cast<uint16_t>(self->first_handler_ + accumulate_reply), args, 3,
                         reply_data, length, nullptr);
}

void rma_engine::on_accumulate_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 3) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;  // failed already
    request &r = it->second;
    const auto st = static_cast<ccs_status_t>(m->args[1]);
    if (st != CCS_OK) {
        self->finish(r, st, refused(r, m));
        self->requests_.erase(it);
        return;
    }
    const uint64_t offset = m->args[2];
    if (r.op.acc.fetched && m->payload_size > 0 && offset <= r.op.remote.bytes() &&
        m->payload_size <= r.op.remote.bytes() - offset)
        std::memcpy(static_cast<uint8_t *>(r.op.acc.fetched) + offset, m->payload, m->payload_size);
    --r.parts;
    if (!self->send_accumulate_pieces(r)) {
        self->requests_.erase(it);
        return;
    }
    if (r.parts > 0) return;
    self->finish(r, CCS_OK);
    self->requests_.erase(it);
}

}  // namespace ccs
