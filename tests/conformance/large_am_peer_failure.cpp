// A process dies while large messages to and from it are undecided. Run
// with 3 processes under `ccsrun --keep-going` (launchers/run_peer_failure.sh).
// Rank 1 sends a large message to each survivor, whose header handlers
// defer it, and dies once both have it. The survivors then accept it: the
// transfer ends with CCS_ERR_PEER_FAILED (from the accept, or in the data
// completion), never a hang; their own large messages to rank 1 complete
// with CCS_ERR_PEER_FAILED; a large message between the survivors, deferred
// the same way, still arrives whole.
#include "failure_job.hpp"

#include <ccs/am_large.h>
#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int victim = 1;
constexpr uint16_t header_id = 1, have_it = 2;
constexpr size_t payload = size_t{4} << 20;

struct state {
    ccs_am_token_t token[3] = {};
    int headers = 0;
    int told = 0;  // the victim: survivors that have its message
} g;

void on_header(const ccs_am_header_t *h, void *) {
    g.token[h->source] = h->token;
    ++g.headers;
    if (h->source == victim) ccs_am_send(h->context, victim, have_it, nullptr, 0, nullptr, 0, nullptr);
}
void on_have_it(const ccs_am_message_t *, void *) { ++g.told; }

template <typename Done>
bool progress_until(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done())
        if (ccs_progress() != CCS_OK || std::chrono::steady_clock::now() > deadline) return false;
    return true;
}

}  // namespace

int main() {
    int rank = 0;
    if (!failure_job::start(rank)) return 1;
    const ccs_am_handler_entry_t handlers[] = {{have_it, on_have_it, nullptr}};
    const ccs_context_params_t params{sizeof params, 0, "large-failure", handlers, 1};
    ccs_context_t ctx{};
    CHECK(ccs_context_create(&params, &ctx) == CCS_OK);
    CHECK(ccs_am_header_handler_register(ctx, header_id, on_header, nullptr) == CCS_OK);
    ccs_context_set_error_handler(ctx, [](ccs_context_t, ccs_status_t, int, const char *, void *) {}, nullptr);
    CHECK(ccs_barrier() == CCS_OK);
    std::vector<uint8_t> out(payload, static_cast<uint8_t>(rank + 1));
    ccs_counter_t sent;
    ccs_counter_init(&sent);
    const ccs_completion_t done{nullptr, nullptr, &sent};
    if (rank == victim) {
        for (int to : {0, 2}) ccs_am_send_large(ctx, to, header_id, nullptr, 0, out.data(), out.size(), &done);
        progress_until([] { return g.told == 2; });
        std::raise(SIGKILL);
    }
    const int other = 2 - rank;  // the other survivor
    CHECK(ccs_am_send_large(ctx, other, header_id, nullptr, 0, out.data(), out.size(), &done) == CCS_OK);
    CHECK(ccs_am_send_large(ctx, victim, header_id, nullptr, 0, out.data(), out.size(), &done) == CCS_OK);
    CHECK(progress_until([] { return g.headers >= 2; }));
    // The victim dies meanwhile; no progress here, so this process may not
    // know yet when it accepts.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::vector<uint8_t> from_victim(payload), from_other(payload);
    ccs_counter_t got;
    ccs_counter_init(&got);
    const ccs_completion_t arrived{nullptr, nullptr, &got};
    const ccs_status_t accepted = ccs_am_accept(g.token[victim], from_victim.data(), payload, &arrived);
    CHECK(accepted == CCS_OK || accepted == CCS_ERR_PEER_FAILED);
    if (accepted == CCS_OK) {
        CHECK(progress_until([&] { return got.value >= 1; }));
        CHECK(got.errors == 1 && got.first_error == CCS_ERR_PEER_FAILED);
        if (got.first_error != CCS_ERR_PEER_FAILED) std::printf("data completion: %s\n", ccs_strerror(got.first_error));
    }
    // The other survivor's message is whole.
    ccs_counter_t whole;
    ccs_counter_init(&whole);
    const ccs_completion_t whole_done{nullptr, nullptr, &whole};
    CHECK(ccs_am_accept(g.token[other], from_other.data(), payload, &whole_done) == CCS_OK);
    CHECK(progress_until([&] { return whole.value >= 1 && sent.value >= 2; }));
    CHECK(whole.errors == 0);
    bool same = true;
    for (uint8_t b : from_other) same = same && b == static_cast<uint8_t>(other + 1);
    CHECK(same);
    // Of this process's two messages, the one to the victim failed.
    CHECK(sent.errors == 1 && sent.first_error == CCS_ERR_PEER_FAILED);
    if (failure_job::failures == 0) std::printf("survivor ok\n");
    std::fflush(stdout);
    ccs_context_destroy(ctx);
    ccs_finalize();
    return failure_job::failures == 0 ? 0 : 1;
}
