// Thread levels, blocking waits that sleep, several threads calling at
// level multiple, and the progress thread serving a process that computes.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>

using namespace conformance;

namespace {

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Computes (no CCS call) for `seconds`, as an application between calls.
void compute_for(double seconds) {
    const double end = now_seconds() + seconds;
    volatile uint64_t sink = 0;
    while (now_seconds() < end)
        for (int i = 0; i < 1000; ++i) sink = sink + static_cast<uint64_t>(i);
}

ccs_init_params_t init_params(int level, uint64_t flags = 0) {
    ccs_init_params_t p{};
    p.struct_size = sizeof p;
    p.flags = flags;
    p.thread_level = level;
    return p;
}

// Raises this process to level multiple for the life of the object (one
// more ccs_init reference; the level stays, as the highest asked for).
class multiple_level {
public:
    multiple_level() {
        const ccs_init_params_t p = init_params(CCS_THREAD_MULTIPLE);
        ok_ = ccs_init(&p) == CCS_OK;
        EXPECT_TRUE(ok_) << ccs_last_error();
    }
    ~multiple_level() {
        if (ok_) {
            EXPECT_EQ(ccs_finalize(), CCS_OK) << ccs_last_error();
        }
    }

private:
    bool ok_ = false;
};

}  // namespace

TEST(ThreadLevels, TheHighestLevelAskedForIsProvided) {
    int before = -1;
    CCS_ASSERT_OK(ccs_query_thread(&before));
    EXPECT_GE(before, CCS_THREAD_SINGLE);
    EXPECT_LE(before, CCS_THREAD_MULTIPLE);
    {
        const ccs_init_params_t p = init_params(CCS_THREAD_SERIALIZED);
        CCS_ASSERT_OK(ccs_init(&p));
        int level = -1;
        CCS_EXPECT_OK(ccs_query_thread(&level));
        EXPECT_EQ(level, std::max(before, static_cast<int>(CCS_THREAD_SERIALIZED)));
        CCS_EXPECT_OK(ccs_finalize());  // one reference of several: nothing ends
    }
    {
        multiple_level raised;
        int level = -1;
        CCS_EXPECT_OK(ccs_query_thread(&level));
        EXPECT_EQ(level, CCS_THREAD_MULTIPLE);
    }
    // A runtime that asks for less later still gets multiple: others rely on it.
    const ccs_init_params_t single = init_params(CCS_THREAD_SINGLE);
    CCS_ASSERT_OK(ccs_init(&single));
    int level = -1;
    CCS_EXPECT_OK(ccs_query_thread(&level));
    EXPECT_EQ(level, CCS_THREAD_MULTIPLE);
    CCS_EXPECT_OK(ccs_finalize());
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(ThreadLevels, BadLevelsAndFlagsAreRefusedAndChangeNothing) {
    int before = -1;
    CCS_ASSERT_OK(ccs_query_thread(&before));
    for (int bad : {-1, 4, 1000}) {
        const ccs_init_params_t p = init_params(bad);
        EXPECT_EQ(ccs_init(&p), CCS_ERR_INVALID_ARG);
        EXPECT_TRUE(mentions(ccs_last_error(), "thread_level")) << ccs_last_error();
    }
    const ccs_init_params_t flags = init_params(CCS_THREAD_SINGLE, 1u << 7);
    EXPECT_EQ(ccs_init(&flags), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "flags")) << ccs_last_error();
    EXPECT_EQ(ccs_query_thread(nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "level is NULL")) << ccs_last_error();
    // A caller built before the field existed: its struct ends at flags.
    ccs_init_params_t old{};
    old.struct_size = offsetof(ccs_init_params_t, thread_level);
    old.thread_level = 99;  // not read
    CCS_EXPECT_OK(ccs_init(&old));
    CCS_EXPECT_OK(ccs_finalize());
    int after = -1;
    CCS_EXPECT_OK(ccs_query_thread(&after));
    EXPECT_EQ(after, before);
    CCS_EXPECT_OK(ccs_barrier());  // and the job still works
}

// Seconds of waiting: only in the jobs that ask for it.
bool sleeps_tested() { return std::getenv("CCS_TEST_SLEEPS") != nullptr; }

