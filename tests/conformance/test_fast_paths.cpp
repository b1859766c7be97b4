// At thread level multiple, the common calls on a context of a thread's
// own run beside the library's lock: while one thread is held inside the
// library (a handler that waits), another still sends, puts, gets,
// fetch-adds and accumulates, into memory mapped here and, through the transport, into
// memory that is not. Which calls apply is asked of each peer's attributes.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace conformance;

namespace {

// The handler that holds its thread inside ccs_progress, and so inside the
// library, until the other thread is done or `limit` passes.
struct holder {
    std::atomic<bool> inside{false};
    std::atomic<bool> released{false};
    std::atomic<bool> released_in_time{false};
};
constexpr auto limit = std::chrono::seconds(10);

void on_hold(const ccs_am_message_t *, void *arg) {
    auto *h = static_cast<holder *>(arg);
    h->inside.store(true);
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!h->released.load() && std::chrono::steady_clock::now() < end) std::this_thread::yield();
    h->released_in_time.store(h->released.load());
}

// The left neighbour's messages, then its count of them (handler 2).
struct stream {
    std::atomic<int> received{0};
    std::atomic<int> announced{-1};
    int misordered = 0;
};
void on_numbered(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<stream *>(arg);
    if (m->args[0] != static_cast<uint64_t>(s->received.load())) ++s->misordered;
    s->received.fetch_add(1);
}
void on_announced(const ccs_am_message_t *m, void *arg) {
    static_cast<stream *>(arg)->announced.store(static_cast<int>(m->args[0]));
}

ccs_init_params_t multiple() {
    ccs_init_params_t p{};
    p.struct_size = sizeof p;
    p.thread_level = CCS_THREAD_MULTIPLE;
    return p;
}

}  // namespace

