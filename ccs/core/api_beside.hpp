// One-sided calls at thread level multiple that go beside the API lock
// through a transport taking them from several threads (rma_engine's
// try_direct_beside, try_network_atomic_beside), and the waits the C
// calls around them share: a put's source, a _sync call's end.
#pragma once

#include "api_guard.hpp"
#include "util/fast_path.hpp"

namespace ccs {

// Waits, under the lock, until the operation under `token` that went
// beside it is no longer in flight.
void wait_beside(uint64_t token) noexcept;
// A _sync call's private counter, waited for under the lock: how the
// operation ended, a failure with the call's name and its own detail.
ccs_status_t wait_done(const char *call, ccs_counter_t &done) noexcept;

// `start(rma, ctx_id, remote, rkey, completion, counts, token)` tries the
// engine's way beside the lock, the symmetric address resolved. `sync`:
// the name of a _sync call, which returns once the operation is complete;
// `put`: a put, whose source must be reusable on return. True when done,
// its end in `status`; false: nothing was done (the locked path then).
template <typename Start>
bool done_through_transport(const char *sync, bool put, ccs_context_t handle, int target, uint64_t remote,
                            ccs_rkey_t rkey, const ccs_completion_t *completion, ccs_status_t &status,
                            Start start) noexcept {
    // A handler may not wait: the locked path refuses it.
    if (sync && api_lock::held()) return false;
    ccs_counter_t done{0, 0, CCS_OK};
    const ccs_completion_t until_done{nullptr, nullptr, &done};
    if (sync) completion = &until_done;
    uint64_t token = 0;
    rma_engine::beside_result r;
    {
        const fast_path::section inside;
        runtime *rt = runtime::current();
        const context *ctx = rt && inside.entered() ? rt->contexts().by_handle(handle) : nullptr;
        if (!ctx || !resolved_quietly(*rt, target, remote, rkey)) return false;
        r = start(rt->rma(), ctx->id(), remote, rkey, completion, inside.counts(), token);
        if (r == rma_engine::beside_result::not_taken) return false;
        rt->note_activity_beside();
    }
    status = CCS_OK;
    // A peer's failure may have finished it with an error that progress
    // reports: a sync call waits for the counter whenever it has not moved.
    if (sync && __atomic_load_n(&done.value, __ATOMIC_ACQUIRE) == 0) status = wait_done(sync, done);
    else if (r == rma_engine::beside_result::in_flight && put && !(completion && completion->counter))
        wait_beside(token);
    return true;
}

}  // namespace ccs
