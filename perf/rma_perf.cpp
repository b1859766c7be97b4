// CCS put/get benchmarks, Google Benchmark style, run as a 2-process job:
//   ccsrun -n 2 build/bin/ccs_perf_rma [--benchmark_filter=...]
// Rank 0 drives; rank 1 echoes: it watches its ping cell and puts every
// new value back into rank 0's pong cell, as ucx_perftest's ucp_put_lat
// does, until rank 0 writes the stop value. Both wait for a cell with
// ccs_wait_until, the call a runtime waits for a flag with.
//   put_latency/8:         put ping-pong; counter one_way = half a round trip
//                          (CCS_WAIT_GAP_NS=0 shows it with tight polls)
//   put_latency_passive/8: the target answers a put by a plain store into
//                          its own memory, which rank 0 reads with gets: it
//                          makes no CCS call but waits, so its progress
//                          never sees activity
//   store_latency/8:       the put ping-pong with ccs_put replaced by a plain
//                          store into a POSIX shared-memory page (both sides
//                          still wait with ccs_wait_until), to tell ccs_put's
//                          cost from the harness's (its two cells share a
//                          page; it is not below put_latency/8 here)
//   get_latency/8:         blocking 8-byte get (a round trip)
//   put_bandwidth/<bytes>: a window of puts of one buffer to one remote
//                          address (as ucx_perftest does), then wait for all;
//                          bytes_per_second
//   get_bandwidth/<bytes>: the same with gets
//   put_datadesc/<pieces>/<len>/<stride>/<window>, get_datadesc: a strided
//                          layout in the peer's window (hvector) from or
//                          into contiguous bytes here; put_strided_by_hand:
//                          the put as a loop through ccs_rkey_ptr
//   atomic_latency/<op>/<window>: a blocking 8-byte atomic (ccs_atomic_sync)
//                          on a word of the peer's window: fetch-add (op 0),
//                          swap (4), compare-and-swap (5); into the heap
//                          window the target carries it out in its progress;
//                          window 2: heap registered for network atomics
//                          (the transport's own; only where one does them)
//   accumulate/<bytes>/<window>: a blocking sum of doubles
//                          (ccs_accumulate_sync) into the peer's window:
//                          applied in place under the block's lock (0), or
//                          by the target in its progress (1, heap);
//                          per_op, bytes_per_second
//   accumulate_datadesc/<rows>/<bytes>/<apart>: a blocking sum of doubles
//                          into <rows> rows of <bytes>, 2 * <bytes> apart,
//                          of the peer's ccs_mem_alloc window (an
//                          ARMCI_AccS patch), from contiguous memory here
//                          (apart 0) or from rows as far apart (1)
//   rcache_hit:            ccs_mem_register + deregister of a cached region
//   put_issue/8, progress_idle: a put, and one idle poll of a wait
// Windows come from ccs_mem_alloc (shared: peers map them, put/get are
// loads and stores), as ucx_perftest allocates its buffers; the *_cma
// variants use heap memory registered with ccs_mem_register instead
// (cross-memory attach, a system call per operation).
#include "must.hpp"

#include <ccs/ccs.h>
#include <ccs/rma.h>
#include <ccs/datadesc.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr uint64_t stop_value = ~0ull;
// Written to a ping cell when a benchmark run ends (see respond()).
constexpr uint64_t leave_value = ~0ull - 1;
constexpr size_t window_bytes = 20 << 20;
constexpr int window_ops = 16;

constexpr size_t total_bytes = window_bytes + 4096;
constexpr uint64_t sink_offset = 24 * 8;

// One window: local memory and the peer's, with its key.
struct window {
    uint8_t *memory = nullptr;
    uint64_t peer_base = 0;
    ccs_rkey_t peer_key{};
};

