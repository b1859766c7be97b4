// Put, get, counters, fences, implicit keys and registration, on every
// plugin configuration (native RMA, forced emulation, refused CMA).
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

using namespace conformance;


class RmaMemory : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Rma, RmaMemory, window_kinds(), window_kind_name);

TEST_P(RmaMemory, PutThenGetEverySizeToTheNextRank) {
    scoped_context ctx("rma-put-get");
    window w(GetParam());
    // Counted from here: earlier tests may have sent other kinds whole.
    const uint64_t native_before = stat("rma.native"), emulated_before = stat("rma.emulated");
    for (size_t bytes : {size_t{1}, size_t{8}, size_t{100}, size_t{4096}, size_t{65537}, slot_bytes}) {
        std::vector<uint8_t> out(bytes), back(bytes, 0);
        fill_pattern(out, static_cast<uint64_t>(rank()), bytes);
        ccs_counter_t done;
        CCS_ASSERT_OK(ccs_counter_init(&done));
        const ccs_completion_t c{nullptr, nullptr, &done};
        CCS_EXPECT_OK(ccs_put(ctx, right(), out.data(), bytes, w.slot(right(), rank()), w.key(right()), &c));
        CCS_EXPECT_OK(ccs_counter_wait(&done, 1));
        CCS_EXPECT_OK(ccs_barrier());
        // What the left neighbour put is here, and nothing past it moved.
        EXPECT_TRUE(check_pattern(w.local_slot(left()), bytes, static_cast<uint64_t>(left()), bytes)) << bytes;
        // Sizes grow, so the byte after this put was never written.
        if (bytes < slot_bytes) {
            EXPECT_EQ(w.local_slot(left())[bytes], 0) << bytes;
        }
        CCS_EXPECT_OK(ccs_get(ctx, right(), back.data(), bytes, w.slot(right(), rank()), w.key(right()), &c));
        CCS_EXPECT_OK(ccs_counter_wait(&done, 2));
        EXPECT_EQ(back, out) << bytes;
        EXPECT_EQ(done.errors, 0u);
        CCS_EXPECT_OK(ccs_barrier());
    }
    // Where the configuration says how RMA must travel (CCS_TEST_RMA_PATH:
    // native = the plugin's put/get, am = the core's active messages), it did.
    if (const char *path = std::getenv("CCS_TEST_RMA_PATH")) {
        const bool native = std::string(path) == "native";
        const uint64_t native_ops = stat("rma.native") - native_before;
        const uint64_t emulated_ops = stat("rma.emulated") - emulated_before;
        EXPECT_GT(native ? native_ops : emulated_ops, 0u) << path;
        EXPECT_EQ(native ? emulated_ops : native_ops, 0u) << path;
    }
}

TEST_P(RmaMemory, CallbacksAndCountersAndSyncForms) {
    scoped_context ctx("rma-completions");
    window w(GetParam());
    struct tally {
        int calls = 0;
        ccs_status_t last = CCS_ERR_INTERNAL;
    } t;
    auto on_done = [](ccs_status_t st, void *arg) {
        auto *x = static_cast<tally *>(arg);
        ++x->calls;
        x->last = st;
    };
    ccs_counter_t counter;
    CCS_ASSERT_OK(ccs_counter_init(&counter));
    const ccs_completion_t both{on_done, &t, &counter};
    const uint64_t value = 0x1122334455667788ull + static_cast<uint64_t>(rank());
    for (int i = 0; i < 100; ++i)
        CCS_EXPECT_OK(ccs_put(ctx, right(), &value, 8, w.slot(right(), rank()) + 8 * static_cast<uint64_t>(i),
                              w.key(right()), &both));
    CCS_EXPECT_OK(ccs_counter_wait(&counter, 100));
    EXPECT_EQ(t.calls, 100);
    EXPECT_EQ(t.last, CCS_OK);
    uint64_t got = 0;
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), &got, 8, w.slot(right(), rank()) + 8 * 99, w.key(right())));
    EXPECT_EQ(got, value);
    const uint64_t other = ~value;
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &other, 8, w.slot(right(), rank()), w.key(right())));
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), &got, 8, w.slot(right(), rank()), w.key(right())));
    EXPECT_EQ(got, other);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST_P(RmaMemory, FenceCompletesEverythingIssuedBefore) {
    scoped_context ctx("rma-fence");
    window w(GetParam());
    std::vector<uint8_t> chunk(4096);
    for (int i = 0; i < 64; ++i) {
        fill_pattern(chunk, static_cast<uint64_t>(rank()), static_cast<uint64_t>(i));
        // No completion: the buffer is reusable at once, the fence covers it.
        CCS_EXPECT_OK(ccs_put(ctx, right(), chunk.data(), chunk.size(),
                              w.slot(right(), rank()) + static_cast<uint64_t>(i) * chunk.size(), w.key(right()), nullptr));
    }
    CCS_EXPECT_OK(ccs_fence(ctx, right()));
    CCS_EXPECT_OK(ccs_fence_all(ctx));
    CCS_EXPECT_OK(ccs_barrier());
    for (int i = 0; i < 64; ++i)
        EXPECT_TRUE(check_pattern(w.local_slot(left()) + static_cast<size_t>(i) * chunk.size(), chunk.size(),
                                  static_cast<uint64_t>(left()), static_cast<uint64_t>(i)))
            << "chunk " << i;
    CCS_EXPECT_OK(ccs_barrier());
}