TEST(FastPaths, OwnContextCallsRunWhileAnotherThreadIsInsideTheLibrary) {
    const ccs_init_params_t p = multiple();
    ASSERT_EQ(ccs_init(&p), CCS_OK) << ccs_last_error();
    ccs_peer_attr_t attr{};
    attr.struct_size = sizeof attr;
    CCS_EXPECT_OK(ccs_peer_query(right(), &attr));
    // Each rank tests what its route to the right allows; every rank takes
    // part in the collectives alike.
    const bool sends = right() != rank() && (attr.flags & CCS_PEER_AM_CONCURRENT);
    // Mapped memory that puts and gets reach directly (not in messages).
    const uint32_t direct = CCS_PEER_MAPS_MEMORY | CCS_PEER_PUT_NATIVE | CCS_PEER_GET_NATIVE;
    const bool maps = right() != rank() && (attr.flags & direct) == direct;
    // Puts and gets through the transport's RMA, into heap memory.
    const bool transfers = right() != rank() && (attr.flags & CCS_PEER_RMA_CONCURRENT);
    // Fetch-adds on heap memory registered for network atomics.
    const bool may_add = right() != rank() && (attr.flags & CCS_PEER_NETWORK_ATOMICS_CONCURRENT);
    holder hold;
    stream in;
    scoped_context held("fast-held", {{1, on_hold, &hold}});
    scoped_context own("fast-own", {{1, on_numbered, &in}, {2, on_announced, &in}});
    window w(true);  // ccs_mem_alloc memory: mapped by peers on the node
    window heap;     // registered heap memory: the transport's RMA
    // (Registered for network atomics only where a transport carries them.)
    window words(false, (attr.flags & CCS_PEER_NETWORK_ATOMICS) ? CCS_ATOMICS_BY_NETWORK : CCS_ATOMICS_BY_CPU);
    // Whether the transport's lanes to the peer carry them out shows at the
    // first one (UCX over TCP would only emulate them: refused).
    uint64_t probe = ~uint64_t{0};
    const bool network_atomics =
        may_add && ccs_atomic_sync(own, right(), CCS_ATOMIC_FETCH, CCS_ACC_UINT64, words.slot(right(), rank()),
                                   words.key(right()), 0, 0, &probe) == CCS_OK;
    if (network_atomics) {
        EXPECT_EQ(probe, 0u);
    }

    constexpr int messages = 32;
    ccs_counter_t sent, moved, transferred, added;
    CCS_EXPECT_OK(ccs_counter_init(&added));
    CCS_EXPECT_OK(ccs_counter_init(&sent));
    CCS_EXPECT_OK(ccs_counter_init(&moved));
    CCS_EXPECT_OK(ccs_counter_init(&transferred));
    std::atomic<int> failures{0};
    uint64_t fetched = ~uint64_t{0};
    std::vector<uint8_t> out(256), back(256), heap_back(out.size());
    std::vector<uint64_t> added_fetched(4, ~uint64_t{0});
    fill_pattern(out, static_cast<uint64_t>(rank()), 3);
    std::thread other([&] {
        while (!hold.inside.load()) std::this_thread::yield();
        const ccs_completion_t on_sent{nullptr, nullptr, &sent}, on_moved{nullptr, nullptr, &moved};
        if (sends)
            for (uint64_t i = 0; i < messages; ++i)
                if (ccs_am_send(own, right(), 1, &i, 1, out.data(), 64, &on_sent) != CCS_OK) ++failures;
        if (maps) {
            const uint64_t where = w.slot(right(), rank());
            const double two = 2.0;
            if (ccs_put(own, right(), out.data(), out.size(), where, w.key(right()), &on_moved) != CCS_OK ||
                ccs_get(own, right(), back.data(), back.size(), where, w.key(right()), &on_moved) != CCS_OK ||
                ccs_atomic(own, right(), CCS_ATOMIC_ADD, CCS_ACC_UINT64, where + out.size(), w.key(right()), 5, 0,
                           &fetched, &on_moved) != CCS_OK ||
                ccs_accumulate(own, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, &two, sizeof two, where + out.size() + 8,
                               w.key(right()), nullptr, nullptr, &on_moved) != CCS_OK)
                ++failures;
        }
        // The transport may finish these later, in progress: their counter
        // is looked at once the lock is free again.
        if (transfers) {
            const ccs_completion_t on_transferred{nullptr, nullptr, &transferred};
            const uint64_t where = heap.slot(right(), rank());
            if (ccs_put(own, right(), out.data(), out.size(), where, heap.key(right()), &on_transferred) != CCS_OK ||
                ccs_get(own, right(), heap_back.data(), heap_back.size(), where + slot_bytes / 2, heap.key(right()),
                        &on_transferred) != CCS_OK)
                ++failures;
        }
        if (network_atomics) {
            const ccs_completion_t on_added{nullptr, nullptr, &added};
            for (uint64_t &f : added_fetched)
                if (ccs_atomic(own, right(), CCS_ATOMIC_ADD, CCS_ACC_UINT64, words.slot(right(), rank()),
                               words.key(right()), 7, 0, &f, &on_added) != CCS_OK)
                    ++failures;
        }
        hold.released.store(true);
    });
    // Into the handler on this thread; it returns once `other` is done.
    uint64_t none = 0;
    CCS_EXPECT_OK(ccs_am_send(held, rank(), 1, &none, 1, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return hold.inside.load() && hold.released.load(); }, 30));
    other.join();
    EXPECT_TRUE(hold.released_in_time.load())
        << "a call on the other thread waited for the lock this thread held";
    EXPECT_EQ(failures.load(), 0) << ccs_last_error();
    // Counters moved in the calls themselves: nobody polled meanwhile.
    if (sends) {
        EXPECT_EQ(sent.value, uint64_t{messages});
    }
    if (maps) {
        EXPECT_EQ(moved.value, 4u);
        EXPECT_EQ(back, out);
        EXPECT_EQ(fetched, 0u);
    }
    if (transfers) {
        CCS_EXPECT_OK(ccs_counter_wait(&transferred, 2));
        EXPECT_EQ(heap_back, std::vector<uint8_t>(out.size(), 0));  // nobody wrote there
        // The synchronous forms return done, with the data, also beside.
        std::vector<uint8_t> again(out.size());
        const uint64_t where = heap.slot(right(), rank());
        CCS_EXPECT_OK(ccs_get_sync(own, right(), again.data(), again.size(), where, heap.key(right())));
        EXPECT_EQ(again, out);
        CCS_EXPECT_OK(ccs_put_sync(own, right(), back.data(), 8, where + slot_bytes / 2, heap.key(right())));
        // Without a completion a put returns once its source is reusable.
        std::vector<uint8_t> source(out.rbegin(), out.rend());
        CCS_EXPECT_OK(ccs_put(own, right(), source.data(), source.size(), where, heap.key(right()), nullptr));
        source.assign(source.size(), 0);
        CCS_EXPECT_OK(ccs_get_sync(own, right(), again.data(), again.size(), where, heap.key(right())));
        EXPECT_EQ(again, std::vector<uint8_t>(out.rbegin(), out.rend()));
    }
    if (network_atomics) {
        CCS_EXPECT_OK(ccs_counter_wait(&added, added_fetched.size()));
        std::sort(added_fetched.begin(), added_fetched.end());
        EXPECT_EQ(added_fetched, (std::vector<uint64_t>{0, 7, 14, 21}));
        uint64_t word = 0;  // the synchronous form, beside too
        CCS_EXPECT_OK(ccs_atomic_sync(own, right(), CCS_ATOMIC_ADD, CCS_ACC_UINT64, words.slot(right(), rank()),
                                      words.key(right()), 1, 0, &word));
        EXPECT_EQ(word, 28u);
    }
    // What went arrived whole and in order (behind it on the context, the
    // count of what went).
    const uint64_t count = sends ? messages : 0;
    CCS_EXPECT_OK(ccs_am_send(own, right(), 2, &count, 1, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return in.announced.load() >= 0; }));
    EXPECT_EQ(in.received.load(), in.announced.load());
    EXPECT_EQ(in.misordered, 0);
    CCS_EXPECT_OK(ccs_barrier());
    if (maps) {  // the put, the add and the accumulate landed at the right neighbour
        std::vector<uint8_t> there(out.size() + 2 * sizeof(uint64_t));
        CCS_EXPECT_OK(ccs_get_sync(own, right(), there.data(), there.size(), w.slot(right(), rank()), w.key(right())));
        EXPECT_TRUE(std::equal(out.begin(), out.end(), there.begin()));
        uint64_t word = 0;
        std::memcpy(&word, there.data() + out.size(), sizeof word);
        EXPECT_EQ(word, 5u);
        double sum = 0;
        std::memcpy(&sum, there.data() + out.size() + 8, sizeof sum);
        EXPECT_EQ(sum, 2.0);
        uint64_t accumulates = 0;  // counted by the thread that made it
        CCS_EXPECT_OK(ccs_stats_get("rma.accumulates", &accumulates));
        EXPECT_GE(accumulates, 1u);
    }
    uint64_t sent_total = 0;
    CCS_EXPECT_OK(ccs_stats_get("am.sent", &sent_total));
    if (sends) {
        EXPECT_GE(sent_total, uint64_t{messages});
    }
    CCS_EXPECT_OK(ccs_barrier());
    CCS_EXPECT_OK(ccs_finalize());
    if (!sends && !maps && !transfers && !network_atomics)
        GTEST_SKIP() << "the route to rank " << right() << " (" << attr.transport
                     << ") neither sends nor moves RMA beside the lock, nor maps memory";
}
