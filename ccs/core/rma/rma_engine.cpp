#include "rma/rma_engine.hpp"

#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/log.hpp"

#include <cstring>

namespace ccs {

rma_engine::rma_engine(context_table &contexts, am_engine &am, memory_registry &memory, std::vector<transport *> route,
                       int rank, bool force_emulation)
    : contexts_(contexts), am_(am), memory_(memory), route_(std::move(route)), rank_(rank),
      force_emulation_(force_emulation), native_refused_(route_.size(), false) {
    for (transport *t : route_)
        if (t) t->set_rma_sink(this);
}

uint64_t rma_engine::add_key(const remote_key &k) {
    const uint64_t id = next_key_++;
    keys_.emplace(id, k);
    return id;
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
    out = ccs_rkey_t{add_key(k)};
    return CCS_OK;
}

ccs_status_t rma_engine::release_key(ccs_rkey_t handle) {
    auto it = keys_.find(handle.id);
    if (it == keys_.end() || it->second.implicit)
        return fail(CCS_ERR_INVALID_KEY, "ccs_rkey_release: key " + std::to_string(handle.id) +
                                             " was never unpacked or is already released");
    if (it->second.t && it->second.plugin_key) it->second.t->rkey_release(it->second.plugin_key);
    keys_.erase(it);
    return CCS_OK;
}

uint64_t rma_engine::find_implicit(int owner, uint64_t addr, size_t length) {
    for (uint64_t id : implicit_[owner]) {
        const remote_key &k = keys_.at(id);
        if (addr - k.base <= k.length && length <= k.length - (addr - k.base)) return id;
    }
    return 0;
}

uint64_t rma_engine::outstanding(uint16_t ctx, int target) const {
    auto it = outstanding_.find(ctx);
    if (it == outstanding_.end()) return 0;
    if (target >= 0) return it->second[static_cast<size_t>(target)];
    uint64_t all = 0;
    for (uint64_t n : it->second) all += n;
    return all;
}

bool rma_engine::emulate(int target, bool put) const {
    const transport *t = route_[static_cast<size_t>(target)];
    return force_emulation_ || native_refused_[static_cast<size_t>(target)] || !t ||
           !(put ? t->native_put() : t->native_get());
}

ccs_status_t rma_engine::put(context &ctx, int target, const void *src, size_t length, uint64_t remote, ccs_rkey_t rkey,
                             const ccs_completion_t *completion) {
    request r;
    r.is_put = true;
    r.local = const_cast<uint8_t *>(static_cast<const uint8_t *>(src));  // read only
    r.length = length;
    r.remote = remote;
    r.target = target;
    ++stats_.puts;
    return start(ctx, std::move(r), rkey, completion);
}

ccs_status_t rma_engine::get(context &ctx, int target, void *dst, size_t length, uint64_t remote, ccs_rkey_t rkey,
                             const ccs_completion_t *completion) {
    request r;
    r.is_put = false;
    r.local = static_cast<uint8_t *>(dst);
    r.length = length;
    r.remote = remote;
    r.target = target;
    ++stats_.gets;
    return start(ctx, std::move(r), rkey, completion);
}

ccs_status_t rma_engine::start(context &ctx, request &&r, ccs_rkey_t handle, const ccs_completion_t *completion) {
    r.ctx = ctx.id();
    r.has_completion = wants_completion(completion);
    if (r.has_completion) r.completion = *completion;
    if (handle.id != 0) {
        auto it = keys_.find(handle.id);
        if (it == keys_.end() || it->second.implicit)
            return fail(CCS_ERR_INVALID_KEY, "key " + std::to_string(handle.id) + " was never unpacked or is released");
        const remote_key &k = it->second;
        if (k.owner != r.target)
            return fail(CCS_ERR_INVALID_KEY, "the key belongs to rank " + std::to_string(k.owner) +
                                                 ", the operation targets rank " + std::to_string(r.target));
        if (r.remote - k.base > k.length || r.length > k.length - (r.remote - k.base))
            return fail(CCS_ERR_OUT_OF_RANGE, "[" + std::to_string(r.remote) + ", +" + std::to_string(r.length) +
                                                  ") is outside the key's region [" + std::to_string(k.base) + ", +" +
                                                  std::to_string(k.length) + ")");
        r.key_id = handle.id;
    } else if (r.target == rank_ && r.length > 0 && !memory_.covering(r.remote, r.length) && !memory_.expose_all) {
        return fail(CCS_ERR_NOT_REGISTERED, "implicit key: [" + std::to_string(r.remote) + ", +" +
                                                std::to_string(r.length) + ") is not registered here");
    } else if (r.target != rank_ && r.length > 0) {
        if ((r.key_id = find_implicit(r.target, r.remote, r.length)) != 0) {
            ++stats_.key_cache_hits;
        } else {
            r.at = stage::waiting_key;
        }
    }
    r.token = next_token_++;
    if (r.length == 0) {  // nothing to move: complete in progress, count nothing
        if (r.has_completion) completions_.push_back({r.completion, CCS_OK});
        return CCS_OK;
    }
    auto &per_target = outstanding_[r.ctx];
    if (per_target.empty()) per_target.assign(route_.size(), 0);
    ++per_target[static_cast<size_t>(r.target)];
    stats_.bytes += r.length;
    request &placed = requests_.emplace(r.token, std::move(r)).first->second;
    if (placed.at == stage::waiting_key) {
        // The source must outlive the call when the caller asked for nothing.
        if (placed.is_put && !placed.has_completion) {
            placed.copy.assign(placed.local, placed.local + placed.length);
            placed.local = placed.copy.data();
        }
        ++stats_.key_requests;
        const uint64_t args[3] = {placed.token, placed.remote, placed.length};
        context &internal = *contexts_.by_id(context_table::internal_id);
        const uint64_t token = placed.token;
        const ccs_status_t st = am_.send(internal, placed.target, static_cast<uint16_t>(first_handler_ + 3), args, 3,
                                         nullptr, 0, nullptr);
        if (st != CCS_OK) finish(token, st);
        return CCS_OK;
    }
    const uint64_t token = placed.token;
    issue(placed);
    // A put without completion returns with its source reusable: wait for
    // one a transport still reads from.
    auto it = requests_.find(token);
    if (it != requests_.end() && it->second.is_put && !it->second.has_completion && it->second.copy.empty() &&
        it->second.at == stage::in_flight) {
        while (requests_.count(token)) wait_progress_();
    }
    return CCS_OK;
}

void rma_engine::issue(request &r) {
    if (r.target == rank_) {  // this process: a copy
        if (r.is_put) std::memmove(reinterpret_cast<void *>(r.remote), r.local, r.length);
        else std::memmove(r.local, reinterpret_cast<const void *>(r.remote), r.length);
        finish(r, CCS_OK);
        return;
    }
    if (emulate(r.target, r.is_put)) return issue_emulated(r);
    const remote_key &k = keys_.at(r.key_id);
    if (!k.plugin_key) return issue_emulated(r);  // the owner's key has no part for this transport
    transport *t = route_[static_cast<size_t>(r.target)];
    const ccs_plugin_remote_v1_t remote{r.remote, r.length};
    ccs_plugin_status_t st;
    if (r.is_put) {
        const ccs_plugin_iov_v1_t local{r.local, r.length};
        st = t->put(r.target, &local, 1, &remote, 1, k.plugin_key, r.token);
    } else {
        const ccs_plugin_buffer_v1_t local{r.local, r.length};
        st = t->get(r.target, &local, 1, &remote, 1, k.plugin_key, r.token);
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
        if (r.is_put && !r.has_completion && r.copy.empty()) {
            r.copy.assign(r.local, r.local + r.length);
            r.local = r.copy.data();
        }
        r.at = stage::ready;
        retry_.push_back(r.token);
        return;
    case CCS_PLUGIN_ERR_UNSUPPORTED:
        native_refused_[static_cast<size_t>(r.target)] = true;
        log_message(log_level::warn, "plugin '" + t->name() + "' cannot " + (r.is_put ? "put to" : "get from") +
                                         " rank " + std::to_string(r.target) +
                                         "; active messages carry RMA to it from now on");
        return issue_emulated(r);
    default:
        return finish(r, status_from_plugin(st));
    }
}

void rma_engine::finish(uint64_t token, ccs_status_t status) {
    auto it = requests_.find(token);
    if (it != requests_.end()) finish(it->second, status);
}

void rma_engine::finish(request &r, ccs_status_t status) {
    auto per_target = outstanding_.find(r.ctx);
    if (per_target != outstanding_.end()) --per_target->second[static_cast<size_t>(r.target)];
    if (status != CCS_OK) ++stats_.failed;
    if (r.has_completion) completions_.push_back({r.completion, status});
    requests_.erase(r.token);
}

void rma_engine::rma_complete(uint64_t token, ccs_plugin_status_t status) {
    finish(token, status_from_plugin(status));
}

void rma_engine::peer_failed(int peer) {
    std::vector<uint64_t> doomed;
    for (const auto &[token, r] : requests_)
        if (r.target == peer) doomed.push_back(token);
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
