// Puts, gets and network atomics beside the API lock at thread level
// multiple, through transports that take them from several threads:
// checked as the locked path's first tries check them, noted in the
// calling thread's table while the transport works, finished by whoever
// hears of the end first.
#include "core/rma/rma_engine.hpp"

#include "util/completion.hpp"

namespace ccs {
namespace {

// Starts the operation under a record of its own: `issue(token)` calls
// the transport. What finished or failed in the call is taken off the
// list again; a peer's failure may have finished it meanwhile, and then
// reported it.
template <typename Issue>
rma_engine::beside_result run_beside(uint16_t ctx, beside_operations::kind what, int target, ccs_counter_t *counter,
                                     uint64_t &token, Issue issue) noexcept {
    using result = rma_engine::beside_result;
    if (!beside_operations::start(ctx, what, target, counter, token)) return result::not_taken;
    const ccs_plugin_status_t st = issue(token);
    if (st == CCS_PLUGIN_IN_PROGRESS) return result::in_flight;
    const bool ours = beside_operations::finish(token);
    if (st != CCS_PLUGIN_OK) return ours ? result::not_taken : result::done;  // the locked path retries or reports
    if (ours && counter) counter_add(*counter);
    return result::done;
}

}  // namespace

rma_engine::beside_result rma_engine::try_direct_beside(uint16_t ctx, bool put, int target, void *local,
                                                        size_t length, uint64_t remote, ccs_rkey_t rkey,
                                                        const ccs_completion_t *completion,
                                                        fast_path::thread_counts &counts, uint64_t &token) noexcept {
    // Nothing is checked yet: a bad rank goes to the locked path, which says so.
    if (static_cast<size_t>(target) >= route_.size() || target == rank_ || length == 0 || !local ||
        (completion && completion->callback) || !rma_beside(target) || emulate(target, put))
        return beside_result::not_taken;
    const remote_key *k = direct_key(target, rkey, remote, length);
    if (!k) return beside_result::not_taken;  // the locked path says what is wrong, or goes another way
    transport *t = route_[static_cast<size_t>(target)];
    const beside_result r =
        run_beside(ctx, put ? beside_operations::kind::put : beside_operations::kind::get, target,
                   completion ? completion->counter : nullptr, token, [&](uint64_t op) {
            const ccs_plugin_remote_v1_t segment{remote, length};
            if (put) {
                const ccs_plugin_iov_v1_t from{local, length};
                return t->put(target, &from, 1, &segment, 1, k->plugin_key, op);
            }
            const ccs_plugin_buffer_v1_t to{local, length};
            return t->get(target, &to, 1, &segment, 1, k->plugin_key, op);
        });
    if (r != beside_result::not_taken) {
        fast_path::bump(put ? counts.puts : counts.gets);
        fast_path::bump(counts.bytes, length);
    }
    return r;
}

rma_engine::beside_result rma_engine::try_network_atomic_beside(uint16_t ctx, int target, const rma_atomic &a,
                                                                uint64_t remote, ccs_rkey_t rkey, void *fetched,
                                                                const ccs_completion_t *completion,
                                                                fast_path::thread_counts &counts,
                                                                uint64_t &token) noexcept {
    if (!atomics_beside_ || static_cast<size_t>(target) >= route_.size() || target == rank_ || rkey.id == 0 ||
        (completion && completion->callback))
        return beside_result::not_taken;
    const remote_key *k = keys_.find(rkey.id);
    if (!k || k->implicit || k->owner != target || !k->network_atomics || !k->atomic_t || !k->atomic_key ||
        !range_holds(k->base, k->length, remote, a.width) || k->ended())
        return beside_result::not_taken;
    transport *t = k->atomic_t;
    const beside_result r =
        run_beside(ctx, beside_operations::kind::atomic, target, completion ? completion->counter : nullptr, token,
                   [&](uint64_t op) {
            return t->atomic(target, a.op, a.width, remote, a.operand, a.compare, fetched, k->atomic_key, op);
        });
    if (r != beside_result::not_taken) {
        fast_path::bump(counts.atomics);
        fast_path::bump(counts.atomics_by_network);
    }
    return r;
}

void rma_engine::finish_beside(uint64_t token, ccs_status_t status, const std::string &reason) {
    beside_operations::finished f;
    if (!beside_operations::finish(token, &f)) return;  // already finished
    if (status == CCS_OK) {
        if (f.counter) counter_add(*f.counter);
        return;
    }
    ++stats_.failed;
    if (!f.counter) return;
    completions_.push_back({ccs_completion_t{nullptr, nullptr, f.counter}, status,
                            std::string(beside_operations::name(f.what)) + " at rank " + std::to_string(f.target) +
                                ": " + reason,
                            f.ctx});
}

}  // namespace ccs
