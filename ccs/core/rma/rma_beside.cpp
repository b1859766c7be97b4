// Puts and gets beside the API lock at thread level multiple, through
// transports that take them from several threads: checked as try_direct
// checks them, noted in the calling thread's table while the transport
// works, finished by whoever hears of the end first.
#include "core/rma/rma_engine.hpp"

#include "util/completion.hpp"

namespace ccs {

rma_engine::beside_result rma_engine::try_direct_beside(uint16_t ctx, bool put, int target, void *local,
                                                        size_t length, uint64_t remote, ccs_rkey_t rkey,
                                                        const ccs_completion_t *completion,
                                                        fast_path::thread_counts &counts, uint64_t &token) noexcept {
    // Nothing is checked yet: a bad rank goes to the locked path, which says so.
    if (static_cast<size_t>(target) >= route_.size() || target == rank_ || rkey.id == 0 || length == 0 || !local ||
        (completion && completion->callback) || !rma_beside(target) || emulate(target, put))
        return beside_result::not_taken;
    const remote_key *k = keys_.find(rkey.id);
    if (!k || k->implicit || k->owner != target || !k->plugin_key || !range_holds(k->base, k->length, remote, length) ||
        k->ended())
        return beside_result::not_taken;  // the locked path says what is wrong, or goes another way
    ccs_counter_t *counter = completion ? completion->counter : nullptr;
    if (!beside_operations::start(ctx, put, target, counter, token)) return beside_result::not_taken;
    transport *t = route_[static_cast<size_t>(target)];
    const ccs_plugin_remote_v1_t segment{remote, length};
    ccs_plugin_status_t st;
    if (put) {
        const ccs_plugin_iov_v1_t from{local, length};
        st = t->put(target, &from, 1, &segment, 1, k->plugin_key, token);
    } else {
        const ccs_plugin_buffer_v1_t to{local, length};
        st = t->get(target, &to, 1, &segment, 1, k->plugin_key, token);
    }
    if (st != CCS_PLUGIN_IN_PROGRESS) {
        // Finished or refused in the call; a peer's failure may have
        // finished it meanwhile, and then reported it.
        const bool ours = beside_operations::finish(token);
        if (st != CCS_PLUGIN_OK) return ours ? beside_result::not_taken : beside_result::done;
        if (ours && counter) counter_add(*counter);
    }
    fast_path::bump(put ? counts.puts : counts.gets);
    fast_path::bump(counts.bytes, length);
    return st == CCS_PLUGIN_IN_PROGRESS ? beside_result::in_flight : beside_result::done;
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
    const std::string what = f.put ? "put to rank " : "get from rank ";
    completions_.push_back({ccs_completion_t{nullptr, nullptr, f.counter}, status,
                            what + std::to_string(f.target) + ": " + reason, f.ctx});
}

}  // namespace ccs