// ccs_rkey_ptr: a pointer where the owner's memory is mapped here, loads
// and stores through it are the owner's bytes; NULL where it is not mapped
// (registered heap memory always; a ccs_mem_alloc block where the
// transport to the owner does not map, as ccs_peer_query says).
TEST_P(RmaMemory, KeyPointerIsTheOwnersMemoryOrNull) {
    scoped_context ctx("rma-key-pointer");
    window w(GetParam());
    const bool maps = (peer_flags(right()) & CCS_PEER_MAPS_MEMORY) != 0;
    void *p = &p;
    const ccs_status_t st = ccs_rkey_ptr(w.key(right()), w.slot(right(), rank()), 8, &p);
    if (size() == 1) {
        CCS_EXPECT_OK(st);
        EXPECT_EQ(p, reinterpret_cast<void *>(w.slot(rank(), rank())));  // its own memory
    } else if (!GetParam() || !maps) {
        // Not mapped: no pointer, and the reason.
        EXPECT_EQ(st, CCS_ERR_UNSUPPORTED);
        EXPECT_EQ(p, nullptr);
        EXPECT_NE(std::string(ccs_last_error()).find("is not mapped in this process: "), std::string::npos)
            << ccs_last_error();
    } else {
        CCS_EXPECT_OK(st);
        EXPECT_NE(p, nullptr);
    }
    const uint64_t mine = 0x5150000000000000ull + static_cast<uint64_t>(rank());
    if (p) std::memcpy(p, &mine, 8);
    else CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &mine, 8, w.slot(right(), rank()), w.key(right())));
    CCS_ASSERT_OK(ccs_barrier());
    uint64_t seen = 0;
    std::memcpy(&seen, w.local_slot(left()), 8);
    EXPECT_EQ(seen, 0x5150000000000000ull + static_cast<uint64_t>(left()));
    // The owner changes its bytes; a load through the pointer sees them.
    const uint64_t changed = ~seen;
    std::memcpy(w.local_slot(left()), &changed, 8);
    CCS_ASSERT_OK(ccs_barrier());
    if (p) {
        std::memcpy(&seen, p, 8);
        EXPECT_EQ(seen, ~mine);
    }
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), &seen, 8, w.slot(right(), rank()), w.key(right())));
    EXPECT_EQ(seen, ~mine);
    // Bad input: nothing returned but the error, and the key still works.
    EXPECT_EQ(ccs_rkey_ptr(w.key(right()), w.slot(right(), rank()), 8, nullptr), CCS_ERR_INVALID_ARG);
    void *q = &q;
    const uint64_t end = w.slot(right(), size());  // one past the region
    EXPECT_EQ(ccs_rkey_ptr(w.key(right()), end - 4, 8, &q), CCS_ERR_OUT_OF_RANGE);
    EXPECT_EQ(q, nullptr);
    q = &q;
    EXPECT_EQ(ccs_rkey_ptr(CCS_RKEY_IMPLICIT, w.slot(right(), rank()), 8, &q), CCS_ERR_INVALID_KEY);
    EXPECT_EQ(q, nullptr);
    EXPECT_EQ(ccs_rkey_ptr(ccs_rkey_t{0x7fffffffull}, w.slot(right(), rank()), 8, &q), CCS_ERR_INVALID_KEY);
    void *again = &again;
    EXPECT_EQ(ccs_rkey_ptr(w.key(right()), w.slot(right(), rank()), 8, &again), st);
    EXPECT_EQ(again, p);
    CCS_EXPECT_OK(ccs_barrier());
}

// ccs_wait_until on a flag put after the data: the waiter sees the flag,
// then the data; 32-bit and signed words too; bad input changes nothing.
TEST_P(RmaMemory, WaitUntilSeesTheFlagThenTheDataBeforeIt) {
    scoped_context ctx("rma-wait");
    window w(GetParam());
    // In each slot: [0] a 64-bit flag, [8] a 32-bit one, data from 64.
    std::vector<uint8_t> data(4096);
    fill_pattern(data, static_cast<uint64_t>(rank()), 7);
    const uint64_t to = w.slot(right(), rank());
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), data.data(), data.size(), to + 64, w.key(right())));
    const uint64_t flag = 100 + static_cast<uint64_t>(rank());
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &flag, 8, to, w.key(right())));
    const int32_t minus = -1 - rank();
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &minus, 4, to + 8, w.key(right())));
    uint8_t *mine = w.local_slot(left());
    CCS_EXPECT_OK(ccs_wait_until(mine, CCS_UINT64, CCS_CMP_EQ, 100 + static_cast<uint64_t>(left())));
    EXPECT_TRUE(check_pattern(mine + 64, data.size(), static_cast<uint64_t>(left()), 7));
    CCS_EXPECT_OK(ccs_wait_until(mine + 8, CCS_INT32, CCS_CMP_LT, 0));
    CCS_EXPECT_OK(ccs_wait_until(mine + 8, CCS_INT32, CCS_CMP_EQ, static_cast<uint64_t>(int64_t{-1} - left())));
    CCS_EXPECT_OK(ccs_wait_until(mine, CCS_INT64, CCS_CMP_GE, 100));  // already true: at once
    // Bad input: refused, the flag untouched, the next wait fine.
    EXPECT_EQ(ccs_wait_until(nullptr, CCS_UINT64, CCS_CMP_EQ, 0), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_wait_until(mine + 4, CCS_UINT64, CCS_CMP_EQ, 0), CCS_ERR_INVALID_ARG);  // misaligned
    EXPECT_EQ(ccs_wait_until(mine + 2, CCS_INT32, CCS_CMP_EQ, 0), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_wait_until(mine, 9, CCS_CMP_EQ, 0), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_wait_until(mine, -1, CCS_CMP_EQ, 0), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_wait_until(mine, CCS_UINT64, 9, 0), CCS_ERR_INVALID_ARG);
    EXPECT_NE(std::string(ccs_last_error()).find("cmp 9"), std::string::npos) << ccs_last_error();
    // From a handler it would wait for progress that cannot run there.
    struct in_handler {
        const void *word;
        ccs_status_t status = CCS_OK;
        bool ran = false;
    } h{mine};
    scoped_context hctx("rma-wait-handler", {{1,
                                              [](const ccs_am_message_t *, void *arg) {
                                                  auto *s = static_cast<in_handler *>(arg);
                                                  s->status = ccs_wait_until(s->word, CCS_UINT64, CCS_CMP_EQ, 0);
                                                  s->ran = true;
                                              },
                                              &h}});
    CCS_EXPECT_OK(ccs_am_send(hctx, rank(), 1, nullptr, 0, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return h.ran; }));
    EXPECT_EQ(h.status, CCS_ERR_IN_HANDLER);
    uint64_t seen = 0;
    std::memcpy(&seen, mine, 8);
    EXPECT_EQ(seen, 100 + static_cast<uint64_t>(left()));
    CCS_EXPECT_OK(ccs_wait_until(mine, CCS_UINT64, CCS_CMP_NE, 0));
    CCS_EXPECT_OK(ccs_barrier());  // nobody's window goes while a put to it may run
}

