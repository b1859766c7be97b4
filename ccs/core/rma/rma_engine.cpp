#include "core/rma/rma_engine.hpp"

#include "datadesc/layout_copy.hpp"
#include "datadesc/walker.hpp"
#include "core/rma/segments.hpp"
#include "core/rma/block_lock.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/log.hpp"
#include "util/range.hpp"

#include <ccs/datadesc.h>

#include <algorithm>
#include <cstring>

namespace ccs {

layout_fit place_layout(const ccs_datadesc_s &dd, int64_t count, uint64_t address, uint64_t &first, uint64_t &span) {
    int64_t lo = 0, hi = 0, width = 0;
    if (!dd::footprint(dd, count, lo, hi) || __builtin_sub_overflow(hi, lo, &width)) return layout_fit::too_wide;
    first = address + static_cast<uint64_t>(lo);
    span = static_cast<uint64_t>(width);
    return (lo < 0) == (first < address) && first <= UINT64_MAX - span ? layout_fit::fits : layout_fit::outside;
}

rma_engine::rma_engine(context_table &contexts, am_engine &am, memory_registry &memory, std::vector<transport *> route,
                       const std::vector<bool> &same_node, transport *atomics, int rank, const key_secret &secret,
                       bool force_emulation, size_t layout_piece)
    : contexts_(contexts), am_(am), memory_(memory), route_(std::move(route)), atomics_(atomics), rank_(rank),
      native_(route_.size(), 0), rma_beside_(route_.size(), 0), layout_piece_(layout_piece),
      keys_(route_, same_node, atomics, rank, secret, memory) {
    if (atomics) atomics->set_rma_sink(this);
    for (size_t peer = 0; peer < route_.size(); ++peer) {
        transport *t = route_[peer];
        if (!t) continue;
        t->set_rma_sink(this);
        if (!force_emulation)
            native_[peer] = static_cast<uint8_t>((t->native_put() ? native_put_bit : 0) | (t->native_get() ? native_get_bit : 0));
    }
}

rma_engine::~rma_engine() { memory_.on_revoke = nullptr; }

uint64_t rma_engine::outstanding(uint16_t ctx, int target) const {
    // Those other threads started beside the lock, too.
    uint64_t all = beside_operations::count(ctx, target);
    if (ctx >= outstanding_.size() || outstanding_[ctx].empty()) return all;
    const std::vector<uint64_t> &per_target = outstanding_[ctx];
    if (target >= 0) return all + per_target[static_cast<size_t>(target)];
    for (uint64_t n : per_target) all += n;
    return all;
}

void rma_engine::refuse_native(int target) {
    const fast_path::exclusive alone;  // the inline path reads it
    native_[static_cast<size_t>(target)] = 0;
}

namespace {

// Contiguous pieces of one side (saturating): one where its elements follow
// one another without a gap.
int64_t pieces_of(const rma_side &side) {
    if (side.dd->compiled->contiguous(side.count)) return 1;
    int64_t pieces = 0;
    return __builtin_mul_overflow(side.count, side.dd->compiled->blocks, &pieces) ? INT64_MAX : pieces;
}

// Pieces reserved ahead at most: a huge layout's list still grows as it
// fills instead of claiming its whole size at once.
constexpr int64_t reserve_at_most = 1 << 16;

// The pieces of one side, in stream order, appended to `out`.
void add_pieces(segment_list &out, const rma_side &side, int64_t bytes) {
    if (!side.dd) return out.push(side.address, side.length);
    const dd::program &layout = *side.dd->compiled;
    if (layout.contiguous(side.count)) {
        if (bytes > 0) out.push(side.address + static_cast<uint64_t>(layout.ops[0].disp), static_cast<size_t>(bytes));
        return;
    }
    out.reserve(static_cast<size_t>(std::min<int64_t>(pieces_of(side), reserve_at_most)));
    dd::for_each_piece(layout, side.count, 0, bytes, [&](int64_t at, int64_t len) {
        out.push(side.address + static_cast<uint64_t>(at), static_cast<size_t>(len));
        return true;
    });
}

int64_t bytes_of(const rma_side &side) {
    return side.dd ? side.count * side.dd->size : static_cast<int64_t>(side.length);
}

// An accumulate between layouts: every piece of both sides holds whole
// elements (the remote ones aligned for them), or the error saying which
// does not.
ccs_status_t check_whole_elements(const rma_operation &op) {
    const size_t element = acc_element_size(op.acc.type), align = acc_alignment(op.acc.type);
    const auto check = [&](const segment_list &list, const char *side, bool aligned) {
        // Sizes and alignments are powers of two: one pass of ORs clears
        // every piece at once (a layout of single elements has thousands);
        // only a failure looks for the piece to name.
        uint64_t lengths = 0, addresses = 0;
        for (size_t i = 0; i < list.size(); ++i) {
            lengths |= list.data()[i].length;
            addresses |= list.data()[i].address;
        }
        if ((lengths & (element - 1)) == 0 && (!aligned || (addresses & (align - 1)) == 0)) return CCS_OK;
        for (size_t i = 0; i < list.size(); ++i) {
            const ccs_plugin_remote_v1_t &p = list.data()[i];
            if (p.length % element == 0 && (!aligned || p.address % align == 0)) continue;
            return fail(CCS_ERR_INVALID_ARG, std::string("a piece of the ") + side + " layout, " +
                                                 describe_range(p.address, p.length) + ", " +
                                                 (p.length % element ? "is not whole " + std::to_string(element) +
                                                                           "-byte elements"
                                                                     : "is not aligned to " + std::to_string(align) +
                                                                           " bytes"));
        }
        return CCS_OK;
    };
    const ccs_status_t st = check(op.local, "local", false);
    return st != CCS_OK ? st : check(op.remote, "remote", true);
}

// "put of 8 bytes to rank 1", for a failure's detail.
std::string describe(const rma_operation &op) {
    const char *what = "get of ", *where = " bytes from rank ";
    switch (op.kind) {
    case rma_kind::put: what = "put of ", where = " bytes to rank "; break;
    case rma_kind::atomic: what = "atomic on ", where = " bytes of rank "; break;
    case rma_kind::accumulate: what = "accumulate of ", where = " bytes into rank "; break;
    case rma_kind::indexed_put:
        return "indexed put of " + std::to_string(op.local.bytes()) + " bytes to rank " + std::to_string(op.target);
    case rma_kind::get: break;
    }
    return what + std::to_string(op.bytes()) + where + std::to_string(op.target);
}

// An operation of the request's kind, target, notification and atomic or
// accumulate arguments, with neither lists nor layouts yet.
rma_operation operation_for(const rma_request &q) {
    rma_operation op;
    op.kind = q.kind;
    op.target = q.target;
    op.after = q.after;
    op.atomic = q.atomic;
    op.acc = q.acc;
    op.indexed = q.indexed;
    return op;
}

}  // namespace

rma_operation rma_engine::as_lists(const rma_request &q) {
    rma_operation op = operation_for(q);
    const int64_t bytes = bytes_of(q.local);
    add_pieces(op.local, q.local, bytes);
    add_pieces(op.remote, q.remote, bytes);
    return op;
}

ccs_status_t rma_engine::start(context &ctx, const rma_request &q) {
    starting_ctx_ = ctx.id();
    // One word, or contiguous elements: inline where the memory is mapped
    // here, else a request with both sides as lists.
    if (q.kind == rma_kind::atomic) {
        if (try_mapped_atomic(q)) return CCS_OK;
        return submit(ctx, as_lists(q), q.key, q.completion);
    }
    if (q.kind == rma_kind::accumulate) {
        // Contiguous ones inline without building lists.
        if (!q.by_layout()) {
            if (try_mapped_accumulate(q, nullptr)) return CCS_OK;
            return submit(ctx, as_lists(q), q.key, q.completion);
        }
        rma_operation op = as_lists(q);
        const ccs_status_t st = check_whole_elements(op);
        if (st != CCS_OK) return st;
        if (try_mapped_accumulate(q, &op)) return CCS_OK;
        return submit(ctx, std::move(op), q.key, q.completion);
    }
    if (q.kind == rma_kind::indexed_put) {
        ccs_status_t st = CCS_OK;
        if (try_mapped_indexed(q, st)) return st;
        // The pointer word there; the source here.
        rma_operation op = operation_for(q);
        op.remote.push(q.remote.address, 8);
        op.local.push(q.local.address, q.local.length);
        return submit(ctx, std::move(op), q.key, q.completion);
    }
    const bool put = q.writes_remote();
    auto *local = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(q.local.address));
    if (!q.by_layout()) {
        // A notification is sent when the request finishes: not direct.
        if (!q.after.wanted &&
            try_direct(ctx, put, q.target, local, q.local.length, q.remote.address, q.key, q.completion))
            return CCS_OK;
        return submit(ctx, as_lists(q), q.key, q.completion);
    }
    if (!q.after.wanted && try_mapped_layouts(put, q.target, local, q.local.count, *q.local.dd, q.remote.address,
                                              q.remote.count, *q.remote.dd, q.key, q.completion))
        return CCS_OK;
    if (sends_layouts(put, q.target, std::max(pieces_of(q.local), pieces_of(q.remote)), bytes_of(q.local))) {
        rma_operation op = operation_for(q);
        op.whole = rma_layouts{*q.local.dd, *q.remote.dd, local, q.remote.address, q.local.count, q.remote.count};
        return submit(ctx, std::move(op), q.key, q.completion);
    }
    return submit(ctx, as_lists(q), q.key, q.completion);
}

