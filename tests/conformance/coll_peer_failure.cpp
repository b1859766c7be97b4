// A process dies during collectives (SIGKILL). Run with 3 processes under
// `ccsrun --keep-going` (launchers/run_peer_failure.sh). The survivors
// must: end every collective that needs the dead process with
// CCS_ERR_PEER_FAILED within bounded time, blocking and nonblocking alike,
// also where it had taken part in the first rounds; and keep using a team
// of survivors made before the death.
#include "failure_job.hpp"

#include <ccs/coll.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <vector>

namespace {

constexpr int victim = 1;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
    int rank = -1;
    if (!failure_job::start(rank)) return 1;
    const int survivors_list[2] = {0, 2};
    ccs_team_t survivors{};
    CHECK(ccs_team_create(CCS_TEAM_WORLD, survivors_list, 2, &survivors) == CCS_OK);
    std::vector<double> big(1 << 16, 1.0), out(big.size());
    CHECK(ccs_team_allreduce(CCS_TEAM_WORLD, big.data(), out.data(), big.size(), CCS_ACC_DOUBLE, CCS_ACC_SUM,
                             nullptr) == CCS_OK);
    CHECK(out[0] == 3.0);

    // Everything sent so far leaves before the death (a transport may still
    // hold it inside the dying process).
    const auto settle = std::chrono::steady_clock::now();
    while (seconds_since(settle) < 0.5) ccs_progress();
    // Rank 0 broadcasts it (each member's bytes of it straight from rank 0's
    // buffer where cross-memory attach is used).
    std::vector<uint8_t> large(1 << 20, 0);
    if (rank == 0)
        for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<uint8_t>(i * 7 + 1);
    if (rank == victim) {
        // Starts a large allreduce and a large broadcast and dies in their
        // first rounds (having said where its buffers lie).
        ccs_counter_t c;
        ccs_counter_init(&c);
        const ccs_completion_t done{nullptr, nullptr, &c};
        ccs_team_allreduce(CCS_TEAM_WORLD, big.data(), out.data(), big.size(), CCS_ACC_DOUBLE, CCS_ACC_SUM, &done);
        ccs_team_broadcast(CCS_TEAM_WORLD, large.data(), large.size(), 0, &done);
        for (int i = 0; i < 3; ++i) ccs_progress();
        std::raise(SIGKILL);
    }
    const auto t0 = std::chrono::steady_clock::now();
    // A survivor that got all it needed from the victim's first rounds has
    // a whole result; every other ends with the failure.
    const ccs_status_t first = ccs_team_allreduce(CCS_TEAM_WORLD, big.data(), out.data(), big.size(), CCS_ACC_DOUBLE,
                                                  CCS_ACC_SUM, nullptr);
    CHECK(first == CCS_ERR_PEER_FAILED || (first == CCS_OK && out[0] == 3.0));
    const ccs_status_t second = ccs_team_broadcast(CCS_TEAM_WORLD, large.data(), large.size(), 0, nullptr);
    CHECK(second == CCS_ERR_PEER_FAILED || (second == CCS_OK && large[12345] == static_cast<uint8_t>(12345 * 7 + 1)));
    CHECK(seconds_since(t0) < 10);
    // Collectives started after the death, nonblocking, several at once.
    ccs_counter_t c;
    ccs_counter_init(&c);
    const ccs_completion_t done{nullptr, nullptr, &c};
    int64_t x = rank, sum = 0;
    std::vector<uint8_t> bytes(4096);
    CHECK(ccs_team_allreduce(CCS_TEAM_WORLD, &x, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, &done) == CCS_OK);
    CHECK(ccs_team_broadcast(CCS_TEAM_WORLD, bytes.data(), bytes.size(), victim, &done) == CCS_OK);
    CHECK(ccs_team_barrier(CCS_TEAM_WORLD, &done) == CCS_OK);
    CHECK(ccs_team_allgather(CCS_TEAM_WORLD, &x, 8, bytes.data(), &done) == CCS_OK);
    // (ccs_counter_wait returns at the failure; each collective ends by itself.)
    while (c.value < 4 && seconds_since(t0) < 15) ccs_progress();
    CHECK(c.value == 4 && c.errors == 4 && c.first_error == CCS_ERR_PEER_FAILED);
    CHECK(seconds_since(t0) < 15);
    // Making a team over the job needs everyone: it fails too.
    ccs_team_t t{};
    CHECK(ccs_team_split_strided(CCS_TEAM_WORLD, 0, 2, 2, &t) == CCS_ERR_PEER_FAILED);
    // The survivors' team goes on working.
    CHECK(ccs_team_allreduce(survivors, &x, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, nullptr) == CCS_OK);
    CHECK(sum == 2);
    CHECK(ccs_team_barrier(survivors, nullptr) == CCS_OK);
    CHECK(ccs_team_broadcast(survivors, bytes.data(), bytes.size(), 1, nullptr) == CCS_OK);
    CHECK(ccs_team_destroy(survivors) == CCS_OK);
    CHECK(ccs_finalize() == CCS_ERR_PEER_FAILED);
    std::printf("rank %d: collectives ended %.2f s after the death; %s\n", rank, seconds_since(t0),
                failure_job::failures ? "SURVIVOR FAILED" : "survivor ok");
    std::fflush(stdout);
    return failure_job::failures ? 1 : 0;
}
