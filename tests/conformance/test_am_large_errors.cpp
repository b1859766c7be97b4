// Large active messages that do not arrive, and what stays after those that
// do: refusals, mistakes in destinations and arguments that give errors at
// both ends and lose nothing else, a missing header handler, a context
// destroyed with undecided messages or while payloads come, the sender's
// window, and the memory of both ends unexposed afterwards.
#include "large_messages.hpp"

using namespace conformance;
using namespace conformance::large_messages;

TEST(LargeMessages, RefusedMessagesTellTheSenderAndWriteNothing) {
    for (size_t length : {size_t{10}, size_t{1} << 20}) {
        receiver r;
        r.how = receiver::policy::refuse;
        std::vector<uint8_t> out(length, 0x5A);
        ccs_counter_t sent{0, 0, CCS_OK};
        const ccs_completion_t done{nullptr, nullptr, &sent};
        large_context ctx("large-refuse", r);
        CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), length, &done));
        EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && r.headers >= 1; }));
        EXPECT_EQ(sent.first_error, CCS_ERR_REFUSED);
        EXPECT_EQ(r.accept_status, CCS_OK);
        EXPECT_EQ(counted(r.data), 0u);
        CCS_EXPECT_OK(ccs_barrier());
    }
}

TEST(LargeMessages, DestinationMistakesFailAtBothEnds) {
    for (size_t length : {size_t{200}, size_t{200000}}) {
        for (bool with_layout : {false, true}) {
            receiver r;
            ccs_datadesc_t d = strided(3);  // 72 bytes: never the message's size
            std::vector<uint8_t> out(length, 7), in(length + 1000, 0);
            r.destination = in.data();
            r.length = length - 1;
            if (with_layout) {
                r.dd = d;
                r.count = 1;
            }
            ccs_counter_t sent{0, 0, CCS_OK};
            const ccs_completion_t done{nullptr, nullptr, &sent};
            large_context ctx("large-mismatch", r);
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), length, &done));
            EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && r.headers >= 1; }));
            EXPECT_EQ(r.accept_status, CCS_ERR_INVALID_ARG);
            EXPECT_EQ(sent.first_error, CCS_ERR_REFUSED);
            EXPECT_TRUE(std::all_of(in.begin(), in.end(), [](uint8_t b) { return b == 0; }));
            EXPECT_EQ(counted(r.data), 0u);
            CCS_EXPECT_OK(ccs_barrier());
            ccs_datadesc_free(&d);
        }
    }
}

