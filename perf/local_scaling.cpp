// What many processes on one node cost two of them that talk: run as an
// N-process job on one node,
//   ccsrun -n N build/bin/ccs_perf_local_scaling
// ranks 0 and 1 measure once every other process is asleep (waking every
// 20 ms to look for the stop message). Prints one line:
//   processes N idle_progress_ns X one_way_us Y devshm_bytes Z devshm_idle_bytes W
// idle_progress_ns: one ccs_progress() with nothing arriving, on rank 0
//   (the best of several batches: a preemption only ever adds).
// one_way_us: half the round trip of an 8-byte AM ping-pong between ranks
//   0 and 1, the median of several batches.
// devshm_bytes: how much more of /dev/shm is in use once the two have
//   talked than before rank 0 started CCS (rank 0 is the node's first
//   process, so nothing of the job's is there before). Other users of
//   /dev/shm at the same time would count too.
// devshm_idle_bytes: the same, 8 s later, every process still polling
//   (the sleepers every 20 ms): what stays once rings fall idle.
#include "must.hpp"

#include <ccs/ccs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <sys/statvfs.h>

namespace {

enum handler_id : uint16_t { ping = 1, pong = 2, stop = 3, asleep = 4 };

volatile uint64_t g_pongs = 0;
volatile bool g_stopping = false;
volatile int g_asleep = 0;

void on_ping(const ccs_am_message_t *m, void *) {
    ccs_am_send(m->context, m->source, pong, nullptr, 0, m->payload, m->payload_size, nullptr);
}
void on_pong(const ccs_am_message_t *, void *) { g_pongs = g_pongs + 1; }
void on_stop(const ccs_am_message_t *, void *) { g_stopping = true; }
void on_asleep(const ccs_am_message_t *, void *) { g_asleep = g_asleep + 1; }

uint64_t devshm_used() {
    struct statvfs s {};
    if (::statvfs("/dev/shm", &s) != 0) return 0;
    return static_cast<uint64_t>(s.f_blocks - s.f_bfree) * s.f_frsize;
}

// Bytes of /dev/shm in use beyond `before`, from one reading.
uint64_t devshm_grown_since(uint64_t before) {
    const uint64_t now = devshm_used();
    return now - std::min(now, before);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double idle_progress_ns() {
    constexpr int calls = 1 << 20;
    double best = 1e9;
    for (int batch = 0; batch < 7; ++batch) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) ccs_progress();
        best = std::min(best, seconds_since(start) * 1e9 / calls);
    }
    return best;
}

// Waits for counts, not for changes: a ping can arrive while the other
// side is still busy elsewhere, and must still be answered exactly once.
double one_way_us(ccs_context_t ctx) {
    constexpr int batches = 9, per_batch = 20000;
    uint64_t payload = 0;
    auto batch = [&](int n) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
            const uint64_t want = g_pongs + 1;
            must(ccs_am_send(ctx, 1, ping, nullptr, 0, &payload, sizeof payload, nullptr), "ping");
            while (g_pongs < want) ccs_progress();
        }
        return seconds_since(start) * 1e6 / (2.0 * n);
    };
    batch(per_batch);  // warm-up
    std::vector<double> us;
    for (int b = 0; b < batches; ++b) us.push_back(batch(per_batch));
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

}  // namespace

int main() {
    const uint64_t devshm_before = devshm_used();
    must(ccs_init(nullptr), "ccs_init");
    int rank = 0, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    const ccs_am_handler_entry_t handlers[] = {{ping, on_ping, nullptr}, {pong, on_pong, nullptr},
                                               {stop, on_stop, nullptr}, {asleep, on_asleep, nullptr}};
    const ccs_context_params_t params{sizeof params, 0, "local-scaling", handlers, 4};
    ccs_context_t ctx;
    must(ccs_context_create(&params, &ctx), "ccs_context_create");
    if (size < 2) {
        std::fprintf(stderr, "run with two processes or more, all on one node\n");
        return 2;
    }
    if (rank == 0) {
        // Every other process is past the wire-up and asleep before anything
        // is measured.
        while (g_asleep < size - 2) ccs_progress();
        const double idle = idle_progress_ns();
        const double one_way = one_way_us(ctx);
        const uint64_t devshm = devshm_grown_since(devshm_before);
        const auto idle_start = std::chrono::steady_clock::now();
        while (seconds_since(idle_start) < 8) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ccs_progress();
        }
        const uint64_t devshm_idle = devshm_grown_since(devshm_before);
        for (int r = 1; r < size; ++r) must(ccs_am_send(ctx, r, stop, nullptr, 0, nullptr, 0, nullptr), "stop");
        std::printf("processes %d idle_progress_ns %.1f one_way_us %.3f devshm_bytes %llu devshm_idle_bytes %llu\n",
                    size, idle, one_way, static_cast<unsigned long long>(devshm),
                    static_cast<unsigned long long>(devshm_idle));
    } else if (rank == 1) {
        while (!g_stopping) ccs_progress();
    } else {
        must(ccs_am_send(ctx, 0, asleep, nullptr, 0, nullptr, 0, nullptr), "asleep");
        while (!g_stopping) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ccs_progress();
        }
    }
    must(ccs_context_destroy(ctx), "ccs_context_destroy");
    must(ccs_finalize(), "ccs_finalize");
    return 0;
}
