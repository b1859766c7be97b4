// Active messages: arguments, payloads of every size class (inline,
// fragmented, to self), replies from handlers, completions, contexts.
#include "harness.hpp"

#include <ccs/ccs.hpp>

#include <ccs/rma.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace conformance;

namespace {

struct all_to_all_state {
    int received = 0;
    int bad = 0;
};

void check_message(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<all_to_all_state *>(arg);
    ++s->received;
    // args: source, size index, payload size, a constant
    if (m->nargs != 4 || m->args[0] != static_cast<uint64_t>(m->source) || m->args[3] != 0xC0FFEEull ||
        m->payload_size != m->args[2] || !check_pattern(m->payload, m->payload_size, m->args[0], m->args[1]))
        ++s->bad;
}

}  // namespace

TEST(ActiveMessages, RankAndSizeAreConsistent) {
    EXPECT_GE(rank(), 0);
    EXPECT_LT(rank(), size());
    EXPECT_GE(size(), 1);
}

TEST(ActiveMessages, EveryPayloadSizeReachesEveryRankIntact) {
    all_to_all_state state;
    scoped_context ctx("all-to-all", {{5, check_message, &state}});
    // Around the shm packet limit (32 KiB incl. 16 B header + 32 B args),
    // and well beyond it (fragmented), and empty.
    const std::vector<size_t> sizes = {0, 1, 7, 8, 64, 4096, 32768 - 48, 32768 - 47, 32768, 100000, 1 << 20, 3 << 20};
    for (size_t i = 0; i < sizes.size(); ++i) {
        std::vector<uint8_t> buf(sizes[i]);
        fill_pattern(buf, static_cast<uint64_t>(rank()), i);
        for (int t = 0; t < size(); ++t) {
            const uint64_t args[4] = {static_cast<uint64_t>(rank()), i, sizes[i], 0xC0FFEEull};
            CCS_EXPECT_OK(ccs_am_send(ctx, t, 5, args, 4, buf.data(), buf.size(), nullptr));
        }
    }
    const int expected = static_cast<int>(sizes.size()) * size();
    EXPECT_TRUE(progress_until([&] { return state.received >= expected; })) << state.received << "/" << expected;
    EXPECT_EQ(state.received, expected);
    EXPECT_EQ(state.bad, 0);
    CCS_EXPECT_OK(ccs_barrier());
}

// With a completion, the payload stays the sender's until the callback:
// large ones may go straight from it (no copy where the plugin can, e.g.
// UCX rendezvous). Every size arrives intact, every completion fires, and
// the buffers are only rewritten after it.
TEST(ActiveMessages, LargePayloadsWithCompletionsArriveIntact) {
    all_to_all_state state;
    scoped_context ctx("large-with-completion", {{5, check_message, &state}});
    const std::vector<size_t> sizes = {(64u << 10) - 1, 64u << 10, (1u << 20) + 3, 3u << 20};
    std::vector<std::vector<uint8_t>> bufs(sizes.size() * static_cast<size_t>(size()));
    ccs_counter_t done;
    CCS_ASSERT_OK(ccs_counter_init(&done));
    const ccs_completion_t c{nullptr, nullptr, &done};
    size_t k = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        for (int t = 0; t < size(); ++t, ++k) {
            bufs[k].resize(sizes[i]);
            fill_pattern(bufs[k], static_cast<uint64_t>(rank()), i);
            const uint64_t args[4] = {static_cast<uint64_t>(rank()), i, sizes[i], 0xC0FFEEull};
            CCS_EXPECT_OK(ccs_am_send(ctx, t, 5, args, 4, bufs[k].data(), bufs[k].size(), &c));
        }
    }
    const int expected = static_cast<int>(sizes.size()) * size();
    EXPECT_TRUE(progress_until([&] { return counted(done) >= k && state.received >= expected; }))
        << counted(done) << "/" << k << " completions, " << state.received << "/" << expected << " messages";
    EXPECT_EQ(done.errors, 0u);
    EXPECT_EQ(state.bad, 0);
    // Where the configuration says the plugin sends large payloads without
    // a copy (CCS_TEST_NOCOPY=1), it did.
    if (std::getenv("CCS_TEST_NOCOPY") && size() > 1) {
        EXPECT_GT(stat("am.sent_nocopy"), 0u);
    }
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {
struct ping_state {
    int pongs = 0;
    int bad = 0;
    ccs_status_t reply_status = CCS_OK;
};
void on_ping(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<ping_state *>(arg);
    // Reply with a payload twice the ping's, large enough to fragment.
    std::vector<uint8_t> reply(m->args[0] * 2);
    fill_pattern(reply, 9, m->args[0]);
    const uint64_t args[1] = {m->args[0]};
    const ccs_status_t st = ccs_am_send(m->context, m->source, 2, args, 1, reply.data(), reply.size(), nullptr);
    if (st != CCS_OK) s->reply_status = st;
}
void on_pong(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<ping_state *>(arg);
    ++s->pongs;
    if (m->payload_size != m->args[0] * 2 || !check_pattern(m->payload, m->payload_size, 9, m->args[0])) ++s->bad;
}
}  // namespace

