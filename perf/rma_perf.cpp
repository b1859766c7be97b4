// CCS put/get benchmarks, Google Benchmark style, run as a 2-process job:
//   ccsrun -n 2 build/bin/ccs_perf_rma [--benchmark_filter=...]
// Rank 0 drives; rank 1 echoes: it watches its ping cell and puts every
// new value back into rank 0's pong cell, as ucx_perftest's ucp_put_lat
// does, until rank 0 writes the stop value.
//   put_latency/8:         put ping-pong; counter one_way = half a round trip
//   get_latency/8:         blocking 8-byte get (a round trip)
//   put_bandwidth/<bytes>: a window of puts, then wait for all; bytes_per_second
//   get_bandwidth/<bytes>: the same with gets
//   rcache_hit:            ccs_mem_register + deregister of a cached region
#include <ccs/ccs.h>
#include <ccs/rma.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr uint64_t stop_value = ~0ull;
constexpr size_t window_bytes = 8 << 20;
constexpr int window_ops = 16;

struct shared {
    ccs_context_t ctx{};
    std::vector<uint8_t> memory = std::vector<uint8_t>(window_bytes + 4096, 0);
    uint64_t peer_base = 0;  // the other rank's memory
    ccs_rkey_t peer_key{};
} g;

// Cells at the start of each rank's memory: [0] ping (written by rank 0),
// [1] pong (written by rank 1); data from offset 4096.
std::atomic_ref<uint64_t> cell(int i) { return std::atomic_ref<uint64_t>(reinterpret_cast<uint64_t *>(g.memory.data())[i]); }

void must(ccs_status_t st, const char *what) {
    if (st == CCS_OK) return;
    std::fprintf(stderr, "%s: %s: %s\n", what, ccs_strerror(st), ccs_last_error());
    std::exit(1);
}

void put_latency(benchmark::State &state) {
    uint64_t seq = cell(1).load();
    for (auto _ : state) {
        ++seq;
        must(ccs_put(g.ctx, 1, &seq, 8, g.peer_base, g.peer_key, nullptr), "put");
        while (cell(1).load(std::memory_order_acquire) != seq) ccs_progress();
    }
    state.counters["one_way"] = benchmark::Counter(static_cast<double>(state.iterations()) * 2,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void get_latency(benchmark::State &state) {
    uint64_t value = 0;
    for (auto _ : state) must(ccs_get_sync(g.ctx, 1, &value, 8, g.peer_base + 4096, g.peer_key), "get");
}

void bandwidth(benchmark::State &state, bool put) {
    const auto bytes = static_cast<size_t>(state.range(0));
    const int ops = static_cast<int>(std::min<size_t>(window_ops, window_bytes / bytes));
    uint8_t *local = g.memory.data() + 4096;
    for (auto _ : state) {
        ccs_counter_t done;
        ccs_counter_init(&done);
        const ccs_completion_t c{nullptr, nullptr, &done};
        for (int i = 0; i < ops; ++i) {
            const uint64_t at = g.peer_base + 4096 + static_cast<uint64_t>(i) * bytes;
            must(put ? ccs_put(g.ctx, 1, local + static_cast<size_t>(i) * bytes, bytes, at, g.peer_key, &c)
                     : ccs_get(g.ctx, 1, local + static_cast<size_t>(i) * bytes, bytes, at, g.peer_key, &c),
                 put ? "put" : "get");
        }
        must(ccs_counter_wait(&done, static_cast<uint64_t>(ops)), "wait");
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * ops * static_cast<int64_t>(bytes));
}
void put_bandwidth(benchmark::State &state) { bandwidth(state, true); }
void get_bandwidth(benchmark::State &state) { bandwidth(state, false); }

void rcache_hit(benchmark::State &state) {
    ccs_mem_t mem{};
    for (auto _ : state) {
        must(ccs_mem_register(g.memory.data() + 8192, 4096, &mem), "register");
        must(ccs_mem_deregister(mem), "deregister");
    }
}

// Rank 1: echo pings until told to stop.
void respond() {
    uint64_t seen = 0;
    for (;;) {
        const uint64_t v = cell(0).load(std::memory_order_acquire);
        if (v == stop_value) return;
        if (v != seen) {
            seen = v;
            must(ccs_put(g.ctx, 0, &seen, 8, g.peer_base + 8, g.peer_key, nullptr), "echo");
        }
        ccs_progress();
    }
}

void on_key(const ccs_am_message_t *m, void *) {
    g.peer_base = m->args[0];
    must(ccs_rkey_unpack(m->source, m->payload, m->payload_size, &g.peer_key), "unpack");
}

}  // namespace

int main(int argc, char **argv) {
    must(ccs_init(nullptr), "init");
    int rank = 0, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    if (size != 2) {
        std::fprintf(stderr, "run with two processes: ccsrun -n 2 %s\n", argv[0]);
        return 2;
    }
    ccs_am_handler_entry_t handlers[] = {{1, on_key, nullptr}};
    const ccs_context_params_t params{sizeof params, 0, "perf-rma", handlers, 1};
    must(ccs_context_create(&params, &g.ctx), "context");
    ccs_mem_t mem{};
    must(ccs_mem_register(g.memory.data(), g.memory.size(), &mem), "register");
    uint8_t key[1024];
    size_t key_len = sizeof key;
    must(ccs_rkey_pack(mem, key, &key_len), "pack");
    const uint64_t base = reinterpret_cast<uintptr_t>(g.memory.data());
    must(ccs_am_send(g.ctx, 1 - rank, 1, &base, 1, key, key_len, nullptr), "send key");
    while (g.peer_base == 0) ccs_progress();
    must(ccs_barrier(), "barrier");
    if (rank == 0) {
        benchmark::RegisterBenchmark("put_latency/8", put_latency)->UseRealTime();
        benchmark::RegisterBenchmark("get_latency/8", get_latency)->UseRealTime();
        for (int64_t bytes = 4096; bytes <= (4 << 20); bytes *= 4) {
            benchmark::RegisterBenchmark("put_bandwidth", put_bandwidth)->Arg(bytes)->UseRealTime();
            benchmark::RegisterBenchmark("get_bandwidth", get_bandwidth)->Arg(bytes)->UseRealTime();
        }
        benchmark::RegisterBenchmark("rcache_hit", rcache_hit)->UseRealTime();
        benchmark::Initialize(&argc, argv);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        must(ccs_put_sync(g.ctx, 1, &stop_value, 8, g.peer_base, g.peer_key), "stop");
    } else {
        respond();
    }
    must(ccs_barrier(), "barrier");
    must(ccs_rkey_release(g.peer_key), "release");
    must(ccs_mem_deregister(mem), "deregister");
    must(ccs_context_destroy(g.ctx), "destroy");
    must(ccs_finalize(), "finalize");
    return 0;
}