TEST(Rma, ImplicitKeysReachRegisteredMemoryOnly) {
    scoped_context ctx("rma-implicit");
    window w;
    std::vector<uint8_t> unregistered(4096, 0xEE);
    const uint64_t requests_before = stat("rma.key_requests");
    const uint64_t value = 4242 + static_cast<uint64_t>(rank());
    for (int i = 0; i < 10; ++i)
        CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &value, 8, w.slot(right(), rank()) + 8 * static_cast<uint64_t>(i),
                                   CCS_RKEY_IMPLICIT));
    // One request for the key, then the cache.
    EXPECT_EQ(stat("rma.key_requests") - requests_before, right() == rank() ? 0u : 1u);
    uint64_t got = 0;
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), &got, 8, w.slot(right(), rank()) + 72, CCS_RKEY_IMPLICIT));
    EXPECT_EQ(got, value);
    // Memory the target never registered stays out of reach.
    const uint64_t remote_unregistered = reinterpret_cast<uintptr_t>(unregistered.data());
    std::vector<uint64_t> addresses(static_cast<size_t>(size()));
    struct gather {
        std::vector<uint64_t> *at;
        int count = 0;
    } g{&addresses};
    scoped_context ex("rma-addresses", {{1,
                                         [](const ccs_am_message_t *m, void *arg) {
                                             auto *x = static_cast<gather *>(arg);
                                             (*x->at)[static_cast<size_t>(m->source)] = m->args[0];
                                             ++x->count;
                                         },
                                         &g}});
    for (int t = 0; t < size(); ++t) CCS_EXPECT_OK(ccs_am_send(ex, t, 1, &remote_unregistered, 1, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return g.count == size(); }));
    CCS_EXPECT_OK(ccs_barrier());
    const uint64_t junk = 0;
    const ccs_status_t st =
        ccs_put_sync(ctx, right(), &junk, 8, addresses[static_cast<size_t>(right())], CCS_RKEY_IMPLICIT);
    EXPECT_EQ(st, CCS_ERR_NOT_REGISTERED) << ccs_strerror(st);
    CCS_EXPECT_OK(ccs_barrier());
    for (uint8_t b : unregistered) ASSERT_EQ(b, 0xEE) << "a put reached unregistered memory";
    CCS_EXPECT_OK(ccs_barrier());
    // Memory reached by implicit key, then deregistered: the others drop
    // the key, and the next access is refused.
    ccs_mem_t late{};
    CCS_ASSERT_OK(ccs_mem_register(unregistered.data(), unregistered.size(), &late));
    CCS_EXPECT_OK(ccs_barrier());
    const uint64_t target_buffer = addresses[static_cast<size_t>(right())];
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &junk, 8, target_buffer, CCS_RKEY_IMPLICIT));
    // Counted before the barrier: a fast owner may revoke while we are in it.
    const uint64_t revoked = stat("rma.keys_revoked");
    CCS_EXPECT_OK(ccs_barrier());
    CCS_EXPECT_OK(ccs_mem_deregister(late));
    if (right() != rank()) {
        EXPECT_TRUE(progress_until([&] { return stat("rma.keys_revoked") > revoked; }, 30));
        const ccs_status_t again = ccs_put_sync(ctx, right(), &junk, 8, target_buffer, CCS_RKEY_IMPLICIT);
        EXPECT_EQ(again, CCS_ERR_NOT_REGISTERED) << ccs_strerror(again);
    }
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(Rma, RegistrationCacheCountsHitsNotPluginCalls) {
    // Static: heap memory may reuse pages an earlier window registered,
    // which the cache (rightly) still holds.
    alignas(4096) static uint8_t storage[1 << 20];
    const std::vector<uint8_t>::size_type n = sizeof storage;
    struct {
        uint8_t *data() { return storage; }
        size_t size() const { return n; }
        size_t n;
    } buffer{n};
    const uint64_t registrations = stat("rcache.registrations"), hits = stat("rcache.hits");
    ccs_mem_t a{}, b{}, c{};
    CCS_ASSERT_OK(ccs_mem_register(buffer.data(), buffer.size(), &a));
    CCS_ASSERT_OK(ccs_mem_register(buffer.data() + 4096, 8192, &b));  // inside: a hit
    EXPECT_EQ(stat("rcache.registrations") - registrations, 1u);
    EXPECT_EQ(stat("rcache.hits") - hits, 1u);
    CCS_EXPECT_OK(ccs_mem_deregister(a));
    CCS_EXPECT_OK(ccs_mem_deregister(b));
    CCS_ASSERT_OK(ccs_mem_register(buffer.data(), 64, &c));  // lazily kept: still a hit
    EXPECT_EQ(stat("rcache.registrations") - registrations, 1u);
    CCS_EXPECT_OK(ccs_mem_deregister(c));
    EXPECT_EQ(ccs_mem_deregister(c), CCS_ERR_INVALID_MEMORY);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST_P(RmaMemory, BadInputIsRefusedAndDamagesNothing) {
    scoped_context ctx("rma-bad-input");
    window w(GetParam());
    const uint64_t value = 7;
    uint64_t got = 0;
    const ccs_rkey_t k = w.key(right());
    const uint64_t end = w.slot(right(), size());  // one past the window
    std::memset(w.local_slot(left()), 0x5A, 64);
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_EQ(ccs_put(ctx, right(), &value, 8, end - 4, k, nullptr), CCS_ERR_OUT_OF_RANGE);
    EXPECT_EQ(ccs_get(ctx, right(), &got, 8, w.slot(right(), 0) - 8, k, nullptr), CCS_ERR_OUT_OF_RANGE);
    EXPECT_EQ(ccs_put(ctx, size(), &value, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_put(ctx, -1, &value, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_put(ccs_context_t{60000}, right(), &value, 8, w.slot(right(), rank()), k, nullptr),
              CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_put(ctx, right(), nullptr, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_get(ctx, right(), nullptr, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_ARG);
    ccs_context_t doomed{0};
    CCS_ASSERT_OK(ccs_context_create(nullptr, &doomed));
    CCS_ASSERT_OK(ccs_context_destroy(doomed));
    EXPECT_EQ(ccs_put(doomed, right(), &value, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_get(doomed, right(), &got, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_CONTEXT);
    // Empty operations are fine anywhere in the region, even at its end,
    // and complete like any other.
    ccs_counter_t empty;
    CCS_ASSERT_OK(ccs_counter_init(&empty));
    const ccs_completion_t count_empty{nullptr, nullptr, &empty};
    CCS_EXPECT_OK(ccs_put(ctx, right(), &value, 0, end, k, &count_empty));
    CCS_EXPECT_OK(ccs_get(ctx, right(), &got, 0, w.slot(right(), rank()), k, &count_empty));
    CCS_EXPECT_OK(ccs_counter_wait(&empty, 2));
    EXPECT_EQ(ccs_put(ctx, right(), &value, 8, w.slot(right(), rank()), ccs_rkey_t{999999}, nullptr),
              CCS_ERR_INVALID_KEY);
    if (size() > 1) {  // a key used for a rank that did not pack it
        EXPECT_EQ(ccs_put(ctx, rank(), &value, 8, w.slot(right(), rank()), k, nullptr), CCS_ERR_INVALID_KEY);
    }
    const uint8_t junk[16] = {1, 2, 3};
    ccs_rkey_t bad{};
    EXPECT_EQ(ccs_rkey_unpack(right(), junk, sizeof junk, &bad), CCS_ERR_INVALID_KEY);
    EXPECT_EQ(ccs_rkey_unpack(size(), junk, sizeof junk, &bad), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_rkey_release(ccs_rkey_t{999999}), CCS_ERR_INVALID_KEY);
    EXPECT_EQ(ccs_mem_deregister(ccs_mem_t{999999}), CCS_ERR_INVALID_MEMORY);
    size_t length = 0;
    EXPECT_EQ(ccs_rkey_pack(ccs_mem_t{999999}, nullptr, &length), CCS_ERR_INVALID_MEMORY);
    EXPECT_EQ(ccs_mem_register(nullptr, 8, nullptr), CCS_ERR_INVALID_ARG);
    // Ranges that cannot be memory: past the end of the address space,
    // mostly unmapped, or a page never mapped. Nothing is registered.
    {
        uint8_t here[64];
        ccs_mem_t untouched{4242};
        EXPECT_EQ(ccs_mem_register(here, SIZE_MAX, &untouched), CCS_ERR_INVALID_MEMORY);
        EXPECT_TRUE(std::strstr(ccs_last_error(), "address space")) << ccs_last_error();
        EXPECT_EQ(ccs_mem_register(here, SIZE_MAX / 2, &untouched), CCS_ERR_INVALID_MEMORY);
        EXPECT_TRUE(std::strstr(ccs_last_error(), "not all mapped")) << ccs_last_error();
        // The address space's second page: nothing maps there unasked.
        EXPECT_EQ(ccs_mem_register(reinterpret_cast<void *>(uintptr_t{0x1000}), 64, &untouched),
                  CCS_ERR_INVALID_MEMORY);
        EXPECT_EQ(untouched.id, 4242u);
        ccs_mem_t fine{};
        CCS_EXPECT_OK(ccs_mem_register(here, sizeof here, &fine));
        CCS_EXPECT_OK(ccs_mem_deregister(fine));
    }
    CCS_EXPECT_OK(ccs_barrier());
    // Nothing landed, and the job still works.
    for (int i = 0; i < 64; ++i) EXPECT_EQ(w.local_slot(left())[i], 0x5A);
    CCS_EXPECT_OK(ccs_barrier());  // everyone has looked before anyone writes
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &value, 8, w.slot(right(), rank()), k));
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), &got, 8, w.slot(right(), rank()), k));
    EXPECT_EQ(got, value);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {

// Layouts both sides build the same way; each holds `bytes` data bytes.
struct shape {
    const char *name;
    ccs_datadesc_t dd = nullptr;
    int64_t count = 1;
};

std::vector<shape> shapes() {
    std::vector<shape> out;
    auto add = [&](const char *name, ccs_datadesc_t dd, int64_t count) {
        EXPECT_EQ(ccs_datadesc_commit(dd), CCS_OK) << name;
        out.push_back({name, dd, count});
    };
    ccs_datadesc_t dd = nullptr;
    ccs_datadesc_vector(512, 3, 7, CCS_BYTE, &dd);  // 1536 bytes
    add("vector", dd, 1);
    const int64_t bl[] = {100, 1, 435, 1000}, disp[] = {3000, 0, 17, 1500};  // 1536 bytes, unsorted
    ccs_datadesc_hindexed(4, bl, disp, CCS_BYTE, &dd);
    add("hindexed", dd, 1);
    const int64_t sizes[] = {8, 16, 48}, sub[] = {4, 8, 12}, starts[] = {2, 3, 20};  // 384 bytes
    ccs_datadesc_subarray(3, sizes, sub, starts, CCS_ORDER_C, CCS_BYTE, &dd);
    add("subarray", dd, 4);
    const int64_t sbl[] = {8, 4, 3, 1}, sdisp[] = {0, 8, 12, 24};  // 16 bytes in 40
    const ccs_datadesc_t types[] = {CCS_BYTE, CCS_BYTE, CCS_BYTE, CCS_BYTE};
    ccs_datadesc_t one = nullptr;
    ccs_datadesc_struct(4, sbl, sdisp, types, &one);
    ccs_datadesc_resized(one, 0, 40, &dd);
    ccs_datadesc_free(&one);
    add("struct", dd, 96);
    return out;
}

void free_shapes(std::vector<shape> &all) {
    for (auto &s : all) ccs_datadesc_free(&s.dd);
}

}  // namespace

TEST_P(RmaMemory, DatadescOnBothSidesWithDifferentCounts) {
    scoped_context ctx("rma-datadesc");
    window w(GetParam());
    auto all = shapes();
    const int64_t bytes = 1536;
    for (size_t a = 0; a < all.size(); ++a) {
        const size_t b = (a + 1) % all.size();  // remote layout differs from the local one
        // The stream: what the local layout packs from a patterned source.
        std::vector<uint8_t> source(64 << 10), stream(static_cast<size_t>(bytes)), expected(slot_bytes, 0);
        fill_pattern(source, static_cast<uint64_t>(rank()), a);
        int64_t done = 0;
        CCS_ASSERT_OK(ccs_datadesc_pack(source.data(), all[a].count, all[a].dd, 0, stream.data(), bytes, &done));
        ASSERT_EQ(done, bytes) << all[a].name;
        std::memset(w.local_slot(left()), 0, 64 << 10);
        CCS_EXPECT_OK(ccs_barrier());
        CCS_EXPECT_OK(ccs_put_datadesc(ctx, right(), source.data(), all[a].count, all[a].dd, w.slot(right(), rank()),
                                       all[b].count, all[b].dd, w.key(right()), nullptr));
        CCS_EXPECT_OK(ccs_fence_global(ctx));
        // Here: the left neighbour's stream, laid out by layout b.
        std::vector<uint8_t> theirs(64 << 10), their_stream(static_cast<size_t>(bytes)), want(64 << 10, 0);
        fill_pattern(theirs, static_cast<uint64_t>(left()), a);
        CCS_ASSERT_OK(ccs_datadesc_pack(theirs.data(), all[a].count, all[a].dd, 0, their_stream.data(), bytes, &done));
        CCS_ASSERT_OK(ccs_datadesc_unpack(their_stream.data(), bytes, want.data(), all[b].count, all[b].dd, 0, &done));
        EXPECT_EQ(std::memcmp(w.local_slot(left()), want.data(), want.size()), 0)
            << all[a].name << " -> " << all[b].name;
        // And back: get layout b remotely into contiguous bytes.
        std::vector<uint8_t> back(static_cast<size_t>(bytes), 0);
        CCS_EXPECT_OK(ccs_get_datadesc(ctx, right(), back.data(), bytes, CCS_BYTE, w.slot(right(), rank()),
                                       all[b].count, all[b].dd, w.key(right()), nullptr));
        CCS_EXPECT_OK(ccs_fence(ctx, right()));
        EXPECT_EQ(back, stream) << all[b].name;
        CCS_EXPECT_OK(ccs_barrier());
    }
    int64_t one_byte = 1;
    EXPECT_EQ(ccs_put_datadesc(ctx, right(), &one_byte, 1, CCS_BYTE, w.slot(right(), rank()), 2, CCS_BYTE,
                               w.key(right()), nullptr),
              CCS_ERR_INVALID_ARG);  // 1 byte here, 2 there
    free_shapes(all);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(Rma, NotifyHandlersRunAfterTheDataLanded) {
    struct seen {
        int puts = 0, gets = 0, wrong = 0;
    } s;
    auto on_put = [](const ccs_am_message_t *m, void *arg) {
        auto *x = static_cast<seen *>(arg);
        // The data is already here when the handler runs.
        uint64_t landed = 0;
        std::memcpy(&landed, reinterpret_cast<const void *>(m->args[1]), 8);
        if (landed != m->args[0]) ++x->wrong;
        ++x->puts;
    };
    auto on_get = [](const ccs_am_message_t *m, void *arg) {
        auto *x = static_cast<seen *>(arg);
        if (m->nargs != 1 || m->args[0] != 77) ++x->wrong;
        ++x->gets;
    };
    scoped_context ctx("rma-notify", {{3, on_put, &s}, {4, on_get, &s}});
    window w;
    for (uint64_t i = 0; i < 20; ++i) {
        const uint64_t value = (static_cast<uint64_t>(rank()) << 32) | i;
        const uint64_t at = w.slot(right(), rank()) + 8 * i;
        const uint64_t args[2] = {value, at};
        CCS_EXPECT_OK(ccs_put_notify(ctx, right(), &value, 8, at, w.key(right()), 3, args, 2, nullptr));
    }
    uint64_t got = 0;
    const uint64_t tag = 77;
    ccs_counter_t done;
    CCS_ASSERT_OK(ccs_counter_init(&done));
    const ccs_completion_t c{nullptr, nullptr, &done};
    CCS_EXPECT_OK(ccs_get_notify(ctx, right(), &got, 8, w.slot(right(), rank()), w.key(right()), 4, &tag, 1, &c));
    CCS_EXPECT_OK(ccs_counter_wait(&done, 1));
    EXPECT_EQ(got, static_cast<uint64_t>(rank()) << 32);
    EXPECT_TRUE(progress_until([&] { return s.puts == 20 && s.gets == 1; }));
    EXPECT_EQ(s.wrong, 0);
    EXPECT_EQ(ccs_put_notify(ctx, right(), &got, 8, w.slot(right(), rank()), w.key(right()), CCS_AM_MAX_HANDLERS,
                             nullptr, 0, nullptr),
              CCS_ERR_INVALID_HANDLER);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST_P(RmaMemory, LargeStridedLayoutsBothWays) {
    scoped_context ctx("rma-large-datadesc");
    window w(GetParam());
    ccs_datadesc_t narrow = nullptr, wide = nullptr;  // 1 MiB of data each
    CCS_ASSERT_OK(ccs_datadesc_vector(65536, 16, 24, CCS_BYTE, &narrow));
    CCS_ASSERT_OK(ccs_datadesc_vector(32768, 32, 40, CCS_BYTE, &wide));
    CCS_ASSERT_OK(ccs_datadesc_commit(narrow));
    CCS_ASSERT_OK(ccs_datadesc_commit(wide));
    std::vector<uint8_t> source(24 * 65536), stream(slot_bytes), back(40 * 32768, 0), back_stream(slot_bytes);
    fill_pattern(source, static_cast<uint64_t>(rank()), 9);
    int64_t done = 0;
    CCS_ASSERT_OK(ccs_datadesc_pack(source.data(), 1, narrow, 0, stream.data(), slot_bytes, &done));
    // Strided here, contiguous there; then contiguous there, another stride here.
    CCS_EXPECT_OK(ccs_put_datadesc(ctx, right(), source.data(), 1, narrow, w.slot(right(), rank()),
                                   static_cast<int64_t>(slot_bytes), CCS_BYTE, w.key(right()), nullptr));
    CCS_EXPECT_OK(ccs_fence(ctx, right()));
    CCS_EXPECT_OK(ccs_get_datadesc(ctx, right(), back.data(), 1, wide, w.slot(right(), rank()),
                                   static_cast<int64_t>(slot_bytes), CCS_BYTE, w.key(right()), nullptr));
    CCS_EXPECT_OK(ccs_fence(ctx, right()));
    CCS_ASSERT_OK(ccs_datadesc_pack(back.data(), 1, wide, 0, back_stream.data(), slot_bytes, &done));
    EXPECT_EQ(back_stream, stream);
    for (size_t i = 0; i < back.size(); i += 40)  // the gaps stayed untouched
        ASSERT_EQ(std::memcmp(back.data() + i + 32, "\0\0\0\0\0\0\0\0", 8), 0) << i;
    ccs_datadesc_free(&narrow);
    ccs_datadesc_free(&wide);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {

// `count` elements of `dd` at `mem` packed.
std::vector<uint8_t> packed(const uint8_t *mem, int64_t count, ccs_datadesc_t dd) {
    int64_t size = 0, done = 0;
    EXPECT_EQ(ccs_datadesc_size(dd, &size), CCS_OK);
    std::vector<uint8_t> out(static_cast<size_t>(size * count));
    EXPECT_EQ(ccs_datadesc_pack(mem, count, dd, 0, out.data(), size * count, &done), CCS_OK);
    return out;
}

// `stream` unpacked into `count` elements of `dd` at `origin` of a
// buffer of `bytes` bytes holding `fill`.
std::vector<uint8_t> unpacked(const std::vector<uint8_t> &stream, int64_t count, ccs_datadesc_t dd, size_t origin,
                              size_t bytes, uint8_t fill) {
    std::vector<uint8_t> out(bytes, fill);
    int64_t done = 0;
    EXPECT_EQ(ccs_datadesc_unpack(stream.data(), static_cast<int64_t>(stream.size()), out.data() + origin, count, dd,
                                  0, &done),
              CCS_OK);
    return out;
}

}  // namespace

// Where the target's memory is mapped here the data goes from one layout
// straight into the other: contiguous on either side, both strided in a
// few bytes or in many chunks, a layout reaching below its address, a
// callback; elsewhere the same calls travel whole for the target to
// unpack, or piece by piece (CCS_RMA_LAYOUT_PIECE=0). The gaps stay as
// they were, and a layout reaching past the key's region is refused
// before anything moves.
TEST_P(RmaMemory, DatadescPutAndGetEveryKindOfLayoutPair) {
    scoped_context ctx("rma-datadesc-pairs");
    window w(GetParam());
    struct pair_case {
        const char *name;
        ccs_datadesc_t here, there;
        int64_t here_count, there_count;
    };
    auto vector = [](int64_t count, int64_t block, int64_t stride) {
        ccs_datadesc_t dd = nullptr;
        EXPECT_EQ(ccs_datadesc_hvector(count, block, stride, CCS_BYTE, &dd), CCS_OK);
        EXPECT_EQ(ccs_datadesc_commit(dd), CCS_OK);
        return dd;
    };
    auto backward_elements = [] {  // 8 bytes each, 16 bytes before the one before
        ccs_datadesc_t eight = nullptr, dd = nullptr;
        EXPECT_EQ(ccs_datadesc_contiguous(8, CCS_BYTE, &eight), CCS_OK);
        EXPECT_EQ(ccs_datadesc_resized(eight, 0, -16, &dd), CCS_OK);
        EXPECT_EQ(ccs_datadesc_commit(dd), CCS_OK);
        ccs_datadesc_free(&eight);
        return dd;
    };
    const size_t origin = 4096;  // of the remote layouts in the slot: room below for a backward one
    std::vector<pair_case> cases = {
        {"contiguous here, strided there", CCS_BYTE, vector(700, 3, 7), 2100, 1},
        {"strided here, contiguous there", vector(700, 3, 7), CCS_BYTE, 1, 2100},
        {"a few bytes strided on both sides", vector(100, 3, 5), vector(75, 4, 9), 1, 1},
        {"many chunks strided on both sides", vector(30000, 3, 5), vector(22500, 4, 6), 1, 1},
        {"backwards there", vector(128, 4, 6), vector(64, 8, -24), 1, 1},
        {"elements backwards there", vector(128, 4, 6), backward_elements(), 1, 64},
    };
    const size_t span = 256 << 10;  // of every layout above, from its origin
    const uint64_t by_layout_before = stat("rma.by_layout");
    for (const pair_case &c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<uint8_t> source(span);
        fill_pattern(source, static_cast<uint64_t>(rank()), 17);
        const std::vector<uint8_t> stream = packed(source.data(), c.here_count, c.here);
        std::memset(w.local_slot(left()), 0, span);
        CCS_EXPECT_OK(ccs_barrier());
        int callbacks = 0;
        const ccs_completion_t with_callback{[](ccs_status_t st, void *arg) { *static_cast<int *>(arg) += st == CCS_OK; },
                                             &callbacks, nullptr};
        CCS_EXPECT_OK(ccs_put_datadesc(ctx, right(), source.data(), c.here_count, c.here,
                                       w.slot(right(), rank()) + origin, c.there_count, c.there, w.key(right()),
                                       &with_callback));
        EXPECT_TRUE(progress_until([&] { return callbacks == 1; }));
        CCS_EXPECT_OK(ccs_barrier());
        // Here: the left neighbour's stream in the remote layout, zeros around it.
        std::vector<uint8_t> theirs(span);
        fill_pattern(theirs, static_cast<uint64_t>(left()), 17);
        const auto want = unpacked(packed(theirs.data(), c.here_count, c.here), c.there_count, c.there, origin, span, 0);
        EXPECT_EQ(std::memcmp(w.local_slot(left()), want.data(), span), 0);
        // Back into this side's layout, over bytes that must stay 0xA5 between its pieces.
        std::vector<uint8_t> back(span, 0xA5);
        ccs_counter_t done;
        CCS_ASSERT_OK(ccs_counter_init(&done));
        const ccs_completion_t counted{nullptr, nullptr, &done};
        CCS_EXPECT_OK(ccs_get_datadesc(ctx, right(), back.data(), c.here_count, c.here,
                                       w.slot(right(), rank()) + origin, c.there_count, c.there, w.key(right()),
                                       &counted));
        CCS_EXPECT_OK(ccs_counter_wait(&done, 1));
        EXPECT_EQ(done.errors, 0u);
        EXPECT_EQ(back, unpacked(stream, c.here_count, c.here, 0, span, 0xA5));
        CCS_EXPECT_OK(ccs_barrier());
    }
    // Pieces of a few bytes to memory that is not mapped here travel whole
    // in active messages (unless CCS_RMA_LAYOUT_PIECE=0 says never).
    const char *piece_limit = std::getenv("CCS_RMA_LAYOUT_PIECE");
    if (!GetParam() && size() > 1 && !(piece_limit && std::string(piece_limit) == "0")) {
        EXPECT_GE(stat("rma.by_layout") - by_layout_before, 2 * cases.size());
    }
    // Pieces of 4 KiB, from contiguous bytes (one piece, not 8192), go by
    // the transport's own RMA where it has it.
    const char *path = std::getenv("CCS_TEST_RMA_PATH");
    if (!GetParam() && size() > 1 && path && std::string(path) == "native") {
        ccs_datadesc_t rows = vector(2, 4096, 8192);
        std::vector<uint8_t> two_rows(8192, 7);
        const uint64_t by_layout = stat("rma.by_layout");
        ccs_counter_t done;
        CCS_ASSERT_OK(ccs_counter_init(&done));
        const ccs_completion_t counted{nullptr, nullptr, &done};
        CCS_EXPECT_OK(ccs_put_datadesc(ctx, right(), two_rows.data(), 8192, CCS_BYTE, w.slot(right(), rank()), 1, rows,
                                       w.key(right()), &counted));
        CCS_EXPECT_OK(ccs_counter_wait(&done, 1));
        EXPECT_EQ(stat("rma.by_layout"), by_layout);
        ccs_datadesc_free(&rows);
        CCS_EXPECT_OK(ccs_barrier());
    }
    // Layouts reaching outside the key's region: below its start (the
    // backward layouts 8 bytes into the window) and past its end.
    for (size_t from = 0; from < static_cast<size_t>(size()); ++from)
        std::memset(w.local_slot(static_cast<int>(from)), 0x5A, slot_bytes);
    CCS_EXPECT_OK(ccs_barrier());
    std::vector<uint8_t> source(span, 1), back(span, 2);
    const uint64_t window_start = w.slot(right(), 0), window_end = w.slot(right(), size());
    for (size_t i = cases.size() - 2; i < cases.size(); ++i) {
        const pair_case &backwards = cases[i];
        SCOPED_TRACE(backwards.name);
        EXPECT_EQ(ccs_put_datadesc(ctx, right(), source.data(), backwards.here_count, backwards.here, window_start + 8,
                                   backwards.there_count, backwards.there, w.key(right()), nullptr),
                  CCS_ERR_OUT_OF_RANGE);
        EXPECT_EQ(ccs_get_datadesc(ctx, right(), back.data(), backwards.here_count, backwards.here, window_start + 8,
                                   backwards.there_count, backwards.there, w.key(right()), nullptr),
                  CCS_ERR_OUT_OF_RANGE);
    }
    const pair_case &strided = cases[0];
    EXPECT_EQ(ccs_put_datadesc(ctx, right(), source.data(), strided.here_count, strided.here, window_end - 4096,
                               strided.there_count, strided.there, w.key(right()), nullptr),
              CCS_ERR_OUT_OF_RANGE);
    // With an implicit key the target refuses a layout reaching past what
    // it registered; the error comes with the completion.
    if (size() > 1) {
        ccs_counter_t refused;
        CCS_ASSERT_OK(ccs_counter_init(&refused));
        const ccs_completion_t counted{nullptr, nullptr, &refused};
        CCS_EXPECT_OK(ccs_put_datadesc(ctx, right(), source.data(), strided.here_count, strided.here,
                                       window_end - 4096, strided.there_count, strided.there, CCS_RKEY_IMPLICIT,
                                       &counted));
        EXPECT_NE(ccs_counter_wait(&refused, 1), CCS_OK);
        EXPECT_EQ(refused.errors, 1u);
        EXPECT_EQ(refused.first_error, CCS_ERR_NOT_REGISTERED) << ccs_strerror(refused.first_error);
    }
    CCS_EXPECT_OK(ccs_fence_global(ctx));
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](uint8_t b) { return b == 2; }));
    for (size_t from = 0; from < static_cast<size_t>(size()); ++from) {
        const uint8_t *slot = w.local_slot(static_cast<int>(from));
        EXPECT_TRUE(std::all_of(slot, slot + slot_bytes, [](uint8_t b) { return b == 0x5A; })) << "slot " << from;
    }
    for (pair_case &c : cases) {
        if (c.here != CCS_BYTE) ccs_datadesc_free(&c.here);
        if (c.there != CCS_BYTE) ccs_datadesc_free(&c.there);
    }
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(Rma, AllocatedMemoryIsFreedOnlyAsAllocated) {
    void *p = nullptr;
    ccs_mem_t mem{};
    CCS_ASSERT_OK(ccs_mem_alloc(100, &p, &mem));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(static_cast<uint8_t *>(p)[i], 0);
    std::vector<uint8_t> heap(64);
    ccs_mem_t registered{};
    CCS_ASSERT_OK(ccs_mem_register(heap.data(), heap.size(), &registered));
    EXPECT_EQ(ccs_mem_free(registered), CCS_ERR_INVALID_MEMORY);  // registered, not allocated
    CCS_EXPECT_OK(ccs_mem_deregister(registered));                // and still valid
    // Allocated, not registered: ccs_mem_deregister would leave the block
    // mapped and unfreeable, so it is refused and the block stays whole.
    EXPECT_EQ(ccs_mem_deregister(mem), CCS_ERR_INVALID_MEMORY);
    EXPECT_NE(std::string(ccs_last_error()).find("ccs_mem_free"), std::string::npos) << ccs_last_error();
    static_cast<uint8_t *>(p)[99] = 7;
    size_t key_length = 0;
    CCS_EXPECT_OK(ccs_rkey_pack(mem, nullptr, &key_length));  // the handle is still live
    EXPECT_GT(key_length, 0u);
    CCS_EXPECT_OK(ccs_mem_free(mem));
    EXPECT_EQ(ccs_mem_free(mem), CCS_ERR_INVALID_MEMORY);
    EXPECT_EQ(ccs_mem_alloc(8, nullptr, &mem), CCS_ERR_INVALID_ARG);
    // More than any node backs (memory and swap): refused now, not a fault
    // in some later put; nothing is allocated and small blocks still are.
    void *huge = &huge;
    ccs_mem_t huge_mem{777};
    EXPECT_EQ(ccs_mem_alloc(size_t{1} << 50, &huge, &huge_mem), CCS_ERR_NO_RESOURCES);
    EXPECT_NE(std::string(ccs_last_error()).find("can ever back"), std::string::npos) << ccs_last_error();
    EXPECT_EQ(huge, &huge);
    EXPECT_EQ(huge_mem.id, 777u);
    CCS_ASSERT_OK(ccs_mem_alloc(4096, &p, &mem));
    CCS_EXPECT_OK(ccs_mem_free(mem));
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {

// Mappings of ccs_mem_alloc memory (ours or a peer's) in this process.
int shared_mappings() {
    FILE *maps = std::fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    char line[512];
    int n = 0;
    while (std::fgets(line, sizeof line, maps))
        if (std::strstr(line, "memfd:ccs-mem")) ++n;
    std::fclose(maps);
    return n;
}

}  // namespace

TEST(Rma, AllocateFreeInALoopLeavesNoMappingsBehind) {
    CCS_ASSERT_OK(ccs_barrier());
    const int before = shared_mappings();
    for (int round = 0; round < 20; ++round) {
        window w(true);  // allocate, exchange keys, (peers map it)
        const uint64_t value = static_cast<uint64_t>(round);
        scoped_context ctx("rma-alloc-loop");
        CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &value, 8, w.slot(right(), rank()), w.key(right())));
        CCS_EXPECT_OK(ccs_barrier());
    }  // keys released, memory freed: every mapping goes
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_EQ(shared_mappings(), before);
    CCS_EXPECT_OK(ccs_barrier());
}