TEST(ActiveMessages, HandlersReplyEvenWithLargePayloads) {
    ping_state state;
    scoped_context ctx("ping-pong", {{1, on_ping, &state}, {2, on_pong, &state}});
    const std::vector<uint64_t> sizes = {0, 16, 20000, 300000};
    for (uint64_t s : sizes)
        for (int t = 0; t < size(); ++t) CCS_EXPECT_OK(ccs_am_send(ctx, t, 1, &s, 1, nullptr, 0, nullptr));
    const int expected = static_cast<int>(sizes.size()) * size();
    EXPECT_TRUE(progress_until([&] { return state.pongs >= expected; }));
    EXPECT_EQ(state.pongs, expected);
    EXPECT_EQ(state.bad, 0);
    EXPECT_EQ(state.reply_status, CCS_OK);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {
struct completion_state {
    int completed = 0;
    int errors = 0;
    int received = 0;
    int bad = 0;
};
void on_complete(ccs_status_t st, void *arg) {
    auto *s = static_cast<completion_state *>(arg);
    ++s->completed;
    if (st != CCS_OK) ++s->errors;
}
void on_big(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<completion_state *>(arg);
    ++s->received;
    if (!check_pattern(m->payload, m->payload_size, static_cast<uint64_t>(m->source), m->payload_size)) ++s->bad;
}
}  // namespace

TEST(ActiveMessages, CompletionRunsOnceAndOnlyInsideProgress) {
    completion_state state;
    scoped_context ctx("completions", {{3, on_big, &state}});
    // Large ones are sent from the caller's buffer (no copy) until the
    // callback says it is free; keep each buffer alive until then.
    const std::vector<size_t> sizes = {8, 50000, 2 << 20};
    std::vector<std::vector<uint8_t>> buffers;
    int sent = 0;
    for (size_t n : sizes)
        for (int t = 0; t < size(); ++t) {
            buffers.emplace_back(n);
            fill_pattern(buffers.back(), static_cast<uint64_t>(rank()), n);
            const ccs_completion_t c{on_complete, &state};
            CCS_EXPECT_OK(ccs_am_send(ctx, t, 3, nullptr, 0, buffers.back().data(), n, &c));
            ++sent;
        }
    EXPECT_EQ(state.completed, 0) << "a completion ran outside ccs_progress";
    EXPECT_TRUE(progress_until([&] { return state.completed >= sent && state.received >= sent; }));
    EXPECT_EQ(state.completed, sent);
    EXPECT_EQ(state.errors, 0);
    EXPECT_EQ(state.received, sent);
    EXPECT_EQ(state.bad, 0);
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_EQ(state.completed, sent) << "a completion ran twice";
}

namespace {
void count_into(const ccs_am_message_t *, void *arg) { ++*static_cast<int *>(arg); }
}  // namespace

TEST(Contexts, SameHandlerIdInTwoContextsReachesTwoHandlers) {
    int in_a = 0, in_b = 0;
    scoped_context a("runtime-a", {{7, count_into, &in_a}});
    scoped_context b("runtime-b", {{7, count_into, &in_b}});
    const int peer = (rank() + 1) % size();
    for (int i = 0; i < 3; ++i) CCS_EXPECT_OK(ccs_am_send(a, peer, 7, nullptr, 0, nullptr, 0, nullptr));
    for (int i = 0; i < 5; ++i) CCS_EXPECT_OK(ccs_am_send(b, peer, 7, nullptr, 0, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return in_a >= 3 && in_b >= 5; }));
    EXPECT_EQ(in_a, 3);
    EXPECT_EQ(in_b, 5);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(Contexts, CppWrapperRoundTrip) {
    int got = 0, late = 0;
    uint64_t sum = 0;
    ccs::context ctx("c++", {{11, [&](const ccs::am_message &m) {
                                  ++got;
                                  sum += m.args[0];
                              }}});
    // A handler added after creation is usable once everyone passed a barrier.
    ctx.on(12, [&](const ccs::am_message &) { ++late; });
    CCS_ASSERT_OK(ccs_barrier());
    ctx.send((rank() + 1) % size(), 12);
    for (int t = 0; t < size(); ++t) ctx.send(t, 11, {static_cast<uint64_t>(rank() + 1)});
    EXPECT_TRUE(progress_until([&] { return got >= size(); }));
    EXPECT_TRUE(progress_until([&] { return late >= 1; }));
    EXPECT_EQ(sum, static_cast<uint64_t>(size()) * static_cast<uint64_t>(size() + 1) / 2);
    CCS_EXPECT_OK(ccs_barrier());
}

// A faster process may send on a new context while this one is still
// inside ccs_context_create; the handler then runs here before the call
// returns, and must find the handle already set where the call writes it.
TEST(Contexts, HandlersThatRunDuringCreationSeeTheHandle) {
    struct state {
        ccs_context_t handle{0};
        int arrived = 0;
        int unset = 0;
    } s;
    const ccs_am_handler_entry_t entry{1,
                                       [](const ccs_am_message_t *, void *arg) {
                                           auto *st = static_cast<state *>(arg);
                                           ++st->arrived;
                                           if (st->handle.id == 0) ++st->unset;
                                       },
                                       &s};
    const ccs_context_params_t params{sizeof(ccs_context_params_t), 0, "created-while-used", &entry, 1};
    for (int round = 0; round < 20; ++round) {
        s = state{};
        // Rank 0 comes late, so the others' messages meet it mid-creation.
        if (rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(round % 4));
        ASSERT_EQ(ccs_context_create(&params, &s.handle), CCS_OK) << ccs_last_error();
        if (rank() != 0) CCS_EXPECT_OK(ccs_am_send(s.handle, 0, 1, nullptr, 0, nullptr, 0, nullptr));
        if (rank() == 0) {
            EXPECT_TRUE(progress_until([&] { return s.arrived == size() - 1; }));
        }
        EXPECT_EQ(s.unset, 0) << "round " << round;
        CCS_EXPECT_OK(ccs_barrier());
        CCS_EXPECT_OK(ccs_context_destroy(s.handle));
    }
    // A failed creation leaves {0}, whatever the variable held.
    ccs_context_t failed{77};
    const ccs_am_handler_entry_t bad{CCS_AM_MAX_HANDLERS, entry.handler, &s};
    const ccs_context_params_t bad_params{sizeof(ccs_context_params_t), 0, "refused", &bad, 1};
    EXPECT_EQ(ccs_context_create(&bad_params, &failed), CCS_ERR_INVALID_HANDLER);
    EXPECT_EQ(failed.id, 0u);
}
