// A process dies mid-job (SIGKILL, no finalize). Run with 3 processes under
// `ccsrun --keep-going`. The survivors must: receive everything it sent
// before dying, hear of the failure through their error handler within a
// bounded time, get CCS_ERR_PEER_FAILED for sends to it and for barriers
// instead of hanging (also when the other survivor stays out of one) (RMA to it too, through implicit keys and through
// explicit keys of memory the dead process shared with them), end a
// ccs_wait_until for a flag only it would set, and keep talking to each
// other. With CCS_PROGRESS_THREAD=1 the failure must be heard while the
// survivors compute, without a call.
#include "failure_job.hpp"

#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int victim = 1;
constexpr int last_words = 5;

struct state {
    int received_from_victim = 0;
    int received_from_survivor = 0;
    // Written by the progress thread, where there is one.
    std::atomic<int> failures_reported{0};
    std::atomic<int> failed_peer{-1};
    uint64_t windows[3] = {0, 0, 0};
    int windows_known = 0;
    // Everyone's ccs_mem_alloc block and its key (shm maps it here).
    uint64_t shared[3] = {0, 0, 0};
    ccs_rkey_t shared_keys[3] = {};
    int shared_known = 0;
} g;
uint64_t g_window[8];

void on_message(const ccs_am_message_t *m, void *) {
    if (m->source == victim) ++g.received_from_victim;
    else ++g.received_from_survivor;
}

void on_window(const ccs_am_message_t *m, void *) {
    g.windows[m->source] = m->args[0];
    ++g.windows_known;
}

void on_shared(const ccs_am_message_t *m, void *) {
    g.shared[m->source] = m->args[0];
    if (ccs_rkey_unpack(m->source, m->payload, m->payload_size, &g.shared_keys[m->source]) == CCS_OK) ++g.shared_known;
}

void on_error(ccs_context_t, ccs_status_t st, int peer, const char *, void *) {
    if (st != CCS_ERR_PEER_FAILED) return;
    ++g.failures_reported;
    g.failed_peer = peer;
}

template <typename Done>
bool progress_for(double seconds, Done done) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done() && std::chrono::steady_clock::now() < end) ccs_progress();
    return done();
}

}  // namespace

