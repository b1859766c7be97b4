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
#include "datadesc/walker.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/list_copy.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace ccs {

namespace {

// Spans handed to the kernel in batches, one call for many; old values go
// to a.fetched in stream order.
class span_batch {
public:
    explicit span_batch(const rma_accumulate &a) : a_(a), old_(static_cast<uint8_t *>(a.fetched)) {}
    void add(uint8_t *dst, const uint8_t *src, size_t n) {
        spans_[count_++] = acc_span{dst, src, n};
        bytes_ += n;
        if (count_ == batch) flush();
    }
    void flush() {
        if (count_ == 0) return;
        apply_accumulate_spans(a_, spans_, count_, old_);
        if (old_) old_ += bytes_;
        count_ = bytes_ = 0;
    }

private:
    static constexpr size_t batch = 64;
    const rma_accumulate &a_;
    uint8_t *old_;
    acc_span spans_[batch];
    size_t count_ = 0, bytes_ = 0;
};

// Applies `a` from the pieces of `from` onto those of `to` in stream order,
// `to`'s addresses moved by `shift` (where the target's memory is mapped
// here). Every piece holds whole elements (checked when the request was
// made), so every span between two piece boundaries does too.
void accumulate_lists(const rma_accumulate &a, const segment_list &to, uint64_t shift, const segment_list &from) {
    const auto piece = [](const segment_list &list, uint64_t by) {
        return [&list, by](size_t i) {
            return std::pair{reinterpret_cast<uint8_t *>(list.data()[i].address + by), list.data()[i].length};
        };
    };
    span_batch spans(a);
    const auto add = [&spans](uint8_t *dst, const uint8_t *src, size_t n) { spans.add(dst, src, n); };
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
    spans.flush();
}

}  // namespace

bool rma_engine::apply_mapped_accumulate(int target, const rma_accumulate &a, const void *src, size_t length,
                                         uint64_t remote, ccs_rkey_t key, fast_path::thread_counts *beside) noexcept {
    if (length == 0) return false;
    const remote_key *k = mapped_key(target, key, remote, length);
    if (!k || !k->lock) return false;
    {
        const block_lock_guard hold(k->lock);
        if (k->ended()) return false;  // the general path says so
        apply_accumulate(a, k->mapped + (remote - k->base), static_cast<const uint8_t *>(src), length,
                         static_cast<uint8_t *>(a.fetched));
    }
    release_fence();  // visible before the completion is
    count_accumulate(length, beside);
    return true;
}

bool rma_engine::try_mapped_accumulate(int target, const rma_accumulate &a, const void *src, size_t length,
                                       uint64_t remote, ccs_rkey_t key, const ccs_completion_t *completion,
                                       fast_path::thread_counts *beside) noexcept {
    // A callback waits for progress with its context, which only a request knows.
    if (completion && completion->callback) return false;
    if (!apply_mapped_accumulate(target, a, src, length, remote, key, beside)) return false;
    if (completion && completion->counter) counter_add(*completion->counter);
    return true;
}

bool rma_engine::try_mapped_accumulate(const rma_request &q, const rma_operation *op) {
    if (!op) {
        if (!apply_mapped_accumulate(q.target, q.acc,
                                     reinterpret_cast<const void *>(static_cast<uintptr_t>(q.local.address)),
                                     q.remote.length, q.remote.address, q.key))
            return false;
        complete_now(q.completion);
        return true;
    }
    if (q.key.id == 0 || q.target == rank_ || q.remote.length == 0) return false;
    const remote_key *k = keys_.find(q.key.id);
    if (!k || !k->mapped || !k->lock || k->owner != q.target) return false;
    for (size_t i = 0; i < op->remote.size(); ++i)
        if (!range_holds(k->base, k->length, op->remote.data()[i].address, op->remote.data()[i].length)) return false;
    {
        const block_lock_guard hold(k->lock);
        if (k->ended()) return false;  // the general path says so
        accumulate_lists(q.acc, op->remote, reinterpret_cast<uintptr_t>(k->mapped) - k->base, op->local);
    }
    release_fence();  // visible before the completion is
    count_accumulate(q.remote.length, nullptr);
    complete_now(q.completion);
    return true;
}

