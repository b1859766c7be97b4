// Accumulate, contiguous or between two datadesc layouts (as lists of
// pieces, each whole elements): into a node peer's ccs_mem_alloc block
// mapped here, applied in place under the block's lock (block_lock.hpp);
// anywhere else the target combines the initiator's elements into its
// memory, in messages of at most accumulate_piece bytes of data, at most
// accumulate_window of them in flight (the next sent as each is answered),
// one message at a time in its progress, taking the block's lock where the
// memory is a block. So each element is updated atomically with respect to
// every other accumulate, from any number of processes, whichever way each
// came, and a large accumulate is never buffered whole.
//
//   accumulate request  args {token, handle, op | type << 8 | fetch << 16 | pieces_in_payload,
//                             stream offset, scale (2 words), address (one target piece) or 0}
//                       payload: the data, behind {count, count x (address, length)} with pieces_in_payload
//   accumulate reply    args {token, status, stream offset}   payload: old values (fetch), or the refusal's reason
#include "core/rma/rma_engine.hpp"

#include "core/rma/block_lock.hpp"
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
void accumulate_lists(const rma_accumulate &a, const segment_list &to, uint64_t shift, const segment_list &from) {
    auto *old = static_cast<uint8_t *>(a.fetched);
    const auto piece = [](const segment_list &list, uint64_t by) {
        return [&list, by](size_t i) {
            return std::pair{reinterpret_cast<uint8_t *>(list.data()[i].address + by), list.data()[i].length};
        };
    };
    copy_lists(
        [&](uint8_t *dst, const uint8_t *src, size_t n) {
            apply_accumulate(a, dst, src, n, old);
            if (old) old += n;
        },
        to.size(), piece(to, shift), from.size(), piece(from, 0));
}

// The flag in a request's `how` word saying its target pieces travel in the
// payload, ahead of the data, instead of one address in the arguments.
constexpr uint64_t pieces_in_payload = uint64_t{1} << 17;

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
    while (r.sent < bytes && r.parts < accumulate_window) {
        // The next piece: up to accumulate_piece bytes of data, fewer where
        // the target's pieces it covers would make the message larger.
        accumulate_head_.clear();
        size_t n = 0;
        uint64_t addr = 0;
        r.to.take(r.op.remote, accumulate_piece, [&](uint64_t at, size_t len) {
            if (accumulate_head_.empty() && n == 0) addr = at;
            accumulate_head_.push_back(at);
            accumulate_head_.push_back(len);
            n += len;
            return n + 8 * accumulate_head_.size() < accumulate_piece;
        });
        const bool one_piece = accumulate_head_.size() == 2;
        const uint64_t how = a.op | static_cast<uint64_t>(a.type) << 8 | fetch | (one_piece ? 0 : pieces_in_payload);
        const uint64_t args[7] = {r.token, key_handle(r), how, r.sent, scale[0], scale[1], one_piece ? addr : 0};
        ccs_status_t st;
        const uint8_t *src = nullptr;
        if (one_piece && r.from.within_one(r.op.local, n, src)) {
            st = am_.send(internal, r.op.target, handler, args, 7, src, n, nullptr);
        } else {
            // {count, count x (addr, length)} when the target has several
            // pieces, then the data gathered from ours.
            const size_t head = one_piece ? 0 : 8 + 8 * accumulate_head_.size();
            accumulate_scratch_.resize(head + n);
            if (!one_piece) {
                const uint64_t count = accumulate_head_.size() / 2;
                std::memcpy(accumulate_scratch_.data(), &count, 8);
                std::memcpy(accumulate_scratch_.data() + 8, accumulate_head_.data(), 8 * accumulate_head_.size());
            }
            uint8_t *to = accumulate_scratch_.data() + head;
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
    rma_accumulate a;
    const uint64_t how = m->nargs >= 7 ? m->args[2] : 0;
    a.op = static_cast<uint8_t>(how & 0xff);
    a.type = static_cast<uint8_t>((how >> 8) & 0xff);
    if (m->nargs >= 7) std::memcpy(a.scale, &m->args[4], 16);
    const bool fetch = (how >> 16) & 1;
    // The target's pieces: one address in the arguments, or a list ahead
    // of the data; every one checked before any is changed.
    const auto *payload = static_cast<const uint8_t *>(m->payload);
    std::vector<ccs_plugin_remote_v1_t> pieces;
    const uint8_t *data = payload;
    size_t data_bytes = m->payload_size;
    bool malformed = m->nargs < 7 || a.op > CCS_ACC_REPLACE || a.type > CCS_ACC_COMPLEX_DOUBLE;
    if (!malformed && !(how & pieces_in_payload)) {
        pieces.push_back({m->args[6], m->payload_size});
    } else if (!malformed) {
        uint64_t count = 0;
        if (m->payload_size >= 8) std::memcpy(&count, payload, 8);
        malformed = m->payload_size < 8 || count > (m->payload_size - 8) / 16;
        for (uint64_t i = 0; !malformed && i < count; ++i) {
            uint64_t pair[2];
            std::memcpy(pair, payload + 8 + 16 * i, 16);
            pieces.push_back({pair[0], pair[1]});
        }
        if (!malformed) {
            data = payload + 8 + 16 * count;
            data_bytes = m->payload_size - 8 - 16 * count;
        }
    }
    uint64_t covered = 0;
    ccs_status_t st = CCS_OK;
    for (size_t i = 0; !malformed && st == CCS_OK && i < pieces.size(); ++i) {
        const ccs_plugin_remote_v1_t &p = pieces[i];
        malformed = p.address % acc_alignment(a.type) != 0 || p.length % acc_element_size(a.type) != 0 ||
                    p.length > data_bytes - covered;
        if (!malformed) {
            st = self->memory_.check_access(m->args[1], p.address, p.length);
            covered += p.length;
        }
    }
    if (malformed || covered != data_bytes) st = fail(CCS_ERR_INTERNAL, "a malformed accumulate request");
    std::vector<uint8_t> old(st == CCS_OK && fetch ? data_bytes : 0);
    size_t done = 0;
    for (size_t i = 0; st == CCS_OK && i < pieces.size(); done += pieces[i].length, ++i) {
        const ccs_plugin_remote_v1_t &p = pieces[i];
        const block_lock_guard hold(self->memory_.block_lock(p.address, p.length));
        apply_accumulate(a, reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(p.address)), data + done, p.length,
                         fetch ? old.data() + done : nullptr);
    }
    const std::string why = st == CCS_OK ? std::string() : last_error();
    const uint64_t args[3] = {m->args[0], static_cast<uint64_t>(st), m->nargs >= 7 ? m->args[3] : 0};
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
        self->finish(r, st,
                     "rank " + std::to_string(r.op.target) + " refused it: " +
                         std::string(static_cast<const char *>(m->payload), m->payload_size));
        self->requests_.erase(it);
        return;
    }
    const uint64_t offset = m->args[2];
    if (r.op.acc.fetched && offset <= r.op.remote.bytes() && m->payload_size <= r.op.remote.bytes() - offset)
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
