// CCS active-message benchmarks, Google Benchmark style, run as a 2-process
// job:   ccsrun -n 2 build/bin/ccs_perf_am [--benchmark_filter=...]
// Rank 0 drives the benchmarks; rank 1 answers from its handlers until
// rank 0 says stop.
//   am_latency/<bytes>:   ping-pong; counter one_way = half a round trip
//   am_bandwidth/<bytes>: a window of messages, then one acknowledgement;
//                         bytes_per_second
//   am_latency_datadesc/<bytes>: am_latency with the ping's payload packed
//                         from 8-byte pieces 16 bytes apart (a datadesc):
//                         against am_latency/<bytes>, what the pack costs
//   am_large_bandwidth/<bytes>/<shared>: a window of large messages
//                         (ccs_am_send_large) from one buffer, heap (0) or
//                         ccs_mem_alloc (1), each accepted by rank 1's
//                         header handler into one heap buffer; the sender
//                         waits for every completion; bytes_per_second
//   am_large_stream/<bytes>: the same from heap, streamed as ucx_perftest
//                         streams ucp_am_bw: a new message as soon as
//                         fewer than 16 are unfinished, no pause to drain
//   am_large_one/<bytes>: one large message from heap at a time, the next
//                         once the sender's completion ran (as an MPI's
//                         rendezvous send waits): time per message
#include "must.hpp"

#include <ccs/am_large.h>
#include <ccs/ccs.h>
#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

enum handler_id : uint16_t { ping = 1, pong = 2, stream = 3, ack = 4, stop = 5, large = 6 };
constexpr int window = 64;
constexpr int large_window = 16;
constexpr size_t large_max = size_t{16} << 20;

struct peer_state {
    volatile int pongs = 0;
    volatile int acks = 0;
    int streamed = 0;
    bool stopping = false;
};
peer_state g;
ccs_context_t g_ctx;

void on_ping(const ccs_am_message_t *m, void *) {
    ccs_am_send(m->context, m->source, pong, nullptr, 0, m->payload, m->payload_size, nullptr);
}
void on_pong(const ccs_am_message_t *, void *) { g.pongs = g.pongs + 1; }
void on_stream(const ccs_am_message_t *m, void *) {
    if (++g.streamed == window) {
        g.streamed = 0;
        ccs_am_send(m->context, m->source, ack, nullptr, 0, nullptr, 0, nullptr);
    }
}
void on_ack(const ccs_am_message_t *, void *) { g.acks = g.acks + 1; }
void on_stop(const ccs_am_message_t *, void *) { g.stopping = true; }

// Heap buffers start on a page, as ccs_mem_alloc's and the put
// benchmark's windows do: a large copy's speed depends on where source and
// destination lie relative to each other (`rep movsb` on AMD Zen), and the
// comparison with ccs_put must not differ in that.
uint8_t *page_aligned(size_t bytes, uint8_t fill) {
    auto *p = static_cast<uint8_t *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
    if (!p) must(CCS_ERR_NO_MEMORY, "aligned_alloc");
    std::memset(p, fill, bytes);
    return p;
}
// Rank 1: every large message goes to the same place, as ucx_perftest's
// receives do.
uint8_t *g_large_in = nullptr;
void on_large_header(const ccs_am_header_t *h, void *) {
    must(ccs_am_accept(h->token, g_large_in, large_max, nullptr), "accept");
}
// Rank 0's sources: heap, and shared memory its peer maps.
uint8_t *g_large_heap = nullptr;
uint8_t *g_large_shared = nullptr;

