// CPU time of a process that waits: rank 0 sleeps for a while (it
// computes, or is late), the others wait for it in ccs_barrier, then in
// ccs_wait_until for a flag rank 0 puts, and print the CPU time they used
// against the wall time of each wait.
//   ccsrun -n <N> build/bin/ccs_perf_idle_wait [seconds]
#include "must.hpp"

#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

namespace {

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char **argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
    must(ccs_init(nullptr), "ccs_init");
    int rank = 0, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    ccs_context_t ctx{};
    must(ccs_context_create(nullptr, &ctx), "ccs_context_create");
    uint64_t *flag = nullptr;
    ccs_mem_t mem{};
    must(ccs_mem_alloc_symmetric(sizeof *flag, reinterpret_cast<void **>(&flag), &mem), "ccs_mem_alloc_symmetric");
    *flag = 0;
    must(ccs_barrier(), "barrier");
    const auto sleep = std::chrono::duration<double>(seconds);
    // The barrier.
    double w0 = wall_seconds(), c0 = cpu_seconds();
    if (rank == 0) std::this_thread::sleep_for(sleep);
    must(ccs_barrier(), "barrier");
    const double barrier_wall = wall_seconds() - w0, barrier_cpu = cpu_seconds() - c0;
    // A flag put by rank 0 (no event reaches the waiter).
    w0 = wall_seconds();
    c0 = cpu_seconds();
    if (rank == 0) {
        std::this_thread::sleep_for(sleep);
        const uint64_t one = 1;
        for (int peer = 1; peer < size; ++peer)
            must(ccs_put_sync(ctx, peer, &one, sizeof one, reinterpret_cast<uintptr_t>(flag), CCS_RKEY_SYMMETRIC), "put");
    } else {
        must(ccs_wait_until(flag, CCS_UINT64, CCS_CMP_EQ, 1), "ccs_wait_until");
    }
    const double flag_wall = wall_seconds() - w0, flag_cpu = cpu_seconds() - c0;
    if (rank != 0)
        std::printf("rank %d: barrier %.2f s, CPU %.1f %%; ccs_wait_until %.2f s, CPU %.1f %%\n", rank, barrier_wall,
                    100 * barrier_cpu / barrier_wall, flag_wall, 100 * flag_cpu / flag_wall);
    must(ccs_barrier(), "barrier");
    must(ccs_mem_free_symmetric(mem), "ccs_mem_free_symmetric");
    must(ccs_context_destroy(ctx), "ccs_context_destroy");
    must(ccs_finalize(), "ccs_finalize");
    return 0;
}
