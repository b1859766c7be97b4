// Rate of one-sided operations with several threads of one process, each
// on a context of its own, at thread level multiple. put and fadd go into
// a node peer's symmetric memory, which the peer's plugin maps here;
// put-heap and get-heap into heap memory it registered, which the
// transport's own RMA reaches (shm: cross-memory attach, a system call
// each). The peer's CPU does nothing (it sleeps in a barrier), so the
// threads meet only in CCS.
//   ccsrun -n 2 build/bin/ccs_perf_thread_rma_rate <threads> [seconds] [put|fadd|put-heap|get-heap] [bytes]
// Rank 0's threads each put 8 bytes (get them, or fetch-add a word; heap
// modes: `bytes`, 8 by default) into a place of their own at rank 1, as
// fast as they can. Prints operations per second over all threads of
// rank 0, and for heap modes GB/s too.
#include "thread_pair.hpp"

#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <atomic>
#include <chrono>
#include <string>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// The peer's key and address for `mem` at `base` (an AM each way).
struct remote_window {
    ccs_rkey_t key{};
    uint64_t base = 0;
};
remote_window exchange_window(int rank, ccs_mem_t mem, const void *base) {
    struct inbox {
        std::vector<uint8_t> key;
        uint64_t base = 0;
        std::atomic<bool> arrived{false};
    } in;
    const ccs_am_handler_entry_t on_key{1, [](const ccs_am_message_t *m, void *arg) {
                                            auto *i = static_cast<inbox *>(arg);
                                            const auto *p = static_cast<const uint8_t *>(m->payload);
                                            i->key.assign(p, p + m->payload_size);
                                            i->base = m->args[0];
                                            i->arrived.store(true);
                                        },
                                        &in};
    const ccs_context_params_t cp{sizeof cp, 0, "thread-rma-rate-keys", &on_key, 1};
    ccs_context_t ctx{};
    must(ccs_context_create(&cp, &ctx), "ccs_context_create");
    size_t length = 0;
    must(ccs_rkey_pack(mem, nullptr, &length), "ccs_rkey_pack");
    std::vector<uint8_t> packed(length);
    must(ccs_rkey_pack(mem, packed.data(), &length), "ccs_rkey_pack");
    const uint64_t address = reinterpret_cast<uintptr_t>(base);
    must(ccs_am_send(ctx, 1 - rank, 1, &address, 1, packed.data(), length, nullptr), "ccs_am_send");
    while (!in.arrived.load()) must(ccs_progress(), "ccs_progress");
    remote_window w;
    must(ccs_rkey_unpack(1 - rank, in.key.data(), in.key.size(), &w.key), "ccs_rkey_unpack");
    w.base = in.base;
    must(ccs_barrier(), "ccs_barrier");
    must(ccs_context_destroy(ctx), "ccs_context_destroy");
    return w;
}

}  // namespace

int main(int argc, char **argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
    const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
    const std::string op = argc > 3 ? argv[3] : "put";
    const bool fadd = op == "fadd", heap = op == "put-heap" || op == "get-heap";
    const long bytes_arg = argc > 4 ? std::atol(argv[4]) : 8;
    if (threads < 1 || threads > 64 || seconds <= 0 || (!fadd && !heap && op != "put") || bytes_arg < 8 ||
        bytes_arg > (1l << 20) || (bytes_arg != 8 && !heap)) {
        std::fprintf(stderr, "usage: %s <threads 1..64> [seconds] [put|fadd|put-heap|get-heap] [bytes 8..1M, heap]\n",
                     argv[0]);
        return 2;
    }
    const auto bytes = static_cast<size_t>(bytes_arg);
    const int rank = init_pair_at_level_multiple();
    std::vector<ccs_context_t> ctx(static_cast<size_t>(threads));
    for (auto &c : ctx) {
        const ccs_context_params_t cp{sizeof cp, 0, "thread-rma-rate", nullptr, 0};
        must(ccs_context_create(&cp, &c), "ccs_context_create");
    }
    // One cache line per thread; for heap memory a region of its own per
    // thread, so the kernel's copies do not meet on one page table's lock.
    const size_t line = heap ? size_t{4} << 20 : 64;
    void *part = nullptr;
    ccs_mem_t mem{};
    must(ccs_mem_alloc_symmetric(static_cast<size_t>(threads) * 64, &part, &mem), "ccs_mem_alloc_symmetric");
    auto *base = static_cast<uint8_t *>(part);
    ccs_rkey_t key = CCS_RKEY_SYMMETRIC;
    std::vector<uint8_t> heap_lines(heap ? static_cast<size_t>(threads) * line : 0);
    ccs_mem_t heap_mem{};
    if (heap) {
        must(ccs_mem_register(heap_lines.data(), heap_lines.size(), &heap_mem), "ccs_mem_register");
        const remote_window w = exchange_window(rank, heap_mem, heap_lines.data());
        key = w.key;
        base = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(w.base));
    }
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
                std::vector<uint8_t> data(bytes, 1);
                while (std::chrono::steady_clock::now() < end) {
                    for (int i = 0; i < 256; ++i) {
                        if (fadd)
                            must(ccs_atomic(c, 1, CCS_ATOMIC_ADD, CCS_ACC_UINT64, at, key, 1, 0, &value, nullptr),
                                 "ccs_atomic");
                        else if (op == "get-heap")
                            must(ccs_get_sync(c, 1, data.data(), bytes, at, key), "ccs_get_sync");
                        else if (heap)
                            must(ccs_put(c, 1, data.data(), bytes, at, key, nullptr), "ccs_put");
                        else
                            must(ccs_put(c, 1, &value, sizeof value, at, key, nullptr), "ccs_put");
                    }
                    ops += 256;
                }
                done.fetch_add(ops);
            });
        for (auto &th : pool) th.join();
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double rate = static_cast<double>(done.load()) / elapsed;
        std::printf("threads %d %s %zu B: %.3f Mops/s %.2f GB/s\n", threads, op.c_str(), heap ? bytes : 8,
                    rate * 1e-6, rate * static_cast<double>(heap ? bytes : 8) * 1e-9);
    }
    must(ccs_barrier(), "ccs_barrier");
    if (heap) {
        must(ccs_rkey_release(key), "ccs_rkey_release");
        must(ccs_mem_deregister(heap_mem), "ccs_mem_deregister");
    }
    must(ccs_mem_free_symmetric(mem), "ccs_mem_free_symmetric");
    for (auto c : ctx) ccs_context_destroy(c);
    must(ccs_finalize(), "ccs_finalize");
    return 0;
}