ccs_status_t rma_engine::submit(context &ctx, rma_operation &&op, ccs_rkey_t handle, const ccs_completion_t *completion) {
    request r;
    r.ctx = ctx.id();
    r.has_completion = wants_completion(completion);
    if (r.has_completion) r.completion = *completion;
    r.op = std::move(op);
    const int target = r.op.target;
    r.lo = UINT64_MAX;
    for (size_t i = 0; i < r.op.remote.size(); ++i) {
        const ccs_plugin_remote_v1_t &seg = r.op.remote.data()[i];
        r.lo = std::min(r.lo, seg.address);
        r.hi = std::max(r.hi, seg.address + seg.length);
    }
    const size_t bytes = r.op.bytes();
    if (r.op.whole && bytes > 0) {  // the hull of what the remote layout touches
        const rma_layouts &w = *r.op.whole;
        uint64_t span = 0;
        if (place_layout(w.remote_dd, w.remote_count, w.remote, r.lo, span) != layout_fit::fits)
            return fail(CCS_ERR_OUT_OF_RANGE, "the remote layout at " + std::to_string(w.remote) +
                                                  " reaches beyond the address space");
        r.hi = r.lo + span;
    }
    const remote_key *explicit_key = nullptr;
    if (handle.id != 0) {
        const remote_key *found = keys_.find(handle.id);
        if (!found || found->implicit) return unknown_key("", handle.id);
        const remote_key &k = *found;
        if (k.ended()) return ended_key("", k);
        if (k.owner != target)
            return fail(CCS_ERR_INVALID_KEY, "the key belongs to rank " + std::to_string(k.owner) +
                                                 ", the operation targets rank " + std::to_string(target));
        for (size_t i = 0; i < r.op.remote.size(); ++i) {
            const ccs_plugin_remote_v1_t &seg = r.op.remote.data()[i];
            if (!range_holds(k.base, k.length, seg.address, seg.length))
                return outside_key("", seg.address, seg.length, k.base, k.length);
        }
        if (r.op.whole && bytes > 0 && !range_holds(k.base, k.length, r.lo, r.hi - r.lo))
            return outside_key("", r.lo, r.hi - r.lo, k.base, k.length);
        r.key_id = handle.id;
        explicit_key = &k;
    } else if (bytes > 0 && target == rank_) {
        for (size_t i = 0; i < r.op.remote.size(); ++i) {
            const ccs_plugin_remote_v1_t &seg = r.op.remote.data()[i];
            if (!memory_.covering(seg.address, seg.length) && !memory_.expose_all)
                return fail(CCS_ERR_NOT_REGISTERED, "implicit key: [" + std::to_string(seg.address) + ", +" +
                                                        std::to_string(seg.length) + ") is not registered here");
        }
    } else if (bytes > 0) {
        if ((r.key_id = keys_.find_implicit(target, r.lo, r.hi - r.lo)) != 0) ++stats_.key_cache_hits;
        else r.at = stage::waiting_key;
    }
    r.token = next_token_++;
    // Counted once accepted.
    switch (r.op.kind) {
    case rma_kind::put: ++stats_.puts; break;
    case rma_kind::get: ++stats_.gets; break;
    case rma_kind::atomic: ++stats_.atomics; break;
    case rma_kind::accumulate: ++stats_.accumulates; break;
    case rma_kind::indexed_put: ++stats_.indexed_puts; break;
    }
    count_outstanding(r.ctx, target);
    stats_.bytes += bytes;
    const uint64_t token = r.token;
    if (bytes == 0) {  // nothing to move (a notify may still go)
        finish(r, CCS_OK);
        return CCS_OK;
    }
    if (r.at == stage::waiting_key) {
        keep_source(r);
        ++stats_.key_requests;
        const uint64_t args[3] = {token, r.lo, r.hi - r.lo};
        requests_.emplace(token, std::move(r));
        context &internal = *contexts_.by_id(context_table::internal_id);
        const ccs_status_t st =
            am_.send(internal, target, static_cast<uint16_t>(first_handler_ + key_request), args, 3, nullptr, 0, nullptr);
        if (st != CCS_OK) finish(token, st);
        return CCS_OK;
    }
    // Most operations (shm's cross-memory attach, this process) finish
    // inside issue and are never stored.
    issue(r, explicit_key);
    if (r.at == stage::done) return CCS_OK;
    // (A put sent whole packed its source into the message already.)
    const bool wait =
        r.op.kind == rma_kind::put && !r.has_completion && r.copy.empty() && !r.op.whole && r.at == stage::in_flight;
    const bool wait_sent = r.op.kind == rma_kind::accumulate && !r.has_completion && r.copy.empty() &&
                           r.at == stage::in_flight && r.sent < bytes;
    requests_.emplace(token, std::move(r));
    // A put without completion returns with its source reusable: wait for
    // one a transport still reads from, and for an accumulate's last
    // message to be sent.
    if (wait)
        while (requests_.count(token)) wait_progress_();
    if (wait_sent)
        for (auto it = requests_.find(token); it != requests_.end() && it->second.sent < bytes;
             it = requests_.find(token))
            wait_progress_();
    return CCS_OK;
}