// The share of a CPU a sleeping waiter may use: a spinning one uses all of
// it. Under a sanitizer every wake-up (and the progress thread's look every
// millisecond) costs several times as much.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr double sleeping_cpu_share = 0.6;
#else
constexpr double sleeping_cpu_share = 0.25;
#endif

// Rank 0 computes for a second and a half before it joins the barrier: the
// others wait in it, and must sleep rather than burn their cores.
TEST(Waiting, AnIdleWaiterSleeps) {
    if (!sleeps_tested()) GTEST_SKIP() << "seconds of waiting: CCS_TEST_SLEEPS=1";
    CCS_ASSERT_OK(ccs_barrier());
    const double wall0 = now_seconds(), cpu0 = process_cpu_seconds();
    if (rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CCS_EXPECT_OK(ccs_barrier());
    const double wall = now_seconds() - wall0, cpu = process_cpu_seconds() - cpu0;
    if (rank() != 0) {
        EXPECT_GT(wall, 1.0);
        // Sleeping, a waiter wakes at most every CCS_WAIT_SLEEP_MAX_US (1 ms)
        // for a few µs: about 1 % of a core. A spinning one takes 100 %.
        EXPECT_LT(cpu, sleeping_cpu_share * wall) << "a waiting process used " << cpu << " s of CPU in " << wall << " s";
        EXPECT_GT(stat("progress.sleeps"), 0u);
    }
}

// Rank 0 puts a flag into rank 1's memory a second late; rank 1 waits for
// it with ccs_wait_until, which sees no event for a put and must still
// sleep, and see the flag.
TEST(Waiting, AWaitForMemorySleepsAndSeesThePut) {
    if (!sleeps_tested()) GTEST_SKIP() << "seconds of waiting: CCS_TEST_SLEEPS=1";
    scoped_context ctx("wait-for-memory");
    window w;
    uint64_t *flag = reinterpret_cast<uint64_t *>(w.local_slot(0));
    __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
    CCS_ASSERT_OK(ccs_barrier());
    if (size() > 1 && rank() == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        const uint64_t one = 1;
        CCS_EXPECT_OK(ccs_put_sync(ctx, 1, &one, sizeof one, w.slot(1, 0), w.key(1)));
    } else if (rank() == 1) {
        const double wall0 = now_seconds(), cpu0 = process_cpu_seconds();
        CCS_EXPECT_OK(ccs_wait_until(flag, CCS_UINT64, CCS_CMP_EQ, 1));
        const double wall = now_seconds() - wall0, cpu = process_cpu_seconds() - cpu0;
        EXPECT_EQ(__atomic_load_n(flag, __ATOMIC_ACQUIRE), 1u);
        EXPECT_GT(wall, 0.5);
        EXPECT_LT(cpu, sleeping_cpu_share * wall) << "waiting for memory used " << cpu << " s of CPU in " << wall << " s";
    }
    CCS_ASSERT_OK(ccs_barrier());
}

namespace {

// What one context's handler saw: messages per source in order.
struct inbox {
    std::atomic<int> received{0};
    std::vector<std::vector<uint64_t>> next;  // [source][sender thread]: the library runs one handler at a time
    int misordered = 0;
    int bad_payload = 0;
    explicit inbox(int threads = 1) : next(static_cast<size_t>(size()), std::vector<uint64_t>(static_cast<size_t>(threads), 0)) {}
};

// args: {sender thread, sequence number}; payload: pattern(source, seq).
void on_thread_sequenced(const ccs_am_message_t *m, void *arg) {
    auto *in = static_cast<inbox *>(arg);
    uint64_t &next = in->next[static_cast<size_t>(m->source)][m->args[0]];
    if (m->args[1] != next) ++in->misordered;
    next = m->args[1] + 1;
    if (!check_pattern(m->payload, m->payload_size, static_cast<uint64_t>(m->source), m->args[1])) ++in->bad_payload;
    in->received.fetch_add(1, std::memory_order_release);
}

// Sends `count` sequenced messages from thread `thread` to every rank.
int send_sequenced(ccs_context_t ctx, uint64_t thread, int count) {
    int failures = 0;
    std::vector<uint8_t> payload(48);
    for (int i = 0; i < count; ++i)
        for (int peer = 0; peer < size(); ++peer) {
            const uint64_t args[2] = {thread, static_cast<uint64_t>(i)};
            fill_pattern(payload, static_cast<uint64_t>(rank()), static_cast<uint64_t>(i));
            if (ccs_am_send(ctx, peer, 1, args, 2, payload.data(), payload.size(), nullptr) != CCS_OK) ++failures;
        }
    return failures;
}

}  // namespace

// Four threads per process, each driving its own context: AMs to every
// rank, puts and gets, and progress, all at once.
TEST(MultipleThreads, FourThreadsOnTheirOwnContexts) {
    multiple_level raised;
    constexpr int threads = 4, count = 300;
    std::vector<std::unique_ptr<inbox>> in;
    std::vector<std::unique_ptr<scoped_context>> ctx;
    for (int t = 0; t < threads; ++t) {
        in.push_back(std::make_unique<inbox>());
        ctx.push_back(std::make_unique<scoped_context>(
            "thread-own", std::vector<ccs_am_handler_entry_t>{{1, on_thread_sequenced, in.back().get()}}));
    }
    window w;
    std::atomic<int> failures{0}, mismatches{0}, timeouts{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const ccs_context_t c = *ctx[static_cast<size_t>(t)];
            failures += send_sequenced(c, 0, count);
            // A slice of the right neighbour's window per thread.
            std::vector<uint8_t> out(4096), back(4096);
            fill_pattern(out, static_cast<uint64_t>(rank()), static_cast<uint64_t>(t));
            const uint64_t where = w.slot(right(), rank()) + static_cast<uint64_t>(t) * out.size();
            if (ccs_put_sync(c, right(), out.data(), out.size(), where, w.key(right())) != CCS_OK ||
                ccs_get_sync(c, right(), back.data(), back.size(), where, w.key(right())) != CCS_OK)
                ++failures;
            else if (back != out)
                ++mismatches;
            if (!progress_until([&] { return in[static_cast<size_t>(t)]->received.load() == count * size(); }, 60))
                ++timeouts;
        });
    for (auto &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0) << ccs_last_error();
    EXPECT_EQ(mismatches.load(), 0);
    EXPECT_EQ(timeouts.load(), 0);
    for (int t = 0; t < threads; ++t) {
        EXPECT_EQ(in[static_cast<size_t>(t)]->received.load(), count * size());
        EXPECT_EQ(in[static_cast<size_t>(t)]->misordered, 0) << "context " << t;
        EXPECT_EQ(in[static_cast<size_t>(t)]->bad_payload, 0) << "context " << t;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// Four threads sending on one shared context: each sender thread's
// messages arrive in the order it sent them.
TEST(MultipleThreads, FourThreadsShareOneContext) {
    multiple_level raised;
    constexpr int threads = 4, count = 300;
    inbox in(threads);
    scoped_context ctx("thread-shared", {{1, on_thread_sequenced, &in}});
    std::atomic<int> failures{0}, timeouts{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            failures += send_sequenced(ctx, static_cast<uint64_t>(t), count);
            if (!progress_until([&] { return in.received.load() == threads * count * size(); }, 60)) ++timeouts;
        });
    for (auto &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0) << ccs_last_error();
    EXPECT_EQ(timeouts.load(), 0);
    EXPECT_EQ(in.received.load(), threads * count * size());
    EXPECT_EQ(in.misordered, 0);
    EXPECT_EQ(in.bad_payload, 0);
    CCS_EXPECT_OK(ccs_barrier());
}

// One thread waits on a counter while three others make progress: the
// operations complete whichever thread polls, and the waiter wakes.
TEST(MultipleThreads, ProgressFromSeveralThreadsWhileOneWaits) {
    multiple_level raised;
    scoped_context ctx("thread-progress");
    window w;
    std::atomic<bool> done{false};
    std::vector<std::thread> pollers;
    for (int t = 0; t < 3; ++t)
        pollers.emplace_back([&] {
            while (!done.load()) ccs_progress();
        });
    std::vector<uint8_t> out(64 * 1024), back(64 * 1024);
    fill_pattern(out, static_cast<uint64_t>(rank()), 7);
    ccs_counter_t c;
    CCS_EXPECT_OK(ccs_counter_init(&c));
    const ccs_completion_t comp{nullptr, nullptr, &c};
    const uint64_t where = w.slot(right(), rank());
    for (int i = 0; i < 16; ++i) CCS_EXPECT_OK(ccs_put(ctx, right(), out.data(), out.size(), where, w.key(right()), &comp));
    CCS_EXPECT_OK(ccs_counter_wait(&c, 16));
    CCS_EXPECT_OK(ccs_get(ctx, right(), back.data(), back.size(), where, w.key(right()), &comp));
    CCS_EXPECT_OK(ccs_counter_wait(&c, 17));
    EXPECT_EQ(back, out);
    done.store(true);
    for (auto &th : pollers) th.join();
    CCS_EXPECT_OK(ccs_barrier());
}

// How many threads of this process may run on CPU `cpu` alone (their
// Cpus_allowed_list in /proc).
static int threads_allowed_only_on(const std::string &cpu) {
    int n = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    while (const dirent *e = readdir(tasks)) {
        if (e->d_name[0] == '.') continue;
        std::ifstream status(std::string("/proc/self/task/") + e->d_name + "/status");
        for (std::string line; std::getline(status, line);)
            if (line.rfind("Cpus_allowed_list:", 0) == 0 && line.substr(line.find_last_of(" \t") + 1) == cpu) ++n;
    }
    closedir(tasks);
    return n;
}

// With the progress thread on, rank 0 computes for three seconds without a
// call while the others fetch-add into its registered memory (carried out
// by rank 0's CPU: AMs, unless a plugin maps it) and get from it; they
// must be served before rank 0 calls in again.
TEST(ProgressThread, ServesAtomicsAndGetsWhileTheTargetComputes) {
    if (stat("progress.thread") == 0) GTEST_SKIP() << "the progress thread is off (CCS_PROGRESS_THREAD=1)";
    scoped_context ctx("served-while-computing");
    window w;
    // Few operations, a long computation: on a loaded machine each waits
    // for the scheduler to run rank 0's progress thread.
    constexpr int adds = 10;
    uint64_t *word = reinterpret_cast<uint64_t *>(w.local_slot(0));
    __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    std::vector<uint8_t> source(8192);
    fill_pattern(source, 0, 42);
    // The data to get lies after the word, in rank 0's first slot (the
    // only one a job of one process has).
    constexpr size_t data_offset = 4096;
    if (rank() == 0) std::memcpy(w.local_slot(0) + data_offset, source.data(), source.size());
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        compute_for(3.0);
        // Read before any call: only the progress thread could have served.
        EXPECT_EQ(__atomic_load_n(word, __ATOMIC_ACQUIRE), static_cast<uint64_t>(adds) * static_cast<uint64_t>(size() - 1));
    } else {
        // Rank 0 is computing by then, not still in the barrier.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const double start = now_seconds();
        for (int i = 0; i < adds; ++i) {
            uint64_t old = 0;
            CCS_EXPECT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_UINT64, w.slot(0, 0), w.key(0), 1, 0, &old));
        }
        std::vector<uint8_t> got(source.size());
        CCS_EXPECT_OK(ccs_get_sync(ctx, 0, got.data(), got.size(), w.slot(0, 0) + data_offset, w.key(0)));
        EXPECT_EQ(got, source);
        EXPECT_LT(now_seconds() - start, 2.5) << "served only after the target stopped computing";
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// With the progress thread on and every process quiet, nothing arrives:
// the thread's sleeps end on their timeout alone, each longer than the
// one before up to 16 ms, since each timeout costs the application's CPU
// a context switch. At 1 ms each, a second would hold about a thousand.
TEST(ProgressThread, AQuietProcessIsWokenEverLessOften) {
    if (stat("progress.thread") == 0) GTEST_SKIP() << "the progress thread is off (CCS_PROGRESS_THREAD=1)";
    if (!sleeps_tested()) GTEST_SKIP() << "a second of quiet: CCS_TEST_SLEEPS=1";
    if (stat("progress.sleeps_sliced") != 0) GTEST_SKIP() << "a transport has no wake-up: sleeps are slices";
    CCS_ASSERT_OK(ccs_barrier());
    const uint64_t before = stat("progress.sleeps");
    const double start = now_seconds();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const uint64_t sleeps = stat("progress.sleeps") - before;
    const double quiet = now_seconds() - start;
    // 1 + 2 + 4 + 8 ms, then 16 ms each: about 65 in a second.
    EXPECT_LT(sleeps, 250u) << sleeps << " sleeps in " << quiet << " s of quiet";
    CCS_EXPECT_OK(ccs_barrier());
}

