// Bad input gets the documented error, and nothing else is damaged: after
// each mistake the same context still carries messages correctly.
#include "harness.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace conformance;

namespace {

// Counts messages per check round (args[0]), so a check never counts a
// message that belongs to an earlier step.
struct echo_state {
    int received = 0;
    uint64_t round = 0;
    std::map<uint64_t, int> per_round;
};
void on_echo(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<echo_state *>(arg);
    ++s->received;
    if (m->nargs >= 1) ++s->per_round[m->args[0]];
}

// One message to every rank, and they all arrive: the job still works.
void expect_still_working(ccs_context_t ctx, echo_state &state) {
    const uint64_t round = ++state.round;
    for (int t = 0; t < size(); ++t) CCS_EXPECT_OK(ccs_am_send(ctx, t, 1, &round, 1, "x", 1, nullptr));
    EXPECT_TRUE(progress_until([&] { return state.per_round[round] >= size(); }));
    EXPECT_EQ(state.per_round[round], size());
    CCS_EXPECT_OK(ccs_barrier());
}

bool detail_mentions(const char *text) { return std::strstr(ccs_last_error(), text) != nullptr; }

}  // namespace

TEST(BadInput, InvalidRank) {
    echo_state state;
    scoped_context ctx("bad-rank", {{1, on_echo, &state}});
    for (int target : {size(), -1, INT_MAX, INT_MIN}) {
        EXPECT_EQ(ccs_am_send(ctx, target, 1, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_RANK) << target;
        EXPECT_TRUE(detail_mentions(std::to_string(target).c_str())) << ccs_last_error();
    }
    expect_still_working(ctx, state);
}

TEST(BadInput, HandlerIdOutOfRangeAndTooManyArguments) {
    echo_state state;
    scoped_context ctx("bad-handler", {{1, on_echo, &state}});
    const uint64_t args[CCS_AM_MAX_ARGS + 1] = {1000, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_EQ(ccs_am_send(ctx, 0, CCS_AM_MAX_HANDLERS, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_HANDLER);
    EXPECT_EQ(ccs_am_send(ctx, 0, 1, args, CCS_AM_MAX_ARGS + 1, nullptr, 0, nullptr), CCS_ERR_TOO_MANY_ARGS);
    EXPECT_EQ(ccs_am_handler_register(ctx, CCS_AM_MAX_HANDLERS, on_echo, nullptr), CCS_ERR_INVALID_HANDLER);
    EXPECT_EQ(ccs_am_handler_register(ctx, 1, on_echo, nullptr), CCS_ERR_HANDLER_IN_USE);
    EXPECT_EQ(ccs_am_handler_deregister(ctx, 99), CCS_ERR_UNKNOWN_HANDLER);
    // Out of range is one error whichever call names the id.
    for (const uint16_t id : {uint16_t{CCS_AM_MAX_HANDLERS}, uint16_t{65535}}) {
        EXPECT_EQ(ccs_am_handler_deregister(ctx, id), CCS_ERR_INVALID_HANDLER) << id;
        EXPECT_TRUE(detail_mentions("is not below CCS_AM_MAX_HANDLERS")) << ccs_last_error();
        EXPECT_EQ(ccs_am_handler_register(ctx, id, on_echo, nullptr), CCS_ERR_INVALID_HANDLER) << id;
        EXPECT_TRUE(detail_mentions("is not below CCS_AM_MAX_HANDLERS")) << ccs_last_error();
        EXPECT_EQ(ccs_am_send(ctx, 0, id, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_HANDLER) << id;
        EXPECT_TRUE(detail_mentions("is not below CCS_AM_MAX_HANDLERS")) << ccs_last_error();
    }
    // Exactly the maximum is fine.
    CCS_EXPECT_OK(ccs_am_send(ctx, rank(), 1, args, CCS_AM_MAX_ARGS, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return state.per_round[1000] >= 1; }));
    expect_still_working(ctx, state);
}

TEST(BadInput, NullPointers) {
    echo_state state;
    scoped_context ctx("null-pointers", {{1, on_echo, &state}});
    EXPECT_EQ(ccs_am_send(ctx, 0, 1, nullptr, 2, nullptr, 0, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_send(ctx, 0, 1, nullptr, 0, nullptr, 10, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_handler_register(ctx, 2, nullptr, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_rank(nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_size(nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_initialized(nullptr), CCS_ERR_INVALID_ARG);
    uint64_t v = 0;
    EXPECT_EQ(ccs_stats_get(nullptr, &v), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_stats_get("am.sent", nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_stats_get("no.such.statistic", &v), CCS_ERR_NOT_FOUND);
    EXPECT_EQ(ccs_stats_get("progress.yields", &v), CCS_OK);  // the back-off's counters
    EXPECT_EQ(ccs_stats_get("progress.naps", &v), CCS_OK);
    EXPECT_EQ(ccs_stats_print(nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_info_print(nullptr), CCS_ERR_INVALID_ARG);
    // NULL out-pointer in a collective call: every process takes part, so
    // the call fails cleanly (here on every process alike).
    EXPECT_EQ(ccs_context_create(nullptr, nullptr), CCS_ERR_INVALID_ARG);
    expect_still_working(ctx, state);
}

TEST(BadInput, CollectiveMistakeOnOneProcessFailsEverywhereWithoutHanging) {
    echo_state state;
    scoped_context ctx("collective-mistake", {{1, on_echo, &state}});
    // Only rank 0 passes a bad handler table; all must fail, none may hang.
    const ccs_am_handler_entry_t bad[1] = {{CCS_AM_MAX_HANDLERS, on_echo, nullptr}};
    const ccs_context_params_t params{sizeof(ccs_context_params_t), 0, "lopsided", rank() == 0 ? bad : nullptr,
                                      rank() == 0 ? 1u : 0u};
    ccs_context_t out{0};
    const ccs_status_t st = ccs_context_create(&params, &out);
    if (rank() == 0) {
        EXPECT_EQ(st, CCS_ERR_INVALID_HANDLER);
    }
    else EXPECT_EQ(st, size() > 1 ? CCS_ERR_INVALID_ARG : CCS_OK);
    EXPECT_EQ(out.id, 0u);
    expect_still_working(ctx, state);
    // Context ids stayed in step: a new context works everywhere.
    echo_state fresh_state;
    scoped_context fresh("after-mistake", {{1, on_echo, &fresh_state}});
    expect_still_working(fresh, fresh_state);
}

TEST(BadInput, DestroyedContextIsDetectedAndOthersUnaffected) {
    echo_state kept_state;
    scoped_context kept("kept", {{1, on_echo, &kept_state}});
    ccs_context_t doomed{0};
    CCS_ASSERT_OK(ccs_context_create(nullptr, &doomed));
    CCS_ASSERT_OK(ccs_context_destroy(doomed));
    EXPECT_EQ(ccs_am_send(doomed, 0, 1, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_am_handler_register(doomed, 1, on_echo, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_context_destroy(doomed), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_context_set_error_handler(doomed, nullptr, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_am_send(CCS_CONTEXT_NULL, 0, 1, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_EQ(ccs_am_send(ccs_context_t{999999}, 0, 1, nullptr, 0, nullptr, 0, nullptr), CCS_ERR_INVALID_CONTEXT);
    EXPECT_TRUE(detail_mentions("destroyed")) << ccs_last_error();
    expect_still_working(kept, kept_state);
}

namespace {
struct drop_state {
    int received = 0;
};
void on_drop_test(const ccs_am_message_t *, void *arg) { ++static_cast<drop_state *>(arg)->received; }
// A context whose handler 1 counts into `state`; destroyed by the test
// (on some ranks early), so not a scoped_context.
ccs_context_t counting_context(const char *name, drop_state &state) {
    ccs_context_t ctx{0};
    const ccs_am_handler_entry_t h[1] = {{1, on_drop_test, &state}};
    const ccs_context_params_t params{sizeof(ccs_context_params_t), 0, name, h, 1};
    EXPECT_EQ(ccs_context_create(&params, &ctx), CCS_OK) << ccs_last_error();
    return ctx;
}
}  // namespace

TEST(BadInput, MessagesForAContextDestroyedAtTheTargetAreDroppedAndCounted) {
    if (size() < 2) GTEST_SKIP() << "needs two processes";
    drop_state state;
    const ccs_context_t ctx = counting_context("dropping", state);
    ASSERT_NE(ctx.id, 0u);
    const uint64_t dropped_before = stat("am.dropped_destroyed_context");
    if (rank() == 1) CCS_EXPECT_OK(ccs_context_destroy(ctx));
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) CCS_EXPECT_OK(ccs_am_send(ctx, 1, 1, nullptr, 0, nullptr, 0, nullptr));
    if (rank() == 1) {
        EXPECT_TRUE(progress_until([&] { return stat("am.dropped_destroyed_context") > dropped_before; }, 30));
    }
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_EQ(state.received, 0);
    if (rank() != 1) CCS_EXPECT_OK(ccs_context_destroy(ctx));
}

// A context destroyed at the target while a fragmented message for it is
// half received: the part it holds is released at once, and the fragments
// still to come are dropped and counted, not gathered again.
TEST(BadInput, AHalfReceivedMessageIsReleasedWhenItsContextIsDestroyed) {
    if (size() < 2) GTEST_SKIP() << "needs two processes";
    drop_state state;
    const ccs_context_t ctx = counting_context("destroyed-mid-message", state);
    ASSERT_NE(ctx.id, 0u);
    const uint64_t dropped_before = stat("am.dropped_destroyed_context");
    bool checked = false;
    if (rank() == 0) {
        const std::vector<uint8_t> large(4 << 20, 0x3c);  // many packets on every transport but UCX
        CCS_EXPECT_OK(ccs_am_send(ctx, 1, 1, nullptr, 0, large.data(), large.size(), nullptr));
    } else if (rank() == 1) {
        EXPECT_TRUE(progress_until([&] { return stat("am.reassembling") > 0 || state.received > 0; }, 60));
        if (state.received == 0) {  // part of it is here, not all
            CCS_EXPECT_OK(ccs_context_destroy(ctx));
            EXPECT_EQ(stat("am.reassembling"), 0u);
            EXPECT_TRUE(progress_until([&] { return stat("am.dropped_destroyed_context") > dropped_before; }, 60));
            checked = true;
        }
    }
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_EQ(stat("am.reassembling"), 0u);
    if (checked) {
        EXPECT_EQ(state.received, 0);
    }
    if (rank() != 1 || !checked) CCS_EXPECT_OK(ccs_context_destroy(ctx));
}

namespace {
struct unknown_state {
    int errors = 0;
    ccs_status_t status = CCS_OK;
    int peer = -1;
    int received = 0;
};
void on_error(ccs_context_t, ccs_status_t st, int peer, const char *, void *arg) {
    auto *s = static_cast<unknown_state *>(arg);
    ++s->errors;
    s->status = st;
    s->peer = peer;
}
void on_known(const ccs_am_message_t *, void *arg) { ++static_cast<unknown_state *>(arg)->received; }
}  // namespace

TEST(BadInput, UnknownHandlerIsReportedAtTheTargetWhichKeepsRunning) {
    unknown_state state;
    scoped_context ctx("unknown-handler", {{1, on_known, &state}});
    CCS_ASSERT_OK(ccs_context_set_error_handler(ctx, on_error, &state));
    CCS_ASSERT_OK(ccs_barrier());
    const int target = (rank() + 1) % size();
    const int source = (rank() + size() - 1) % size();
    CCS_EXPECT_OK(ccs_am_send(ctx, target, 77, nullptr, 0, "lost", 4, nullptr));  // nobody registered 77
    CCS_EXPECT_OK(ccs_am_send(ctx, target, 1, nullptr, 0, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return state.errors >= 1 && state.received >= 1; }));
    EXPECT_EQ(state.errors, 1);
    EXPECT_EQ(state.status, CCS_ERR_UNKNOWN_HANDLER);
    EXPECT_EQ(state.peer, source);
    EXPECT_EQ(state.received, 1);
    EXPECT_GE(stat("am.unknown_handler"), 1u);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {
struct in_handler_state {
    ccs_status_t progress = CCS_OK, barrier = CCS_OK, create = CCS_OK, destroy = CCS_OK, finalize = CCS_OK;
    ccs_status_t reply = CCS_ERR_INTERNAL;
    int calls = 0;
    int replies = 0;
};
void on_nested(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<in_handler_state *>(arg);
    ++s->calls;
    ccs_context_t c{0};
    s->progress = ccs_progress();
    s->barrier = ccs_barrier();
    s->create = ccs_context_create(nullptr, &c);
    s->destroy = ccs_context_destroy(m->context);
    s->finalize = ccs_finalize();
    s->reply = ccs_am_send(m->context, m->source, 2, nullptr, 0, nullptr, 0, nullptr);  // replies are fine
}
void on_reply(const ccs_am_message_t *, void *arg) { ++static_cast<in_handler_state *>(arg)->replies; }
}  // namespace

TEST(BadInput, BlockingCallsInsideAHandlerAreRefused) {
    in_handler_state state;
    scoped_context ctx("in-handler", {{1, on_nested, &state}, {2, on_reply, &state}});
    CCS_EXPECT_OK(ccs_am_send(ctx, (rank() + 1) % size(), 1, nullptr, 0, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return state.calls >= 1 && state.replies >= 1; }));
    EXPECT_EQ(state.progress, CCS_ERR_IN_HANDLER);
    EXPECT_EQ(state.barrier, CCS_ERR_IN_HANDLER);
    EXPECT_EQ(state.create, CCS_ERR_IN_HANDLER);
    EXPECT_EQ(state.destroy, CCS_ERR_IN_HANDLER);
    EXPECT_EQ(state.finalize, CCS_ERR_IN_HANDLER);
    EXPECT_EQ(state.reply, CCS_OK);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(BadInput, InitParamsAndNestedInitFinalize) {
    ccs_init_params_t p{0, 0};
    EXPECT_EQ(ccs_init(&p), CCS_ERR_INVALID_ARG);
    p = {sizeof p, 42};
    EXPECT_EQ(ccs_init(&p), CCS_ERR_INVALID_ARG);
    // A second runtime in the same process: init/finalize are counted.
    p = {sizeof p, 0};
    CCS_EXPECT_OK(ccs_init(&p));
    CCS_EXPECT_OK(ccs_finalize());
    int flag = 0;
    CCS_EXPECT_OK(ccs_initialized(&flag));
    EXPECT_EQ(flag, 1);
    echo_state state;
    scoped_context ctx("after-nested", {{1, on_echo, &state}});
    expect_still_working(ctx, state);
}

namespace {
constexpr char refuse_mark[] = "REFUSED!";  // what the altered plugin's CCS_ALTERED_REFUSE_MARKED=1 refuses
// Whether this job's transport refuses marked packets, with a peer.
bool refusing_transport() {
    const char *mode = std::getenv("CCS_ALTERED_REFUSE_MARKED");
    return mode && std::string(mode) == "1" && size() >= 2;
}
struct refused_state {
    // Per source: the index of the accepted message expected next.
    std::vector<uint64_t> next = std::vector<uint64_t>(static_cast<size_t>(size()), 0);
    uint64_t received = 0, out_of_order = 0, marked = 0;
    uint64_t reported = 0, reported_wrong = 0;  // error handler calls, of them with an unexpected status
};
void on_refused(ccs_context_t, ccs_status_t st, int, const char *, void *arg) {
    auto *s = static_cast<refused_state *>(arg);
    ++s->reported;
    if (st != CCS_ERR_TRANSPORT) ++s->reported_wrong;
}
void on_accepted(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<refused_state *>(arg);
    ++s->received;
    uint64_t &next = s->next[static_cast<size_t>(m->source)];
    if (m->args[0] != next) ++s->out_of_order;
    next = m->args[0] + 1;
    const size_t n = sizeof refuse_mark - 1;
    if (m->payload_size >= n && std::memcmp(static_cast<const char *>(m->payload) + m->payload_size - n, refuse_mark,
                                            n) == 0)
        ++s->marked;
}
}  // namespace

// A send the transport refuses returns the transport's error and costs the
// stream nothing: the messages after it on the same ordered context all
// arrive, in order (with a transport that does not order, a refused send
// must not use up a sequence number the target would wait for forever).
// Needs a transport that refuses on demand: shm's test mode
// CCS_ALTERED_REFUSE_MARKED=1 refuses packets that end in "REFUSED!".
TEST(BadInput, RefusedSendLosesNothingAfterIt) {
    if (!refusing_transport()) GTEST_SKIP() << "needs CCS_ALTERED_REFUSE_MARKED=1 and two processes";
    refused_state state;
    scoped_context ctx("refused-sends", {{1, on_accepted, &state}});
    CCS_ASSERT_OK(ccs_context_set_error_handler(ctx, on_refused, &state));
    const int to = (rank() + 1) % size();
    constexpr int messages = 300;
    uint64_t accepted = 0;
    for (int i = 0; i < messages; ++i) {
        const bool refuse = i % 7 == 3;
        const std::string payload = "message " + std::to_string(i) + (refuse ? refuse_mark : "");
        const uint64_t index = accepted;
        const ccs_status_t st = ccs_am_send(ctx, to, 1, &index, 1, payload.data(), payload.size(), nullptr);
        if (refuse) {
            EXPECT_EQ(st, CCS_ERR_TRANSPORT) << i << ": " << ccs_strerror(st);
            EXPECT_TRUE(detail_mentions(transport_to(to).c_str())) << ccs_last_error();
        } else {
            EXPECT_EQ(st, CCS_OK) << i << ": " << ccs_strerror(st) << ": " << ccs_last_error();
            ++accepted;
        }
        CCS_EXPECT_OK(ccs_progress());
    }
    // Every process sent alike, so each receives what it accepted.
    EXPECT_TRUE(progress_until([&] { return state.received == accepted; }, 60))
        << state.received << " of " << accepted;
    EXPECT_EQ(state.out_of_order, 0u);
    EXPECT_EQ(state.marked, 0u);
    EXPECT_EQ(state.reported, 0u);  // each refusal was the caller's to see
    CCS_EXPECT_OK(ccs_barrier());
}

// The same when the refusal comes later: a burst larger than the transport
// holds is queued (ccs_am_send returns CCS_OK), and the marked messages in
// the queue are refused as progress pushes them. Each such refusal reaches
// the context's error handler, and the rest still arrive, in order.
TEST(BadInput, RefusedQueuedSendIsReportedAndLosesNothingAfterIt) {
    if (!refusing_transport()) GTEST_SKIP() << "needs CCS_ALTERED_REFUSE_MARKED=1 and two processes";
    refused_state state;
    scoped_context ctx("refused-queued-sends", {{1, on_accepted, &state}});
    CCS_ASSERT_OK(ccs_context_set_error_handler(ctx, on_refused, &state));
    CCS_ASSERT_OK(ccs_barrier());
    const int to = (rank() + 1) % size();
    constexpr int messages = 400;  // 8 KiB each, 3.2 MB: more than a ring holds, less than the queue limit
    const uint64_t queued_before = stat("am.queued");
    uint64_t accepted = 0, marked = 0, refused_at_once = 0;
    std::vector<uint8_t> payload(8192, 0x5a);
    for (int i = 0; i < messages; ++i) {
        const bool refuse = i % 5 == 2;
        std::memcpy(payload.data() + payload.size() - (sizeof refuse_mark - 1), refuse ? refuse_mark : "accepted",
                    sizeof refuse_mark - 1);
        const uint64_t index = accepted;
        const ccs_status_t st = ccs_am_send(ctx, to, 1, &index, 1, payload.data(), payload.size(), nullptr);
        if (refuse) {
            ++marked;
            EXPECT_TRUE(st == CCS_OK || st == CCS_ERR_TRANSPORT) << i << ": " << ccs_strerror(st);
            if (st == CCS_ERR_TRANSPORT) ++refused_at_once;
        } else {
            EXPECT_EQ(st, CCS_OK) << i << ": " << ccs_strerror(st) << ": " << ccs_last_error();
            ++accepted;
        }
    }
    EXPECT_GT(stat("am.queued"), queued_before);  // the burst did queue
    EXPECT_TRUE(progress_until([&] { return state.received == accepted && state.reported + refused_at_once == marked; },
                               60))
        << state.received << " of " << accepted << " received, " << state.reported << " + " << refused_at_once
        << " of " << marked << " refusals seen";
    EXPECT_GT(state.reported, 0u);  // some refusals came from the queue
    EXPECT_EQ(state.reported_wrong, 0u);
    EXPECT_EQ(state.out_of_order, 0u);
    EXPECT_EQ(state.marked, 0u);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {
// Completions of refused messages: how many ran, and with which status.
struct refused_completions {
    uint64_t ok = 0, transport_error = 0, other = 0;
};
void on_refused_completion(ccs_status_t st, void *arg) {
    auto *c = static_cast<refused_completions *>(arg);
    if (st == CCS_OK) ++c->ok;
    else if (st == CCS_ERR_TRANSPORT) ++c->transport_error;
    else ++c->other;
}
}  // namespace

// A large message the transport refuses part-way, after some of its
// fragments went. The caller hears of it as of any refusal (ccs_am_send
// returns the error; a message that had to wait in the queue fails its
// completion or reaches the error handler), the target drops the fragments
// it already holds, and the messages after it still arrive, in order (with
// a transport that does not order, the refused message's sequence number
// must not hold back the ones after it).
TEST(BadInput, RefusedFragmentLosesNothingAfterIt) {
    if (!refusing_transport()) GTEST_SKIP() << "needs CCS_ALTERED_REFUSE_MARKED=1 and two processes";
    refused_state state;
    refused_completions completions;
    scoped_context ctx("refused-fragments", {{1, on_accepted, &state}});
    CCS_ASSERT_OK(ccs_context_set_error_handler(ctx, on_refused, &state));
    CCS_ASSERT_OK(ccs_barrier());
    const int to = (rank() + 1) % size();
    // Several fragments at any packet size that is a multiple of 8 bytes.
    // No mark in the first 32 KiB, so the first fragment goes; after it the
    // mark repeats every 8 bytes, so the first fragment to end past 32 KiB
    // is refused.
    std::vector<char> refused(96 << 10, 'r'), accepted_large(96 << 10, 'a');
    for (size_t at = 32 << 10; at < refused.size(); at += sizeof refuse_mark - 1)
        std::memcpy(&refused[at], refuse_mark, sizeof refuse_mark - 1);
    const uint64_t abandoned_before = stat("am.abandoned");
    constexpr int messages = 120;
    uint64_t accepted = 0, marked = 0, refused_at_once = 0, queued_with_completion = 0;
    for (int i = 0; i < messages; ++i) {
        const uint64_t index = accepted;
        const ccs_completion_t completion{on_refused_completion, &completions, nullptr};
        ccs_status_t st;
        switch (i % 4) {
        case 1:
        case 3: {  // refused part-way; every other one with a completion
            ++marked;
            const bool with_completion = i % 4 == 3;
            st = ccs_am_send(ctx, to, 1, &index, 1, refused.data(), refused.size(),
                             with_completion ? &completion : nullptr);
            EXPECT_TRUE(st == CCS_OK || st == CCS_ERR_TRANSPORT) << i << ": " << ccs_strerror(st);
            if (st == CCS_ERR_TRANSPORT) {
                ++refused_at_once;
                EXPECT_TRUE(detail_mentions(transport_to(to).c_str())) << ccs_last_error();
            } else if (with_completion) {
                ++queued_with_completion;
            }
            break;
        }
        case 2:
            st = ccs_am_send(ctx, to, 1, &index, 1, accepted_large.data(), accepted_large.size(), nullptr);
            break;
        default:
            st = ccs_am_send(ctx, to, 1, &index, 1, "small", 5, nullptr);
        }
        if (i % 4 == 0 || i % 4 == 2) {
            EXPECT_EQ(st, CCS_OK) << i << ": " << ccs_strerror(st) << ": " << ccs_last_error();
            ++accepted;
        }
        CCS_EXPECT_OK(ccs_progress());
    }
    // Every process sent alike, so each receives what it accepted, and
    // holds no part of a message any longer.
    EXPECT_TRUE(progress_until([&] {
        return state.received == accepted && stat("am.reassembling") == 0 &&
               state.reported + refused_at_once + completions.transport_error == marked;
    }, 60)) << state.received << " of " << accepted << " received, " << stat("am.reassembling")
            << " messages half received, " << state.reported << " + " << refused_at_once << " + "
            << completions.transport_error << " of " << marked << " refusals seen";
    EXPECT_EQ(state.out_of_order, 0u);
    EXPECT_EQ(state.marked, 0u);
    EXPECT_EQ(state.reported_wrong, 0u);
    EXPECT_EQ(completions.transport_error, queued_with_completion);  // an error return runs no completion
    EXPECT_EQ(completions.ok + completions.other, 0u);
    EXPECT_EQ(stat("am.abandoned") - abandoned_before, marked);  // each was refused after its first fragment
    CCS_EXPECT_OK(ccs_barrier());
}