bool rma_engine::try_mapped_accumulate_layouts(int target, const rma_accumulate &a, const uint8_t *local,
                                               int64_t local_count, const ccs_datadesc_s &local_dd, uint64_t remote,
                                               int64_t remote_count, const ccs_datadesc_s &remote_dd, ccs_rkey_t key,
                                               const ccs_completion_t *completion) {
    if (completion && completion->callback) return false;
    const dd::program &from = *local_dd.compiled, &to = *remote_dd.compiled;
    const int64_t bytes = local_count * from.size;
    const bool local_whole = from.contiguous(local_count), remote_whole = to.contiguous(remote_count);
    // Neither side contiguous: both must be plain strided runs, walked in
    // step (a Global Arrays patch from a block of a larger local array).
    const dd::run *local_rows = local_whole || remote_whole ? nullptr : dd::strided_run(from, local_count);
    const dd::run *remote_rows = local_rows ? dd::strided_run(to, remote_count) : nullptr;
    if (bytes == 0 || (!local_whole && !remote_whole && !remote_rows)) return false;
    uint64_t first = 0, span = 0;
    if (place_layout(remote_dd, remote_count, remote, first, span) != layout_fit::fits) return false;
    const remote_key *k = mapped_key(target, key, first, span);
    if (!k || !k->lock) return false;
    // Every piece of the side that is not contiguous must hold whole
    // elements, the remote ones aligned for them (sizes and alignments are
    // powers of two); where that is not plain, the general path checks
    // each piece and says which one fails.
    const uint64_t element = acc_element_size(a.type), align = acc_alignment(a.type);
    uint64_t lengths = 0, offsets = 0, local_lengths = 0, local_offsets = 0;
    if (!remote_whole) dd::piece_bits(to, remote_count, lengths, offsets);
    if (!local_whole) dd::piece_bits(from, local_count, local_lengths, local_offsets);
    const uint64_t addresses = remote_whole ? remote + static_cast<uint64_t>(to.ops[0].disp) : remote | offsets;
    if (((lengths | local_lengths) & (element - 1)) != 0 || (addresses & (align - 1)) != 0) return false;
    // Where `remote` is mapped, as an integer: with a negative lower bound
    // the layout's origin itself may lie before the region.
    auto *const there = reinterpret_cast<uint8_t *>(reinterpret_cast<uintptr_t>(k->mapped) + (remote - k->base));
    {
        const block_lock_guard hold(k->lock);
        if (k->ended()) return false;  // the general path says so
        span_batch spans(a);
        if (local_whole) {
            const uint8_t *src = local + from.ops[0].disp;
            dd::for_each_piece(to, remote_count, 0, bytes, [&](int64_t at, int64_t len) {
                spans.add(there + at, src, static_cast<size_t>(len));
                src += len;
                return true;
            });
        } else if (remote_whole) {
            uint8_t *dst = there + to.ops[0].disp;
            dd::for_each_piece(from, local_count, 0, bytes, [&](int64_t at, int64_t len) {
                spans.add(dst, local + at, static_cast<size_t>(len));
                dst += len;
                return true;
            });
        } else {
            // Spans end where a piece of either side ends: whole elements,
            // as both sides' pieces are.
            dd::strided_cursor dst(*remote_rows), src(*local_rows);
            int64_t dst_done = 0, src_done = 0;
            for (int64_t left = bytes; left > 0;) {
                const int64_t n = std::min(dst.length() - dst_done, src.length() - src_done);
                spans.add(there + dst.at() + dst_done, local + src.at() + src_done, static_cast<size_t>(n));
                left -= n;
                if ((dst_done += n) == dst.length()) dst.next(), dst_done = 0;
                if ((src_done += n) == src.length()) src.next(), src_done = 0;
            }
        }
        spans.flush();
    }
    release_fence();  // visible before the completion is
    count_accumulate(static_cast<size_t>(bytes), nullptr);
    if (completion && completion->counter) counter_add(*completion->counter);
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
