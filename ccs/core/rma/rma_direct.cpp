// The RMA paths that need no request record: a contiguous piece the route
// transport finishes at once (or starts, then tracked), and datadesc
// operations into memory mapped here, copied layout to layout.
#include "core/rma/rma_engine.hpp"

#include "datadesc/layout_copy.hpp"
#include "util/completion.hpp"

namespace ccs {

bool rma_engine::try_direct(context &ctx, bool put, int target, void *local, size_t length, uint64_t remote,
                            ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (target == rank_ || length == 0 || emulate(target, put)) return false;
    const remote_key *found = direct_key(target, rkey, remote, length);
    if (!found) return false;
    const remote_key &k = *found;
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
    if (st == CCS_PLUGIN_OK) {
        complete_now(completion);
        return true;
    }
    const bool has_completion = wants_completion(completion);
    track_direct(ctx, put, target, local, length, remote, rkey, has_completion ? completion : nullptr, token);
    return true;
}

bool rma_engine::try_mapped_layouts(bool put, int target, uint8_t *local, int64_t local_count,
                                    const ccs_datadesc_s &local_dd, uint64_t remote, int64_t remote_count,
                                    const ccs_datadesc_s &remote_dd, ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (rkey.id == 0 || target == rank_ || emulate(target, put)) return false;
    const remote_key *k = keys_.find(rkey.id);
    if (!k || k->implicit || !k->mapped || k->owner != target || k->ended()) return false;
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
    complete_now(completion);
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
    r.op.kind = put ? rma_kind::put : rma_kind::get;
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

}  // namespace ccs
