#include "core/rma/rma_engine.hpp"

#include "datadesc/layout_copy.hpp"
#include "core/rma/segments.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/log.hpp"
#include "util/range.hpp"

#include <ccs/datadesc.h>

#include <algorithm>
#include <cstring>

namespace ccs {
namespace {

// "[address, +length)". Built by appending: GCC 12 at -O3 reports a false
// -Wrestrict overlap for "[" + std::string (its bug 105329).
std::string describe_range(uint64_t address, uint64_t length) {
    std::string out("[");
    out += std::to_string(address);
    out += ", +";
    out += std::to_string(length);
    out += ")";
    return out;
}

// The refusals of a key handle, shared by the calls that take one.
// `call`: "ccs_rkey_ptr: " and the like, or "" where the caller adds it.
[[gnu::cold]] ccs_status_t unknown_key(const char *call, uint64_t id) {
    return fail(CCS_ERR_INVALID_KEY,
                call + ("key " + std::to_string(id) + " was never unpacked or is already released"));
}
[[gnu::cold]] ccs_status_t outside_key(const char *call, uint64_t address, uint64_t length, uint64_t base,
                                       uint64_t key_length) {
    return fail(CCS_ERR_OUT_OF_RANGE, call + describe_range(address, length) + " is outside the key's region " +
                                          describe_range(base, key_length));
}

}  // namespace

layout_fit place_layout(const ccs_datadesc_s &dd, int64_t count, uint64_t address, uint64_t &first, uint64_t &span) {
    int64_t lo = 0, hi = 0, width = 0;
    if (!dd::footprint(dd, count, lo, hi) || __builtin_sub_overflow(hi, lo, &width)) return layout_fit::too_wide;
    first = address + static_cast<uint64_t>(lo);
    span = static_cast<uint64_t>(width);
    return (lo < 0) == (first < address) && first <= UINT64_MAX - span ? layout_fit::fits : layout_fit::outside;
}

rma_engine::rma_engine(context_table &contexts, am_engine &am, memory_registry &memory, std::vector<transport *> route,
                       int rank, bool force_emulation, size_t layout_piece)
    : contexts_(contexts), am_(am), memory_(memory), route_(std::move(route)), rank_(rank),
      native_(route_.size(), 0), layout_piece_(layout_piece) {
    for (size_t peer = 0; peer < route_.size(); ++peer) {
        transport *t = route_[peer];
        if (!t) continue;
        t->set_rma_sink(this);
        if (!force_emulation)
            native_[peer] = static_cast<uint8_t>((t->native_put() ? native_put_bit : 0) | (t->native_get() ? native_get_bit : 0));
    }
}

rma_engine::~rma_engine() {
    memory_.on_revoke = nullptr;
    keys_.for_each([](uint64_t, remote_key &k) {
        if (k.t && k.plugin_key) k.t->rkey_release(k.plugin_key);
    });
}

uint64_t rma_engine::add_key(const remote_key &k) {
    return keys_.insert(k);
}

ccs_status_t key_from_contents(const key_contents &c, int owner, int rank, transport *route, void *&plugin_key) {
    plugin_key = nullptr;
    if (c.owner != owner)
        return fail(CCS_ERR_INVALID_KEY, "key was packed by rank " + std::to_string(c.owner) + ", not by rank " +
                                             std::to_string(owner));
    if (owner == rank || !route || c.length == 0) return CCS_OK;
    for (const auto &[name, part] : c.transports) {
        if (name != route->name()) continue;
        const ccs_plugin_status_t st = route->rkey_unpack(owner, part.data(), part.size(), &plugin_key);
        if (st != CCS_PLUGIN_OK)
            return fail(CCS_ERR_INVALID_KEY, "plugin '" + name + "' refused the key: " + plugin_status_name(st));
    }
    return CCS_OK;  // no part for this transport: active messages will carry it
}

ccs_status_t rma_engine::unpack_key(int owner, const void *buffer, size_t length, ccs_rkey_t &out) {
    key_contents c;
    if (!ccs::unpack_key(buffer, length, c))
        return fail(CCS_ERR_INVALID_KEY, "ccs_rkey_unpack: the " + std::to_string(length) + " bytes are not a CCS key");
    remote_key k;
    k.owner = owner;
    k.base = c.base;
    k.length = c.length;
    k.t = owner == rank_ ? nullptr : route_[static_cast<size_t>(owner)];
    const ccs_status_t st = key_from_contents(c, owner, rank_, k.t, k.plugin_key);
    if (st != CCS_OK) return st;
    if (k.t && k.plugin_key && k.length > 0 && !am_.peer_has_failed(owner))
        k.mapped = static_cast<uint8_t *>(k.t->rkey_ptr(k.plugin_key, k.base, static_cast<size_t>(k.length)));
    out = ccs_rkey_t{add_key(k)};
    return CCS_OK;
}

ccs_status_t rma_engine::release_key(ccs_rkey_t handle) {
    remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key("ccs_rkey_release: ", handle.id);
    if (k->t && k->plugin_key) k->t->rkey_release(k->plugin_key);
    keys_.erase(handle.id);
    return CCS_OK;
}

ccs_status_t rma_engine::mapped_address(ccs_rkey_t handle, uint64_t remote, size_t length, void *&out) {
    out = nullptr;
    const remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key("ccs_rkey_ptr: ", handle.id);
    if (!range_holds(k->base, k->length, remote, length))
        return outside_key("ccs_rkey_ptr: ", remote, length, k->base, k->length);
    // The caller's own memory is where it is; a peer's `mapped` is cleared
    // when the peer fails, so a dead peer's memory is not offered.
    if (k->owner == rank_) out = reinterpret_cast<void *>(static_cast<uintptr_t>(remote));
    else if (k->mapped) out = k->mapped + (remote - k->base);
    return CCS_OK;
}

uint64_t rma_engine::find_implicit(int owner, uint64_t addr, size_t length) {
    for (uint64_t id : implicit_[owner]) {
        const remote_key &k = *keys_.find(id);
        if (range_holds(k.base, k.length, addr, length)) return id;
    }
    return 0;
}

uint64_t rma_engine::outstanding(uint16_t ctx, int target) const {
    if (ctx >= outstanding_.size() || outstanding_[ctx].empty()) return 0;
    const std::vector<uint64_t> &per_target = outstanding_[ctx];
    if (target >= 0) return per_target[static_cast<size_t>(target)];
    uint64_t all = 0;
    for (uint64_t n : per_target) all += n;
    return all;
}

void rma_engine::refuse_native(int target) { native_[static_cast<size_t>(target)] = 0; }

void rma_engine::segment_list::push(uint64_t address, size_t length) {
    if (length == 0) return;
    bytes_ += length;
    ccs_plugin_remote_v1_t *last = count_ == 0 ? nullptr : count_ == 1 ? &one_ : &more_.back();
    if (last && last->address + last->length == address) {
        last->length += length;
        return;
    }
    if (count_ == 0) {
        one_ = {address, length};
    } else {
        if (count_ == 1) more_.push_back(one_);
        more_.push_back({address, length});
    }
    ++count_;
}

ccs_status_t rma_engine::submit(context &ctx, operation &&op, ccs_rkey_t handle, const ccs_completion_t *completion) {
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
        const layouts &w = *r.op.whole;
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
        if ((r.key_id = find_implicit(target, r.lo, r.hi - r.lo)) != 0) ++stats_.key_cache_hits;
        else r.at = stage::waiting_key;
    }
    r.token = next_token_++;
    ++(r.op.is_put ? stats_.puts : stats_.gets);  // counted once accepted
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
    const bool wait = r.op.is_put && !r.has_completion && r.copy.empty() && !r.op.whole && r.at == stage::in_flight;
    requests_.emplace(token, std::move(r));
    // A put without completion returns with its source reusable: wait for
    // one a transport still reads from.
    if (wait)
        while (requests_.count(token)) wait_progress_();
    return CCS_OK;
}