// Messages to rank 0 while it computes: a context that lets its handlers
// run on the progress thread has them run there at once, a large message
// (fragmented) included; another context's wait for rank 0's next call,
// then run on its thread, in order.
TEST(ProgressThread, HandlersRunOnItWhereTheContextAllowsAndWaitOtherwise) {
    if (stat("progress.thread") == 0) GTEST_SKIP() << "the progress thread is off (CCS_PROGRESS_THREAD=1)";
    struct seen {
        std::atomic<int> count{0};
        std::atomic<int> on_main{0};
        std::atomic<size_t> bytes{0};
        std::thread::id main = std::this_thread::get_id();
        std::vector<uint64_t> next = std::vector<uint64_t>(static_cast<size_t>(size()), 0);  // per source
        int misordered = 0;
    };
    seen eager, deferred;
    auto on_message = [](const ccs_am_message_t *m, void *arg) {
        auto *s = static_cast<seen *>(arg);
        uint64_t &next = s->next[static_cast<size_t>(m->source)];
        if (m->args[0] != next) ++s->misordered;
        next = m->args[0] + 1;
        if (std::this_thread::get_id() == s->main) s->on_main.fetch_add(1);
        s->bytes.fetch_add(m->payload_size);
        s->count.fetch_add(1, std::memory_order_release);
    };
    // ccs_info says where the thread runs (bound, or why not).
    char *text = nullptr;
    size_t text_length = 0;
    FILE *info = open_memstream(&text, &text_length);
    ASSERT_NE(info, nullptr);
    CCS_EXPECT_OK(ccs_info_print(info));
    std::fclose(info);
    const std::string printed(text, text_length);
    std::free(text);
    EXPECT_TRUE(mentions(printed, "progress thread bound to PU") || mentions(printed, "progress thread not bound: "))
        << printed.substr(0, 400);
    // Where the job says which PU is the free hyperthread (a topology with
    // SMT), the thread runs there, and on it alone.
    if (const char *pu = std::getenv("CCS_TEST_PROGRESS_PU")) {
        EXPECT_TRUE(mentions(printed, std::string("progress thread bound to PU ") + pu + ", a hyperthread"))
            << printed.substr(0, 400);
        EXPECT_EQ(threads_allowed_only_on(pu), 1) << "threads of this process allowed on CPU " << pu << " alone";
    }
    scoped_context anywhere("on-progress-thread", {{1, on_message, &eager}}, CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD);
    scoped_context app_only("on-application-thread", {{1, on_message, &deferred}});
    constexpr int count = 20;
    const int expected = size() > 1 && rank() == 0 ? count * (size() - 1) : 0;
    std::vector<uint8_t> large(1 << 20, 0x5a);
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        // What arrived while rank 0 was still in the barrier ran there.
        const int eager_before = eager.count.load(), deferred_before = deferred.count.load();
        compute_for(3.0);
        EXPECT_EQ(eager.count.load(), expected);
        EXPECT_EQ(eager.on_main.load(), eager_before);
        if (size() > 1) {
            EXPECT_GT(eager.count.load() - eager_before, 0) << "nothing ran on the progress thread";
        }
        EXPECT_EQ(deferred.count.load(), deferred_before) << "a handler ran outside the application's calls";
        EXPECT_TRUE(progress_until([&] { return deferred.count.load() == expected; }, 30));
        EXPECT_EQ(deferred.on_main.load(), expected);
    } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rank 0 computes by then
        for (int i = 0; i < count; ++i) {
            const uint64_t seq = static_cast<uint64_t>(i);
            const size_t bytes = i == count / 2 ? large.size() : 16;
            CCS_EXPECT_OK(ccs_am_send(anywhere, 0, 1, &seq, 1, large.data(), bytes, nullptr));
            CCS_EXPECT_OK(ccs_am_send(app_only, 0, 1, &seq, 1, large.data(), bytes, nullptr));
        }
    }
    CCS_EXPECT_OK(ccs_barrier());
    if (size() > 1 && rank() == 0) {
        EXPECT_EQ(eager.misordered + deferred.misordered, 0);
        EXPECT_EQ(eager.bytes.load(), deferred.bytes.load());
    }
}