// Ping-pongs, each ping sent by send_ping(); counter one_way.
template <class SendPing>
void ping_pong(benchmark::State &state, SendPing send_ping) {
    for (auto _ : state) {
        const int want = g.pongs + 1;
        must(send_ping(), "send");
        while (g.pongs < want) ccs_progress();
    }
    // Seconds per one-way trip (printed with an SI prefix: 128n = 128 ns).
    state.counters["one_way"] = benchmark::Counter(static_cast<double>(state.iterations()) * 2,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void am_latency(benchmark::State &state) {
    std::vector<char> buf(static_cast<size_t>(state.range(0)), 'x');
    ping_pong(state, [&] { return ccs_am_send(g_ctx, 1, ping, nullptr, 0, buf.data(), buf.size(), nullptr); });
}

void am_latency_datadesc(benchmark::State &state) {
    std::vector<char> buf(static_cast<size_t>(2 * state.range(0)), 'x');
    ccs_datadesc_t every_other = nullptr;
    must(ccs_datadesc_vector(state.range(0) / 8, 8, 16, CCS_BYTE, &every_other), "datadesc");
    must(ccs_datadesc_commit(every_other), "commit");
    ping_pong(state, [&] { return ccs_am_send_datadesc(g_ctx, 1, ping, nullptr, 0, buf.data(), 1, every_other, nullptr); });
    ccs_datadesc_free(&every_other);
}

void am_bandwidth(benchmark::State &state) {
    std::vector<char> buf(static_cast<size_t>(state.range(0)), 'x');
    for (auto _ : state) {
        const int want = g.acks + 1;
        for (int i = 0; i < window; ++i)
            must(ccs_am_send(g_ctx, 1, stream, nullptr, 0, buf.data(), buf.size(), nullptr), "send");
        while (g.acks < want) ccs_progress();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * window * state.range(0));
}

// The same window, sent with a completion counter: the payload stays the
// caller's until it moves, so plugins that can send it without a copy do
// (the way a runtime sends large data).
void am_bandwidth_completion(benchmark::State &state) {
    std::vector<char> buf(static_cast<size_t>(state.range(0)), 'x');
    for (auto _ : state) {
        const int want = g.acks + 1;
        ccs_counter_t sent;
        ccs_counter_init(&sent);
        const ccs_completion_t c{nullptr, nullptr, &sent};
        for (int i = 0; i < window; ++i)
            must(ccs_am_send(g_ctx, 1, stream, nullptr, 0, buf.data(), buf.size(), &c), "send");
        while (g.acks < want || sent.value < static_cast<uint64_t>(window)) ccs_progress();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * window * state.range(0));
}

void am_large_bandwidth(benchmark::State &state) {
    const auto bytes = static_cast<size_t>(state.range(0));
    const uint8_t *from = state.range(1) ? g_large_shared : g_large_heap;
    for (auto _ : state) {
        ccs_counter_t sent;
        ccs_counter_init(&sent);
        const ccs_completion_t c{nullptr, nullptr, &sent};
        for (int i = 0; i < large_window; ++i)
            must(ccs_am_send_large(g_ctx, 1, large, nullptr, 0, from, bytes, &c), "send");
        must(ccs_counter_wait(&sent, large_window), "wait");
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * large_window * state.range(0));
}

// Large messages from heap, a new one as soon as fewer than `in_flight`
// are unfinished.
void stream_large(benchmark::State &state, uint64_t in_flight) {
    const auto bytes = static_cast<size_t>(state.range(0));
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    uint64_t sent = 0;
    for (auto _ : state) {
        if (sent >= in_flight) must(ccs_counter_wait(&done, sent - in_flight + 1), "wait");
        must(ccs_am_send_large(g_ctx, 1, large, nullptr, 0, g_large_heap, bytes, &c), "send");
        ++sent;
    }
    must(ccs_counter_wait(&done, sent), "wait");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

void am_large_stream(benchmark::State &state) { stream_large(state, large_window); }

void am_large_one(benchmark::State &state) { stream_large(state, 1); }

BENCHMARK(am_latency)->Arg(8)->Arg(64)->Arg(1024)->Arg(8192)->Arg(65536)->UseRealTime();
BENCHMARK(am_latency_datadesc)->Arg(64)->Arg(1024)->Arg(8192)->UseRealTime();
BENCHMARK(am_bandwidth)->Arg(64)->Arg(4096)->Arg(65536)->Arg(1 << 20)->UseRealTime();
BENCHMARK(am_bandwidth_completion)->Arg(65536)->Arg(1 << 20)->UseRealTime();
BENCHMARK(am_large_bandwidth)
    ->Args({65536, 0})
    ->Args({1 << 20, 0})
    ->Args({16 << 20, 0})
    ->Args({1 << 20, 1})
    ->Args({16 << 20, 1})
    ->UseRealTime();
BENCHMARK(am_large_stream)->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();
BENCHMARK(am_large_one)->Arg(65536)->Arg(1 << 20)->UseRealTime();

}  // namespace

int main(int argc, char **argv) {
    must(ccs_init(nullptr), "ccs_init");
    int rank = 0, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    if (size != 2) {
        if (rank == 0) std::fprintf(stderr, "run with two processes: ccsrun -n 2 %s\n", argv[0]);
        ccs_finalize();
        return 2;
    }
    const ccs_am_handler_entry_t handlers[] = {
        {ping, on_ping, nullptr}, {pong, on_pong, nullptr}, {stream, on_stream, nullptr},
        {ack, on_ack, nullptr},   {stop, on_stop, nullptr},
    };
    const ccs_context_params_t params{sizeof params, 0, "perf", handlers, sizeof handlers / sizeof handlers[0]};
    must(ccs_context_create(&params, &g_ctx), "ccs_context_create");
    must(ccs_am_header_handler_register(g_ctx, large, on_large_header, nullptr), "register");
    ccs_mem_t shared{0};
    if (rank == 0) {
        g_large_heap = page_aligned(large_max, 'x');
        void *p = nullptr;
        must(ccs_mem_alloc(large_max, &p, &shared), "ccs_mem_alloc");
        g_large_shared = static_cast<uint8_t *>(p);
        std::memset(g_large_shared, 'y', large_max);
    } else {
        g_large_in = page_aligned(large_max, 0);
    }
    must(ccs_barrier(), "barrier");
    if (rank == 0) {
        benchmark::Initialize(&argc, argv);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        must(ccs_am_send(g_ctx, 1, stop, nullptr, 0, nullptr, 0, nullptr), "send stop");
    } else {
        while (!g.stopping) ccs_progress();
    }
    must(ccs_barrier(), "barrier");
    if (shared.id) must(ccs_mem_free(shared), "ccs_mem_free");
    must(ccs_context_destroy(g_ctx), "ccs_context_destroy");
    must(ccs_finalize(), "ccs_finalize");
    std::free(g_large_heap);
    std::free(g_large_in);
    return 0;
}