struct shared {
    ccs_context_t ctx{};
    // 0: ccs_mem_alloc, 1: heap + ccs_mem_register, 2: heap registered
    // for network atomics (where a transport does them)
    window w[3];
    std::vector<uint8_t> heap = std::vector<uint8_t>(total_bytes, 0);
    std::vector<uint8_t> network_heap = std::vector<uint8_t>(total_bytes, 0);
    int keys = 0;
    // A page of POSIX shared memory both map (store_latency): [0] ping,
    // [64] pong, 512 bytes apart.
    uint64_t *plain = nullptr;
    int plain_owner_pid = 0;
} g;

std::string plain_name(int pid) { return "/ccs_perf_rma." + std::to_string(pid); }

uint64_t *map_plain(const std::string &name, bool create) {
    const int fd = shm_open(name.c_str(), create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    if (fd < 0 || (create && ftruncate(fd, 4096) != 0)) {
        std::perror(name.c_str());
        std::exit(1);
    }
    void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    return static_cast<uint64_t *>(p);
}

std::atomic_ref<uint64_t> plain_cell(int i) { return std::atomic_ref<uint64_t>(g.plain[i]); }

// Cells at the start of each window: [0] ping (written by rank 0), [1] pong
// (written by rank 1); in window 0 also [8] passive ping (rank 0's put) and
// [16] its answer (rank 1's own store), a cache line apart; [24] a sink
// no responder watches (put_issue, progress_idle); data from offset 4096.
uint64_t &cell_word(const window &w, int i) { return reinterpret_cast<uint64_t *>(w.memory)[i]; }
std::atomic_ref<uint64_t> cell(const window &w, int i) { return std::atomic_ref<uint64_t>(cell_word(w, i)); }

// Ends a run of a benchmark whose pings are puts to offset `at` of the
// peer's window w: the responder goes back to watching every cell.
void leave(const window &w, uint64_t at) {
    must(ccs_put_sync(g.ctx, 1, &leave_value, 8, w.peer_base + at, w.peer_key), "leave");
}

void put_latency(benchmark::State &state) {
    const window &w = g.w[state.range(1)];
    uint64_t seq = cell(w, 1).load();
    for (auto _ : state) {
        ++seq;
        must(ccs_put(g.ctx, 1, &seq, 8, w.peer_base, w.peer_key, nullptr), "put");
        must(ccs_wait_until(&cell_word(w, 1), CCS_UINT64, CCS_CMP_EQ, seq), "wait");
    }
    leave(w, 0);
    state.counters["one_way"] = benchmark::Counter(static_cast<double>(state.iterations()) * 2,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void store_latency(benchmark::State &state) {
    uint64_t seq = plain_cell(64).load();
    for (auto _ : state) {
        ++seq;
        plain_cell(0).store(seq, std::memory_order_release);
        must(ccs_wait_until(&g.plain[64], CCS_UINT64, CCS_CMP_EQ, seq), "wait");
    }
    plain_cell(0).store(leave_value, std::memory_order_release);
    state.counters["one_way"] = benchmark::Counter(static_cast<double>(state.iterations()) * 2,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void put_latency_passive(benchmark::State &state) {
    const window &w = g.w[0];
    uint64_t seq = cell(w, 8).load(), answer = 0;
    for (auto _ : state) {
        ++seq;
        must(ccs_put(g.ctx, 1, &seq, 8, w.peer_base + 8 * 8, w.peer_key, nullptr), "put");
        do must(ccs_get(g.ctx, 1, &answer, 8, w.peer_base + 16 * 8, w.peer_key, nullptr), "get");
        while (answer != seq);
    }
    leave(w, 8 * 8);
    state.counters["one_way"] = benchmark::Counter(static_cast<double>(state.iterations()) * 2,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void get_latency(benchmark::State &state) {
    const window &w = g.w[state.range(1)];
    uint64_t value = 0;
    for (auto _ : state) must(ccs_get_sync(g.ctx, 1, &value, 8, w.peer_base + 4096, w.peer_key), "get");
}

void atomic_latency(benchmark::State &state) {
    const auto op = static_cast<int>(state.range(0));
    const window &w = g.w[state.range(1)];
    const uint64_t word = w.peer_base + 32 * 8;  // a sink no responder watches
    uint64_t old = 0, next = 0;
    for (auto _ : state) {
        must(ccs_atomic_sync(g.ctx, 1, op, CCS_UINT64, word, w.peer_key, op == CCS_ATOMIC_ADD ? 1 : next + 1,
                             next, &old),
             "atomic");
        next = old;  // compare-and-swap then always succeeds
    }
    benchmark::DoNotOptimize(old);
    state.counters["per_op"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void accumulate(benchmark::State &state) {
    const auto bytes = static_cast<size_t>(state.range(0));
    const window &w = g.w[state.range(1)];
    static std::vector<double> src(window_bytes / sizeof(double), 1.0);
    for (auto _ : state)
        must(ccs_accumulate_sync(g.ctx, 1, CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), bytes, w.peer_base + 4096,
                                 w.peer_key, nullptr, nullptr),
             "accumulate");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
    state.counters["per_op"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// `ops` operations issued by issue(completion), then a wait for all of them.
template <class Issue>
void issue_and_wait(int ops, Issue issue) {
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    for (int i = 0; i < ops; ++i) issue(&c);
    must(ccs_counter_wait(&done, static_cast<uint64_t>(ops)), "wait");
}

void bandwidth(benchmark::State &state, bool put) {
    const window &w = g.w[state.range(1)];
    const auto bytes = static_cast<size_t>(state.range(0));
    const int ops = window_ops;
    uint8_t *local = w.memory + 4096;
    const uint64_t at = w.peer_base + 4096;
    for (auto _ : state)
        issue_and_wait(ops, [&](const ccs_completion_t *c) {
            must(put ? ccs_put(g.ctx, 1, local, bytes, at, w.peer_key, c) : ccs_get(g.ctx, 1, local, bytes, at, w.peer_key, c),
                 put ? "put" : "get");
        });
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * ops * static_cast<int64_t>(bytes));
}
void put_bandwidth(benchmark::State &state) { bandwidth(state, true); }
void get_bandwidth(benchmark::State &state) { bandwidth(state, false); }

// The two calls a put ping-pong spins in, alone: issuing an 8-byte put
// (to a scratch cell the peer never reads) and an idle ccs_progress.
void put_issue(benchmark::State &state) {
    const window &w = g.w[0];
    uint64_t v = 0;
    for (auto _ : state) must(ccs_put(g.ctx, 1, &++v, 8, w.peer_base + sink_offset, w.peer_key, nullptr), "put");
}

// 256 polls after each put: below the back-off's 512 idle polls, so none
// of them yields (as in a ping-pong); "per_poll" subtracts nothing, the
// put is 1/257 of the time.
void progress_idle(benchmark::State &state) {
    const window &w = g.w[0];
    uint64_t v = 0;
    for (auto _ : state) {
        must(ccs_put(g.ctx, 1, &++v, 8, w.peer_base + sink_offset, w.peer_key, nullptr), "put");
        for (int i = 0; i < 256; ++i) ccs_progress();
    }
    state.counters["per_poll"] = benchmark::Counter(static_cast<double>(state.iterations()) * 256,
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void accumulate_datadesc(benchmark::State &state) {
    const window &w = g.w[0];
    const int64_t rows = state.range(0), len = state.range(1);
    const bool apart = state.range(2) != 0;
    ccs_datadesc_t dd = nullptr;
    must(ccs_datadesc_hvector(rows, len, 2 * len, CCS_BYTE, &dd), "hvector");
    must(ccs_datadesc_commit(dd), "commit");
    const ccs_datadesc_t from = apart ? dd : CCS_BYTE;
    const int64_t from_count = apart ? 1 : rows * len;
    static std::vector<double> src(window_bytes / sizeof(double), 1.0);
    const uint64_t at = w.peer_base + 4096;
    for (auto _ : state)
        issue_and_wait(1, [&](const ccs_completion_t *c) {
            must(ccs_accumulate_datadesc(g.ctx, 1, CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), from_count, from, at, 1, dd,
                                         w.peer_key, nullptr, nullptr, c),
                 "accumulate_datadesc");
        });
    must(ccs_datadesc_free(&dd), "free");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * rows * len);
    state.counters["per_op"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Strided puts and gets with datadescs: `pieces` pieces of `len` bytes,
// `stride` apart in the peer's window, from or into contiguous memory
// here (a column or a patch of rows, as ARMCI's strided put or
// shmem_iput move them).
void layout_transfer(benchmark::State &state, bool put) {
    const window &w = g.w[state.range(3)];
    const int64_t pieces = state.range(0), len = state.range(1), stride = state.range(2);
    ccs_datadesc_t dd = nullptr;
    must(ccs_datadesc_hvector(pieces, len, stride, CCS_BYTE, &dd), "hvector");
    must(ccs_datadesc_commit(dd), "commit");
    uint8_t *local = w.memory + 4096;
    const uint64_t at = w.peer_base + 4096;
    for (auto _ : state)
        issue_and_wait(1, [&](const ccs_completion_t *c) {
            must(put ? ccs_put_datadesc(g.ctx, 1, local, pieces * len, CCS_BYTE, at, 1, dd, w.peer_key, c)
                     : ccs_get_datadesc(g.ctx, 1, local, pieces * len, CCS_BYTE, at, 1, dd, w.peer_key, c),
                 put ? "put_datadesc" : "get_datadesc");
        });
    must(ccs_datadesc_free(&dd), "free");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * pieces * len);
}
void put_datadesc(benchmark::State &state) { layout_transfer(state, true); }
void get_datadesc(benchmark::State &state) { layout_transfer(state, false); }

// The same put as a runtime would write it by hand where the peer's
// memory is mapped: ccs_rkey_ptr, then a loop (constant lengths where the
// shapes have them, so the compiler moves them as words).
template <int64_t Len>
void copy_strided(uint8_t *to, const uint8_t *from, int64_t pieces, int64_t len, int64_t stride) {
    const int64_t n = Len ? Len : len;
    for (int64_t i = 0; i < pieces; ++i) std::memcpy(to + i * stride, from + i * n, static_cast<size_t>(n));
}
void put_strided_by_hand(benchmark::State &state) {
    const window &w = g.w[0];
    const int64_t pieces = state.range(0), len = state.range(1), stride = state.range(2);
    void *remote = nullptr;
    must(ccs_rkey_ptr(w.peer_key, w.peer_base + 4096, static_cast<size_t>(pieces * stride), &remote), "rkey_ptr");
    auto *to = static_cast<uint8_t *>(remote);
    const uint8_t *from = w.memory + 4096;
    for (auto _ : state) {
        if (len == 8) copy_strided<8>(to, from, pieces, len, stride);
        else if (len == 40) copy_strided<40>(to, from, pieces, len, stride);
        else copy_strided<0>(to, from, pieces, len, stride);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * pieces * len);
}

void rcache_hit(benchmark::State &state) {
    ccs_mem_t mem{};
    for (auto _ : state) {
        must(ccs_mem_register(g.heap.data() + 8192, 4096, &mem), "register");
        must(ccs_mem_deregister(mem), "deregister");
    }
}

// Rank 1's answers. Each benchmark has a ping cell rank 0 writes and an
// answer; once a ping arrives, rank 1 waits on that cell alone (with
// ccs_wait_until) until rank 0 writes leave_value there at the
// end of the run, as ucx_perftest's responder spins on its one cell. A
// loop over every benchmark's cells delayed each answer by the others'
// loads (store_latency 0.326-0.339 us one way before, 0.311-0.315 after,
// in alternating runs).
struct echo {
    uint64_t *ping;
    void (*answer)(uint64_t value);
    uint64_t seen = 0;
    uint64_t load() const { return std::atomic_ref<uint64_t>(*ping).load(std::memory_order_acquire); }
};

void echo_put(int which, uint64_t value) {
    must(ccs_put(g.ctx, 0, &value, 8, g.w[which].peer_base + 8, g.w[which].peer_key, nullptr), "echo");
}

// Answers pings on *e.ping until leave_value; false once told to stop.
bool answer_until_leave(echo &e) {
    for (;;) {
        must(ccs_wait_until(e.ping, CCS_UINT64, CCS_CMP_NE, e.seen), "wait");
        const uint64_t v = e.load();
        e.seen = v;
        if (v == stop_value) return false;
        if (v == leave_value) return true;
        e.answer(v);
    }
}

void respond() {
    echo echoes[] = {
        {&cell_word(g.w[0], 0), [](uint64_t v) { echo_put(0, v); }},
        {&cell_word(g.w[1], 0), [](uint64_t v) { echo_put(1, v); }},
        {&g.plain[0], [](uint64_t v) { plain_cell(64).store(v, std::memory_order_release); }},
        {&cell_word(g.w[0], 8), [](uint64_t v) { cell(g.w[0], 16).store(v, std::memory_order_release); }},
    };
    for (;;) {
        for (echo &e : echoes) {
            const uint64_t v = e.load();
            if (v == e.seen) continue;
            if (v == stop_value) return;
            e.seen = v;
            if (v == leave_value) continue;
            e.answer(v);
            if (!answer_until_leave(e)) return;
        }
        ccs_progress();
    }
}

void on_key(const ccs_am_message_t *m, void *) {
    window &w = g.w[m->args[1]];
    w.peer_base = m->args[0];
    must(ccs_rkey_unpack(m->source, m->payload, m->payload_size, &w.peer_key), "unpack");
    ++g.keys;
}

void on_plain(const ccs_am_message_t *m, void *) { g.plain_owner_pid = static_cast<int>(m->args[0]); }

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
    ccs_am_handler_entry_t handlers[] = {{1, on_key, nullptr}, {2, on_plain, nullptr}};
    const ccs_context_params_t params{sizeof params, 0, "perf-rma", handlers, 2};
    must(ccs_context_create(&params, &g.ctx), "context");
    ccs_mem_t mem[3]{};
    void *allocated = nullptr;
    must(ccs_mem_alloc(total_bytes, &allocated, &mem[0]), "alloc");
    g.w[0].memory = static_cast<uint8_t *>(allocated);
    g.w[1].memory = g.heap.data();
    must(ccs_mem_register(g.heap.data(), g.heap.size(), &mem[1]), "register");
    g.w[2].memory = g.network_heap.data();
    // Both processes load the same transports: both or neither have it.
    const bool network = ccs_mem_register_atomics(g.network_heap.data(), g.network_heap.size(),
                                                  CCS_ATOMICS_BY_NETWORK, &mem[2]) == CCS_OK;
    const int windows = network ? 3 : 2;
    for (uint64_t i = 0; i < static_cast<uint64_t>(windows); ++i) {
        uint8_t key[1024];
        size_t key_len = sizeof key;
        must(ccs_rkey_pack(mem[i], key, &key_len), "pack");
        const uint64_t args[2] = {reinterpret_cast<uintptr_t>(g.w[i].memory), i};
        must(ccs_am_send(g.ctx, 1 - rank, 1, args, 2, key, key_len, nullptr), "send key");
    }
    while (g.keys < windows) ccs_progress();
    if (rank == 0) {
        g.plain = map_plain(plain_name(getpid()), true);
        const uint64_t pid = static_cast<uint64_t>(getpid());
        must(ccs_am_send(g.ctx, 1, 2, &pid, 1, nullptr, 0, nullptr), "send page name");
    } else {
        while (g.plain_owner_pid == 0) ccs_progress();
        g.plain = map_plain(plain_name(g.plain_owner_pid), false);
    }
    must(ccs_barrier(), "barrier");
    if (rank == 0) shm_unlink(plain_name(getpid()).c_str());  // both have it mapped
    if (rank == 0) {
        for (int64_t which : {0, 1}) {
            const std::string suffix = which ? "_cma" : "";
            benchmark::RegisterBenchmark(("put_latency" + suffix).c_str(), put_latency)->Args({8, which})->UseRealTime();
            if (!which) {
                benchmark::RegisterBenchmark("put_latency_passive", put_latency_passive)->Args({8})->UseRealTime();
                benchmark::RegisterBenchmark("store_latency", store_latency)->Args({8})->UseRealTime();
            }
            benchmark::RegisterBenchmark(("get_latency" + suffix).c_str(), get_latency)->Args({8, which})->UseRealTime();
            for (int64_t bytes = 4096; bytes <= (16 << 20); bytes *= 4) {
                benchmark::RegisterBenchmark(("put_bandwidth" + suffix).c_str(), put_bandwidth)
                    ->Args({bytes, which})
                    ->UseRealTime();
                benchmark::RegisterBenchmark(("get_bandwidth" + suffix).c_str(), get_bandwidth)
                    ->Args({bytes, which})
                    ->UseRealTime();
            }
        }
        // pieces, bytes each, stride: a column of doubles, 40-byte records,
        // rows of patches (CCS_RMA_LAYOUT_PIECE's choice changes between
        // the last two where memory is not mapped)
        const int64_t strided_shapes[][3] = {{65536, 8, 64}, {16384, 40, 96}, {2048, 256, 512}, {1024, 1024, 2048}, {256, 4096, 8192}};
        for (const auto &a : strided_shapes) {
            benchmark::RegisterBenchmark("put_datadesc", put_datadesc)->Args({a[0], a[1], a[2], 0})->UseRealTime();
            benchmark::RegisterBenchmark("put_strided_by_hand", put_strided_by_hand)->Args({a[0], a[1], a[2]})->UseRealTime();
            benchmark::RegisterBenchmark("get_datadesc", get_datadesc)->Args({a[0], a[1], a[2], 0})->UseRealTime();
            benchmark::RegisterBenchmark("put_datadesc_cma", put_datadesc)->Args({a[0], a[1], a[2], 1})->UseRealTime();
            benchmark::RegisterBenchmark("get_datadesc_cma", get_datadesc)->Args({a[0], a[1], a[2], 1})->UseRealTime();
        }
        for (int64_t which = 0; which < windows; ++which)
            for (int64_t op : {CCS_ATOMIC_ADD, CCS_ATOMIC_SWAP, CCS_ATOMIC_CSWAP})
                benchmark::RegisterBenchmark("atomic_latency", atomic_latency)->Args({op, which})->UseRealTime();
        for (int64_t which : {0, 1})
            for (int64_t bytes : {8, 4096, 65536, 1 << 20, 4 << 20})
                benchmark::RegisterBenchmark("accumulate", accumulate)->Args({bytes, which})->UseRealTime();
        for (int64_t apart : {0, 1})
            for (const auto &[rows, bytes] : {std::pair<int64_t, int64_t>{8, 8}, {8, 4096}, {1024, 8}, {512, 512}})
                benchmark::RegisterBenchmark("accumulate_datadesc", accumulate_datadesc)
                    ->Args({rows, bytes, apart})
                    ->UseRealTime();
        benchmark::RegisterBenchmark("rcache_hit", rcache_hit)->UseRealTime();
        benchmark::RegisterBenchmark("put_issue/8", put_issue)->UseRealTime();
        benchmark::RegisterBenchmark("progress_idle", progress_idle)->UseRealTime();
        benchmark::Initialize(&argc, argv);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        must(ccs_put_sync(g.ctx, 1, &stop_value, 8, g.w[0].peer_base, g.w[0].peer_key), "stop");
    } else {
        respond();
    }
    must(ccs_barrier(), "barrier");
    munmap(g.plain, 4096);
    for (int i = 0; i < windows; ++i) must(ccs_rkey_release(g.w[i].peer_key), "release");
    must(ccs_mem_free(mem[0]), "free");
    must(ccs_mem_deregister(mem[1]), "deregister");
    if (network) must(ccs_mem_deregister(mem[2]), "deregister");
    must(ccs_context_destroy(g.ctx), "destroy");
    must(ccs_finalize(), "finalize");
    return 0;
}
