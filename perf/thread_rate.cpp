// Message rate of 8-byte active messages with several threads per process,
// each on a context of its own, at thread level multiple. A 2-process job:
//   ccsrun -n 2 build/bin/ccs_perf_thread_rate <threads> [seconds]
// Rank 0's threads each stream windows of 64 messages to rank 1 and wait
// for one acknowledgement per window; rank 1's threads make progress (a
// handler acknowledges on its context). Prints messages per second over
// all threads of rank 0.
#include "thread_pair.hpp"

#include <ccs/ccs.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

enum handler_id : uint16_t { stream = 1, ack = 2, stop = 3 };
constexpr int window = 64;

struct lane {
    ccs_context_t ctx{0};
    int streamed = 0;               // at rank 1, by its handler
    std::atomic<uint64_t> acks{0};  // at rank 0
};
std::atomic<int> g_stops{0};

void on_stream(const ccs_am_message_t *m, void *arg) {
    auto *l = static_cast<lane *>(arg);
    if (++l->streamed == window) {
        l->streamed = 0;
        ccs_am_send(m->context, m->source, ack, nullptr, 0, nullptr, 0, nullptr);
    }
}
void on_ack(const ccs_am_message_t *, void *arg) { static_cast<lane *>(arg)->acks.fetch_add(1); }
void on_stop(const ccs_am_message_t *, void *) { g_stops.fetch_add(1); }

}  // namespace

int main(int argc, char **argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
    const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
    if (threads < 1 || threads > 64 || seconds <= 0) {
        std::fprintf(stderr, "usage: %s <threads 1..64> [seconds]\n", argv[0]);
        return 2;
    }
    const int rank = init_pair_at_level_multiple();
    std::vector<std::unique_ptr<lane>> lanes;
    for (int t = 0; t < threads; ++t) {
        lanes.push_back(std::make_unique<lane>());
        const ccs_am_handler_entry_t h[3] = {
            {stream, on_stream, lanes.back().get()}, {ack, on_ack, lanes.back().get()}, {stop, on_stop, nullptr}};
        const ccs_context_params_t cp{sizeof cp, 0, "thread-rate", h, 3};
        must(ccs_context_create(&cp, &lanes.back()->ctx), "ccs_context_create");
    }
    const uint64_t payload = 0;
    std::atomic<uint64_t> sent{0};
    std::vector<std::thread> pool;
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            lane &l = *lanes[static_cast<size_t>(t)];
            if (rank == 1) {
                while (g_stops.load() < threads) ccs_progress();
                return;
            }
            uint64_t windows = 0;
            while (std::chrono::steady_clock::now() < end) {
                for (int i = 0; i < window; ++i)
                    must(ccs_am_send(l.ctx, 1, stream, nullptr, 0, &payload, sizeof payload, nullptr), "send");
                ++windows;
                while (l.acks.load() < windows) ccs_progress();
            }
            sent.fetch_add(windows * window);
            must(ccs_am_send(l.ctx, 1, stop, nullptr, 0, nullptr, 0, nullptr), "send stop");
        });
    for (auto &th : pool) th.join();
    if (rank == 0) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("threads %d: %.3f Mmsg/s\n", threads, static_cast<double>(sent.load()) / elapsed * 1e-6);
    }
    for (auto &l : lanes) ccs_context_destroy(l->ctx);
    must(ccs_finalize(), "ccs_finalize");
    return 0;
}
