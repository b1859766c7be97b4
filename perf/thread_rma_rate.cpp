// Rate of one-sided operations with several threads of one process, each
// on a context of its own, at thread level multiple, into a node peer's
// symmetric memory, which the peer's plugin maps here: the peer's CPU does
// nothing (it sleeps in a barrier), so the threads meet only in CCS.
//   ccsrun -n 2 build/bin/ccs_perf_thread_rma_rate <threads> [seconds] [put|fadd]
// Rank 0's threads each put 8 bytes (or fetch-add a word) into a line of
// their own at rank 1, as fast as they can. Prints operations per second
// over all threads of rank 0.
#include "thread_pair.hpp"

#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
    const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
    const bool fadd = argc > 3 && std::strcmp(argv[3], "fadd") == 0;
    if (threads < 1 || threads > 64 || seconds <= 0 || (argc > 3 && !fadd && std::strcmp(argv[3], "put") != 0)) {
        std::fprintf(stderr, "usage: %s <threads 1..64> [seconds] [put|fadd]\n", argv[0]);
        return 2;
    }
    const int rank = init_pair_at_level_multiple();
    std::vector<ccs_context_t> ctx(static_cast<size_t>(threads));
    for (auto &c : ctx) {
        const ccs_context_params_t cp{sizeof cp, 0, "thread-rma-rate", nullptr, 0};
        must(ccs_context_create(&cp, &c), "ccs_context_create");
    }
    constexpr size_t line = 64;  // one cache line per thread
    void *part = nullptr;
    ccs_mem_t mem{};
    must(ccs_mem_alloc_symmetric(static_cast<size_t>(threads) * line, &part, &mem), "ccs_mem_alloc_symmetric");
    auto *base = static_cast<uint8_t *>(part);
    std::atomic<uint64_t> done{0};
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    if (rank == 0) {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const ccs_context_t c = ctx[static_cast<size_t>(t)];
                const uint64_t at = reinterpret_cast<uintptr_t>(base + static_cast<size_t>(t) * line);
                uint64_t ops = 0, value = 1;
                while (std::chrono::steady_clock::now() < end) {
                    for (int i = 0; i < 256; ++i) {
                        if (fadd)
                            must(ccs_atomic(c, 1, CCS_ATOMIC_ADD, CCS_ACC_UINT64, at, CCS_RKEY_SYMMETRIC, 1, 0, &value,
                                            nullptr),
                                 "ccs_atomic");
                        else
                            must(ccs_put(c, 1, &value, sizeof value, at, CCS_RKEY_SYMMETRIC, nullptr), "ccs_put");
                    }
                    ops += 256;
                }
                done.fetch_add(ops);
            });
        for (auto &th : pool) th.join();
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("threads %d %s: %.3f Mops/s\n", threads, fadd ? "fadd" : "put",
                    static_cast<double>(done.load()) / elapsed * 1e-6);
    }
    must(ccs_barrier(), "ccs_barrier");
    must(ccs_mem_free_symmetric(mem), "ccs_mem_free_symmetric");
    for (auto c : ctx) ccs_context_destroy(c);
    must(ccs_finalize(), "ccs_finalize");
    return 0;
}