int main() {
    int rank = -1;
    if (!failure_job::start(rank)) return 1;
    const int size = 3;
    const ccs_am_handler_entry_t h[3] = {{1, on_message, nullptr}, {2, on_window, nullptr}, {3, on_shared, nullptr}};
    const ccs_context_params_t params{sizeof params, 0, "fault", h, 3};
    ccs_context_t ctx;
    CHECK(ccs_context_create(&params, &ctx) == CCS_OK);
    CHECK(ccs_context_set_error_handler(ctx, on_error, nullptr) == CCS_OK);
    // Everyone's registered window, reached with implicit keys later.
    ccs_mem_t mem{};
    CHECK(ccs_mem_register(g_window, sizeof g_window, &mem) == CCS_OK);
    g_window[0] = 1000 + static_cast<uint64_t>(rank);
    const uint64_t mine = reinterpret_cast<uintptr_t>(g_window);
    for (int t = 0; t < size; ++t) CHECK(ccs_am_send(ctx, t, 2, &mine, 1, nullptr, 0, nullptr) == CCS_OK);
    CHECK(progress_for(10, [] { return g.windows_known == 3; }));
    void *block = nullptr;
    ccs_mem_t block_mem{};
    CHECK(ccs_mem_alloc(64, &block, &block_mem) == CCS_OK);
    static_cast<uint64_t *>(block)[0] = 2000 + static_cast<uint64_t>(rank);
    uint8_t key[1024];
    size_t key_length = sizeof key;
    CHECK(ccs_rkey_pack(block_mem, key, &key_length) == CCS_OK);
    const uint64_t block_address = reinterpret_cast<uintptr_t>(block);
    for (int t = 0; t < size; ++t)
        if (t != rank) CHECK(ccs_am_send(ctx, t, 3, &block_address, 1, key, key_length, nullptr) == CCS_OK);
    CHECK(progress_for(10, [&] { return g.shared_known == size - 1; }));
    CHECK(ccs_barrier() == CCS_OK);

    if (rank == victim) {
        for (int i = 0; i < last_words; ++i) ccs_am_send(ctx, 0, 1, nullptr, 0, "bye", 3, nullptr);
        // A transport may still hold them inside this process (UCX over TCP
        // queues what the socket does not take at once); what had not left
        // dies with it. Give them time to leave: what is checked is that
        // what left before the death is drained, not lost with the peer.
        progress_for(0.5, [] { return false; });
        std::raise(SIGKILL);
    }
    const int other = rank == 0 ? 2 : 0;
    const auto t0 = std::chrono::steady_clock::now();
    const char *thread = std::getenv("CCS_PROGRESS_THREAD");
    if (thread && std::strcmp(thread, "1") == 0) {
        // Computing, no call: the progress thread hears of it and reports.
        volatile uint64_t sink = 0;
        while (g.failures_reported.load() == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
            for (int i = 0; i < 100000; ++i) sink = sink + static_cast<uint64_t>(i);
        CHECK(g.failures_reported.load() == 1);
    }
    // A wait for a flag that only the victim would set ends with its death.
    CHECK(ccs_wait_until(&g_window[7], CCS_UINT64, CCS_CMP_EQ, 77) == CCS_ERR_PEER_FAILED);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    CHECK(progress_for(10, [] { return g.failures_reported > 0; }));
    const double detect_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(g.failures_reported == 1);
    CHECK(g.failed_peer == victim);
    if (rank == 0) CHECK(progress_for(5, [] { return g.received_from_victim == last_words; }));
    CHECK(ccs_am_send(ctx, victim, 1, nullptr, 0, nullptr, 0, nullptr) == CCS_ERR_PEER_FAILED);
    CHECK(std::strstr(ccs_last_error(), "rank 1") != nullptr);
    CHECK(ccs_barrier() == CCS_ERR_PEER_FAILED);
    uint64_t word = 0;
    CHECK(ccs_get_sync(ctx, victim, &word, 8, g.windows[victim], CCS_RKEY_IMPLICIT) == CCS_ERR_PEER_FAILED);
    CHECK(ccs_fence(ctx, victim) == CCS_ERR_PEER_FAILED);
    // Its shared block may still be mapped here; a dead peer's memory is
    // not written or read all the same.
    CHECK(ccs_put(ctx, victim, &word, 8, g.shared[victim], g.shared_keys[victim], nullptr) == CCS_ERR_PEER_FAILED);
    CHECK(ccs_get(ctx, victim, &word, 8, g.shared[victim], g.shared_keys[victim], nullptr) == CCS_ERR_PEER_FAILED);
    void *direct = &word;  // nor offered for loads and stores
    CHECK(ccs_rkey_ptr(g.shared_keys[victim], g.shared[victim], 8, &direct) == CCS_ERR_UNSUPPORTED && direct == nullptr);
    // The survivors still talk to each other, messages and RMA alike.
    CHECK(ccs_get_sync(ctx, other, &word, 8, g.windows[other], CCS_RKEY_IMPLICIT) == CCS_OK);
    CHECK(word == 1000 + static_cast<uint64_t>(other));
    CHECK(ccs_get_sync(ctx, other, &word, 8, g.shared[other], g.shared_keys[other]) == CCS_OK);
    CHECK(word == 2000 + static_cast<uint64_t>(other));
    CHECK(ccs_am_send(ctx, other, 1, nullptr, 0, nullptr, 0, nullptr) == CCS_OK);
    CHECK(progress_for(10, [] { return g.received_from_survivor >= 1; }));
    uint64_t failed = 0;
    CHECK(ccs_stats_get("peers_failed", &failed) == CCS_OK && failed == 1);
    // A condition that holds is no failure, whoever died before.
    CHECK(ccs_wait_until(&g_window[0], CCS_UINT64, CCS_CMP_EQ, 1000 + static_cast<uint64_t>(rank)) == CCS_OK);
    // A survivor that does not join a barrier (rank 2 stays away for 4 s)
    // cannot hang the other in it: after a failure a round waits 2 s more.
    if (rank == 0) {
        const auto b0 = std::chrono::steady_clock::now();
        CHECK(ccs_barrier() == CCS_ERR_PEER_FAILED);
        CHECK(std::chrono::steady_clock::now() - b0 < std::chrono::milliseconds(3500));
    } else {
        progress_for(4, [] { return false; });
        CHECK(ccs_barrier() == CCS_ERR_PEER_FAILED);
    }
    // Finalize cannot complete its closing barrier, but returns.
    CHECK(ccs_finalize() == CCS_ERR_PEER_FAILED);
    std::printf("rank %d: failure of rank %d seen after %.2f s; %s\n", rank, victim, detect_s,
                failure_job::failures ? "SURVIVOR FAILED" : "survivor ok");
    std::fflush(stdout);  // said even if something at exit aborts later
    return failure_job::failures ? 1 : 0;
}