void rma_engine::count_outstanding(uint16_t ctx, int target) {
    if (ctx >= outstanding_.size()) outstanding_.resize(ctx + 1u);
    auto &per_target = outstanding_[ctx];
    if (per_target.empty()) per_target.assign(route_.size(), 0);
    ++per_target[static_cast<size_t>(target)];
}

bool rma_engine::try_direct(context &ctx, bool put, int target, void *local, size_t length, uint64_t remote,
                            ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (rkey.id == 0 || target == rank_ || length == 0 || emulate(target, put)) return false;
    const remote_key *found = keys_.find(rkey.id);
    if (!found) return false;
    const remote_key &k = *found;
    if (k.implicit || k.owner != target || !k.plugin_key || !range_holds(k.base, k.length, remote, length))
        return false;
    const uint64_t token = next_token_;
    ccs_plugin_status_t st = CCS_PLUGIN_OK;
    if (k.mapped && length < mapped_copy_limit) {  // loads and stores, no plugin call
        copy_mapped(put, k, local, length, remote);
    } else {
        transport *t = route_[static_cast<size_t>(target)];
        const ccs_plugin_remote_v1_t segment{remote, length};
        if (put) {
            const ccs_plugin_iov_v1_t from{local, length};
            st = t->put(target, &from, 1, &segment, 1, k.plugin_key, token);
        } else {
            const ccs_plugin_buffer_v1_t to{local, length};
            st = t->get(target, &to, 1, &segment, 1, k.plugin_key, token);
        }
        if (st != CCS_PLUGIN_OK && st != CCS_PLUGIN_IN_PROGRESS) return false;  // the general path retries or reports
        ++next_token_;
    }
    count_direct(put, length);
    const bool has_completion = wants_completion(completion);
    if (st == CCS_PLUGIN_OK) {
        // A counter alone moves at once; a callback waits for progress.
        if (has_completion && !completion->callback) ++completion->counter->value;
        else if (has_completion) completions_.push_back({*completion, CCS_OK});
        return true;
    }
    track_direct(ctx, put, target, local, length, remote, rkey, has_completion ? completion : nullptr, token);
    return true;
}