void rma_engine::count_outstanding(uint16_t ctx, int target) {
    if (ctx >= outstanding_.size()) outstanding_.resize(ctx + 1u);
    auto &per_target = outstanding_[ctx];
    if (per_target.empty()) per_target.assign(route_.size(), 0);
    ++per_target[static_cast<size_t>(target)];
}

void rma_engine::keep_source(request &r) {
    if (!r.op.writes_remote() || r.has_completion || !r.copy.empty()) return;
    if (r.op.whole) {  // packed: the copy is the local side from now on
        rma_layouts &w = *r.op.whole;
        r.copy.resize(w.bytes());
        dd::copy_layouts(r.copy.data(), static_cast<int64_t>(r.copy.size()), ccs_datadesc_byte_, w.local,
                         w.local_count, w.local_dd);
        w.local = r.copy.data();
        w.local_count = static_cast<int64_t>(r.copy.size());
        w.local_dd = ccs_datadesc_byte_;
        return;
    }
    r.copy.resize(r.op.local.bytes());
    gather(r.op.local.data(), r.op.local.size(), r.copy.data());
    r.op.local = segment_list{};
    r.op.local.push(reinterpret_cast<uintptr_t>(r.copy.data()), r.copy.size());
}

void rma_engine::issue(request &r, const remote_key *known) {
    rma_operation &op = r.op;
    if (op.target == rank_) {  // this process: a copy
        if (op.kind == rma_kind::atomic && issued_network_atomic_here(r)) return;
        if (op.kind == rma_kind::atomic) {
            const uint64_t old = apply_atomic(op.atomic, reinterpret_cast<void *>(op.remote.data()[0].address));
            if (op.local.size() > 0) store_fetched(op.atomic, reinterpret_cast<void *>(op.local.data()[0].address), old);
        } else if (op.kind == rma_kind::accumulate) {
            return accumulate_here(r);
        } else if (op.kind == rma_kind::indexed_put) {
            return issue_indexed(r);
        } else if (op.writes_remote())
            copy_segments(op.remote.data(), op.remote.size(), op.local.data(), op.local.size());
        else copy_segments(op.local.data(), op.local.size(), op.remote.data(), op.remote.size());
        finish(r, CCS_OK);
        return;
    }
    if (!known) {
        known = keys_.find(r.key_id);
        if (!known)  // revoked while it waited
            return finish(r, CCS_ERR_NOT_REGISTERED, "the owner deregistered the memory before the operation started");
    }
    const remote_key &k = *known;
    // Checked again here: a request may wait (for a key, for room) while
    // the owner deregisters.
    if (k.ended()) return finish(r, CCS_ERR_INVALID_KEY, ended_message(k));
    if (op.kind == rma_kind::atomic) return k.network_atomics ? issue_network_atomic(r, k) : issue_atomic(r);
    if (op.kind == rma_kind::accumulate) return issue_accumulate(r);
    if (op.kind == rma_kind::indexed_put && k.network_atomics) return finish(r, indexed_on_network_atomics(), last_error());
    if (op.kind == rma_kind::indexed_put) return issue_indexed(r);
    if (op.whole) return issue_layouts(r);
    if (emulate(op.target, op.writes_remote())) return issue_emulated(r);
    if (!k.plugin_key) return issue_emulated(r);  // the owner's key has no part for this transport
    transport *t = route_[static_cast<size_t>(op.target)];
    // Local segments as the plugin's types: on the stack when few.
    constexpr size_t inline_segments = 8;
    const size_t n = op.local.size();
    ccs_plugin_status_t st;
    if (op.writes_remote()) {
        ccs_plugin_iov_v1_t few[inline_segments];
        std::vector<ccs_plugin_iov_v1_t> many(n > inline_segments ? n : 0);
        ccs_plugin_iov_v1_t *local = n > inline_segments ? many.data() : few;
        for (size_t i = 0; i < n; ++i)
            local[i] = {reinterpret_cast<const void *>(op.local.data()[i].address), op.local.data()[i].length};
        st = t->put(op.target, local, n, op.remote.data(), op.remote.size(), k.plugin_key, r.token);
    } else {
        ccs_plugin_buffer_v1_t few[inline_segments];
        std::vector<ccs_plugin_buffer_v1_t> many(n > inline_segments ? n : 0);
        ccs_plugin_buffer_v1_t *local = n > inline_segments ? many.data() : few;
        for (size_t i = 0; i < n; ++i)
            local[i] = {reinterpret_cast<void *>(op.local.data()[i].address), op.local.data()[i].length};
        st = t->get(op.target, local, n, op.remote.data(), op.remote.size(), k.plugin_key, r.token);
    }
    switch (st) {
    case CCS_PLUGIN_OK:
        ++stats_.native;
        return finish(r, CCS_OK);
    case CCS_PLUGIN_IN_PROGRESS:
        ++stats_.native;
        r.at = stage::in_flight;
        return;
    case CCS_PLUGIN_AGAIN:
        keep_source(r);
        r.at = stage::ready;
        retry_.push_back(r.token);
        return;
    case CCS_PLUGIN_ERR_UNSUPPORTED:
        refuse_native(op.target);
        // Info, not a warning: the plugin said why (a refused kernel warns
        // there; UCX lanes that only emulate RMA are expected over TCP).
        log_message(log_level::info, "plugin '" + t->name() + "' cannot " + (op.writes_remote() ? "put to" : "get from") +
                                         " rank " + std::to_string(op.target) +
                                         "; active messages carry RMA to it from now on");
        return issue_emulated(r);
    default:
        return finish(r, status_from_plugin(st), "plugin '" + t->name() + "' refused it: " + plugin_status_name(st));
    }
}