TEST(LargeMessages, WithoutHeaderHandlerTheSenderHearsUnknownHandler) {
    receiver r;
    large_context ctx("large-unknown", r);
    ccs_context_set_error_handler(
        ctx, [](ccs_context_t, ccs_status_t, int, const char *, void *) {}, nullptr);
    std::vector<uint8_t> out(100000, 1);
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    // small_id is an ordinary handler; 99 is nobody's.
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), small_id, nullptr, 0, out.data(), 10, &done));
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), 99, nullptr, 0, out.data(), out.size(), &done));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 2; }));
    EXPECT_EQ(sent.errors, 2u);
    EXPECT_EQ(sent.first_error, CCS_ERR_UNKNOWN_HANDLER);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, BadArgumentsLoseNothing) {
    receiver r;
    r.how = receiver::policy::defer;
    std::vector<uint8_t> out(100000, 3), in(100000, 0);
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    large_context ctx("large-bad", r);
    EXPECT_EQ(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), out.size(), nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_send_large(ctx, size(), header_id, nullptr, 0, out.data(), out.size(), &done),
              CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, nullptr, 5, &done), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_send_large(ccs_context_t{12345}, next_rank(), header_id, nullptr, 0, out.data(), 5, &done),
              CCS_ERR_INVALID_CONTEXT);
    // Memory that is not mapped cannot be announced.
    EXPECT_EQ(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, reinterpret_cast<void *>(uintptr_t{4096}),
                                size_t{1} << 20, &done),
              CCS_ERR_INVALID_MEMORY)
        << ccs_last_error();
    EXPECT_EQ(ccs_am_header_handler_register(ctx, header_id, on_header, &r), CCS_ERR_HANDLER_IN_USE);
    EXPECT_EQ(ccs_am_accept(ccs_am_token_t{987654321}, in.data(), in.size(), nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_refuse(ccs_am_token_t{0}), CCS_ERR_INVALID_ARG);
    // Then a message still goes, and a slip on its token keeps it good.
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), out.size(), &done));
    EXPECT_TRUE(progress_until([&] { return r.tokens.size() >= 1; }));
    EXPECT_EQ(ccs_am_accept(r.tokens[0], nullptr, in.size(), nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_accept_datadesc(r.tokens[0], in.data(), -1, CCS_BYTE, nullptr), CCS_ERR_INVALID_ARG);
    ccs_counter_t got{0, 0, CCS_OK};
    const ccs_completion_t arrived{nullptr, nullptr, &got};
    CCS_EXPECT_OK(ccs_am_accept(r.tokens[0], in.data(), in.size(), &arrived));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(got) >= 1; }));
    EXPECT_EQ(sent.errors + got.errors, 0u);
    EXPECT_EQ(in, out);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, DestroyingTheContextCancelsUndecidedMessages) {
    receiver r;
    r.how = receiver::policy::defer;
    std::vector<uint8_t> out(200000, 4);
    ccs_counter_t sent{0, 0, CCS_OK};
    std::vector<ccs_am_token_t> kept;
    {
        const ccs_completion_t done{nullptr, nullptr, &sent};
        large_context ctx("large-cancel", r);
        for (size_t length : {size_t{10}, out.size()})
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), length, &done));
        EXPECT_TRUE(progress_until([&] { return r.tokens.size() >= 2; }));
        kept = r.tokens;
        CCS_EXPECT_OK(ccs_barrier());
    }  // destroyed here, the tokens undecided
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 2; }));
    EXPECT_EQ(sent.errors, 2u);
    EXPECT_EQ(sent.first_error, CCS_ERR_CANCELED);
    for (const ccs_am_token_t t : kept) EXPECT_EQ(ccs_am_refuse(t), CCS_ERR_INVALID_ARG);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, DestroyingTheContextWhilePayloadsComeEndsThem) {
    // Each target destroys its context as soon as it accepted. The destroy
    // returns once nothing writes into the destination any more, so the
    // destination may be freed at once (a late write shows under ASan);
    // both ends hear that the message arrived or was cancelled.
    constexpr size_t length = size_t{16} << 20;
    receiver r;
    auto in = std::make_unique<std::vector<uint8_t>>(length);
    r.destination = in->data();
    r.length = length;
    std::vector<uint8_t> out(length);
    fill_pattern(out, static_cast<uint64_t>(rank()), 3);
    ccs_counter_t sent{0, 0, CCS_OK};
    {
        const ccs_completion_t done{nullptr, nullptr, &sent};
        large_context ctx("large-cancel-moving", r);
        CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), length, &done));
        EXPECT_TRUE(progress_until([&] { return r.headers >= 1; }));
        EXPECT_EQ(r.accept_status, CCS_OK) << r.accept_detail;
    }
    const bool arrived = counted(r.data) >= 1 && r.data.errors == 0;
    if (arrived) {
        EXPECT_TRUE(check_pattern(in->data(), length, static_cast<uint64_t>(previous_rank()), 3));
    }
    in.reset();
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; }));
    for (const ccs_counter_t *c : {&sent, &r.data})
        if (c->errors) {
            EXPECT_EQ(c->first_error, CCS_ERR_CANCELED) << ccs_strerror(c->first_error);
        }
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, ASenderKeepsAtMostTheWindowUndecided) {
    constexpr uint64_t messages = 150, window = 64;  // CCS_AM_LARGE_WINDOW's default
    receiver r;
    r.how = receiver::policy::defer;
    std::vector<uint8_t> out(100000, 6), in(100000);
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    large_context ctx("large-window", r);
    const uint64_t went_before = stat("am.large_sent"), answered_before = stat("am.large_answered");
    uint64_t large = 0;
    for (uint64_t i = 0; i < messages; ++i) {
        if (i % 5 == 0) {
            CCS_EXPECT_OK(ccs_am_send(ctx, next_rank(), small_id, &i, 1, "s", 1, nullptr));
        } else {
            CCS_EXPECT_OK(
                ccs_am_send_large(ctx, next_rank(), header_id, &i, 1, out.data(), i % 2 ? 40 : out.size(), &done));
            ++large;
        }
    }
    // At most `window` went unanswered; the rest wait. (Without a progress
    // thread nothing was answered yet: exactly `window` went.) The count
    // of those that went is read before the answered ones, which only grow.
    // Answered, not completed: a payload pushed after its answer completes
    // later.
    const uint64_t went = stat("am.large_sent") - went_before;
    EXPECT_GE(went, window);
    const uint64_t answered = stat("am.large_answered") - answered_before;
    EXPECT_LE(went, answered + window);
    size_t most_undecided = 0;
    EXPECT_TRUE(progress_until([&] {
        most_undecided = std::max(most_undecided, r.tokens.size());
        for (const ccs_am_token_t t : r.tokens) CCS_EXPECT_OK(ccs_am_accept(t, in.data(), in.size(), nullptr));
        r.tokens.clear();
        return r.order.size() >= messages && counted(sent) >= large;
    }));
    EXPECT_LE(most_undecided, window);
    ASSERT_EQ(r.order.size(), messages);
    for (uint64_t i = 0; i < messages; ++i) EXPECT_EQ(r.order[i], i);
    EXPECT_EQ(sent.errors, 0u);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, NeitherEndsMemoryStaysExposed) {
    // The sender registered its payload, and where the sender writes the
    // target registered its destination, for the message only: afterwards
    // each end naming the other's memory is refused, whichever way the
    // payload came.
    if (size() < 2) GTEST_SKIP() << "needs a peer";
    receiver r;
    std::vector<uint8_t> out(size_t{1} << 20, 9), in(out.size());
    r.destination = in.data();
    r.length = in.size();
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    large_context ctx("large-unexposed", r);
    const uint64_t payload_at = reinterpret_cast<uintptr_t>(out.data());
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &payload_at, 1, out.data(), out.size(), &done));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; }));
    EXPECT_EQ(sent.errors + r.data.errors, 0u);
    EXPECT_EQ(in, out);
    CCS_EXPECT_OK(ccs_barrier());
    // Each target tells its sender where the payload went (after the
    // header's address in the log).
    const uint64_t destination_at = reinterpret_cast<uintptr_t>(in.data());
    CCS_EXPECT_OK(ccs_am_send(ctx, previous_rank(), small_id, &destination_at, 1, nullptr, 0, nullptr));
    EXPECT_TRUE(progress_until([&] { return r.order.size() >= 2; }));
    uint64_t word = 0;
    EXPECT_EQ(ccs_get_sync(ctx, previous_rank(), &word, 8, r.order.at(0), CCS_RKEY_IMPLICIT), CCS_ERR_NOT_REGISTERED)
        << ccs_last_error();
    EXPECT_EQ(ccs_put_sync(ctx, next_rank(), &word, 8, r.order.at(1), CCS_RKEY_IMPLICIT), CCS_ERR_NOT_REGISTERED)
        << ccs_last_error();
    CCS_EXPECT_OK(ccs_barrier());
    EXPECT_TRUE(std::all_of(in.begin(), in.end(), [](uint8_t b) { return b == 9; }));
}
