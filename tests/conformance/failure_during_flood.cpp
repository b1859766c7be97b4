// A process dies (SIGKILL) while the others have large messages in flight
// to it. Run with 3 processes under `ccsrun --keep-going`. The survivors
// must see every send complete (delivered, or failed with the peer), and
// shut down cleanly: ccs_finalize prints nothing of the transport's own
// (run_peer_failure.sh checks the output), only CCS's report of the failure.
#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <csignal>
#include <cstdio>
#include <vector>

#include <unistd.h>

int main() {
    if (ccs_init(nullptr) != CCS_OK) return 1;
    int rank = 0;
    ccs_rank(&rank);
    const ccs_am_handler_entry_t h{1, [](const ccs_am_message_t *, void *) {}, nullptr};
    const ccs_context_params_t params{sizeof params, 0, "flood-then-die", &h, 1};
    ccs_context_t ctx{0};
    if (ccs_context_create(&params, &ctx) != CCS_OK || ccs_barrier() != CCS_OK) return 2;
    constexpr int victim = 1;
    if (rank == victim) {
        ::usleep(20000);  // the others are sending by now
        ::kill(::getpid(), SIGKILL);
    }
    std::vector<char> big(4 << 20, 'x');
    ccs_counter_t counter;
    ccs_counter_init(&counter);
    const ccs_completion_t done{nullptr, nullptr, &counter};
    uint64_t sent = 0;
    for (int i = 0; i < 200; ++i) {
        if (ccs_am_send(ctx, victim, 1, nullptr, 0, big.data(), big.size(), &done) == CCS_OK) ++sent;
        ccs_progress();
    }
    const ccs_status_t waited = ccs_counter_wait(&counter, sent);
    const bool ok = (waited == CCS_OK || waited == CCS_ERR_PEER_FAILED) && counter.value == sent;
    ccs_context_destroy(ctx);
    ccs_finalize();
    if (ok) std::printf("rank %d: survivor ok (%llu sends, %llu failed)\n", rank,
                        static_cast<unsigned long long>(sent), static_cast<unsigned long long>(counter.errors));
    return ok ? 0 : 3;
}