void rma_engine::finish(uint64_t token, ccs_status_t status, const std::string &reason) {
    auto it = requests_.find(token);
    if (it == requests_.end()) return;
    finish(it->second, status, reason);
    requests_.erase(it);
}

void rma_engine::finish(request &r, ccs_status_t status, const std::string &reason) {
    if (r.ctx < outstanding_.size() && !outstanding_[r.ctx].empty())
        --outstanding_[r.ctx][static_cast<size_t>(r.op.target)];
    if (status != CCS_OK) ++stats_.failed;
    // The data moved: the target's handler may run now (its context may
    // be gone, then there is nobody to tell).
    if (status == CCS_OK && r.op.after.wanted) {
        if (context *ctx = contexts_.by_id(r.ctx))
            status = am_.send(*ctx, r.op.target, r.op.after.handler, r.op.after.args.data(), r.op.after.nargs, nullptr,
                              0, nullptr);
    }
    if (r.has_completion) {
        std::string detail;
        if (status != CCS_OK)
            detail = describe(r.op) +
                     ": " + (reason.empty() ? ccs_strerror(status) : reason);
        completions_.push_back({r.completion, status, std::move(detail), r.ctx});
    }
    r.at = stage::done;
}

void rma_engine::rma_complete(uint64_t token, ccs_plugin_status_t status) {
    const std::string reason = std::string("the plugin reported ") + plugin_status_name(status);
    if (beside_operations::owns(token)) return finish_beside(token, status_from_plugin(status), reason);
    finish(token, status_from_plugin(status), reason);
}

void rma_engine::peer_failed(int peer) {
    keys_.peer_failed(peer);
    std::vector<uint64_t> doomed;
    for (const auto &[token, r] : requests_)
        if (r.op.target == peer) doomed.push_back(token);
    for (uint64_t token : doomed) finish(token, CCS_ERR_PEER_FAILED, am_.failure());
    for (uint64_t token : beside_operations::to(peer)) finish_beside(token, CCS_ERR_PEER_FAILED, am_.failure());
}

int rma_engine::progress() {
    int events = 0;
    if (!retry_.empty()) {
        std::deque<uint64_t> again;
        again.swap(retry_);
        for (uint64_t token : again) {
            auto it = requests_.find(token);
            if (it == requests_.end()) continue;
            issue(it->second);
            if (it->second.at == stage::done) requests_.erase(it);
            ++events;
        }
    }
    if (!completions_.empty()) {
        std::vector<pending_completion> batch;
        batch.swap(completions_);  // callbacks may issue more
        ++depth_;
        for (auto &c : batch) am_.complete_or_defer(std::move(c));
        --depth_;
        events += static_cast<int>(batch.size());
    }
    return events;
}

}  // namespace ccs