bool rma_engine::try_mapped_layouts(bool put, int target, uint8_t *local, int64_t local_count,
                                    const ccs_datadesc_s &local_dd, uint64_t remote, int64_t remote_count,
                                    const ccs_datadesc_s &remote_dd, ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (rkey.id == 0 || target == rank_ || emulate(target, put)) return false;
    const remote_key *k = keys_.find(rkey.id);
    if (!k || k->implicit || !k->mapped || k->owner != target) return false;
    // Every byte the remote layout touches must lie in the key's region;
    // where not, the general path says which piece does not.
    uint64_t first = 0, span = 0;
    if (place_layout(remote_dd, remote_count, remote, first, span) != layout_fit::fits || span == 0 ||
        !range_holds(k->base, k->length, first, span))
        return false;
    // Where `remote` is mapped, as an integer: with a negative lower bound
    // the layout's origin itself may lie before the region.
    auto *at = reinterpret_cast<uint8_t *>(reinterpret_cast<uintptr_t>(k->mapped) + (remote - k->base));
    if (put) {
        dd::copy_layouts(at, remote_count, remote_dd, local, local_count, local_dd);
        release_fence();  // visible before the completion is
    } else {
        acquire_fence();
        dd::copy_layouts(local, local_count, local_dd, at, remote_count, remote_dd);
    }
    count_direct(put, static_cast<size_t>(remote_count * remote_dd.size));
    if (wants_completion(completion)) {
        // A counter alone moves at once; a callback waits for progress.
        if (!completion->callback) ++completion->counter->value;
        else completions_.push_back({*completion, CCS_OK});
    }
    return true;
}

// Out of line: building a request needs a large stack frame, which the
// fast path above should not pay for.
void rma_engine::track_direct(context &ctx, bool put, int target, void *local, size_t length, uint64_t remote,
                              ccs_rkey_t rkey, const ccs_completion_t *completion, uint64_t token) {
    const bool has_completion = completion != nullptr;
    request r;
    r.token = token;
    r.ctx = ctx.id();
    r.op.is_put = put;
    r.op.target = target;
    r.op.local.push(reinterpret_cast<uintptr_t>(local), length);
    r.op.remote.push(remote, length);
    r.key_id = rkey.id;
    r.has_completion = has_completion;
    if (has_completion) r.completion = *completion;
    r.at = stage::in_flight;
    count_outstanding(r.ctx, target);
    requests_.emplace(token, std::move(r));
    if (put && !has_completion)  // the source must be reusable on return
        while (requests_.count(token)) wait_progress_();
}

void rma_engine::keep_source(request &r) {
    if (!r.op.is_put || r.has_completion || !r.copy.empty()) return;
    if (r.op.whole) {  // packed: the copy is the local side from now on
        layouts &w = *r.op.whole;
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
    operation &op = r.op;
    if (op.target == rank_) {  // this process: a copy
        if (op.is_put) copy_segments(op.remote.data(), op.remote.size(), op.local.data(), op.local.size());
        else copy_segments(op.local.data(), op.local.size(), op.remote.data(), op.remote.size());
        finish(r, CCS_OK);
        return;
    }
    if (!known) {
        known = keys_.find(r.key_id);
        if (!known) return finish(r, CCS_ERR_NOT_REGISTERED);  // revoked while it waited
    }
    if (op.whole) return issue_layouts(r);
    if (emulate(op.target, op.is_put)) return issue_emulated(r);
    const remote_key &k = *known;
    if (!k.plugin_key) return issue_emulated(r);  // the owner's key has no part for this transport
    transport *t = route_[static_cast<size_t>(op.target)];
    // Local segments as the plugin's types: on the stack when few.
    constexpr size_t inline_segments = 8;
    const size_t n = op.local.size();
    ccs_plugin_status_t st;
    if (op.is_put) {
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
        log_message(log_level::info, "plugin '" + t->name() + "' cannot " + (op.is_put ? "put to" : "get from") +
                                         " rank " + std::to_string(op.target) +
                                         "; active messages carry RMA to it from now on");
        return issue_emulated(r);
    default:
        return finish(r, status_from_plugin(st));
    }
}

void rma_engine::finish(uint64_t token, ccs_status_t status) {
    auto it = requests_.find(token);
    if (it == requests_.end()) return;
    finish(it->second, status);
    requests_.erase(it);
}

void rma_engine::finish(request &r, ccs_status_t status) {
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
    if (r.has_completion) completions_.push_back({r.completion, status});
    r.at = stage::done;
}

void rma_engine::rma_complete(uint64_t token, ccs_plugin_status_t status) {
    finish(token, status_from_plugin(status));
}

void rma_engine::peer_failed(int peer) {
    keys_.for_each([&](uint64_t, remote_key &k) {
        if (k.owner == peer) k.mapped = nullptr;  // its memory is no longer ours to touch
    });
    std::vector<uint64_t> doomed;
    for (const auto &[token, r] : requests_)
        if (r.op.target == peer) doomed.push_back(token);
    for (uint64_t token : doomed) finish(token, CCS_ERR_PEER_FAILED);
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
        for (const auto &c : batch) complete(c.completion, c.status);
        --depth_;
        events += static_cast<int>(batch.size());
    }
    return events;
}

}  // namespace ccs
