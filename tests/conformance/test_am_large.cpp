// Large active messages: the header handler accepts into contiguous and
// datadesc destinations (heap and ccs_mem_alloc memory) at sizes around
// every threshold, defers and accepts later out of order; header handlers
// keep the context's order with small messages and take ordinary
// messages too. Their mistakes and ends: test_am_large_errors.cpp.
#include "large_messages.hpp"

#include <cstdlib>

using namespace conformance;
using namespace conformance::large_messages;

TEST(LargeMessages, AcceptedIntoContiguousDestinationsAtEverySize) {
    const uint64_t placed_before = stat("am.placed"), written_before = stat("am.large_written");
    const uint64_t with_header_before = stat("am.large_sent_parkable"), parked_before = stat("am.parked");
    for (size_t length : ring_sizes) ring_exchange(length, false);
    // Where the route says payloads travel with their headers, some did,
    // and arrived kept by the transport until accepted.
    ccs_peer_attr_t to{sizeof to}, from{sizeof from};
    ASSERT_EQ(ccs_peer_query(next_rank(), &to), CCS_OK);
    ASSERT_EQ(ccs_peer_query(previous_rank(), &from), CCS_OK);
    if (to.flags & CCS_PEER_AM_LARGE_WITH_HEADER) {
        EXPECT_GT(stat("am.large_sent_parkable"), with_header_before);
    }
    if (from.flags & CCS_PEER_AM_LARGE_WITH_HEADER) {
        EXPECT_GT(stat("am.parked"), parked_before);
    }
    // Where the configuration says the transport fetches pushed payloads
    // straight into the destination (CCS_TEST_PLACED=1), it did; where it
    // says the senders write heap payloads (CCS_TEST_WRITTEN=1), they did.
    if (std::getenv("CCS_TEST_PLACED") && size() > 1) {
        EXPECT_GT(stat("am.placed"), placed_before);
    }
    if (std::getenv("CCS_TEST_WRITTEN") && size() > 1) {
        EXPECT_GT(stat("am.large_written"), written_before);
    }
}

TEST(LargeMessages, FromSharedMemory) {
    for (size_t length : {size_t{100}, size_t{1} << 20, size_t{16} << 20})
        if (length < (size_t{16} << 20) || size() <= 8) ring_exchange(length, true);
}

TEST(LargeMessages, IntoSharedMemory) {
    // A destination from ccs_mem_alloc, from heap and from shared sources:
    // where the sender writes, it may map the destination and copy (past
    // the core's mapped-copy limit too).
    for (bool shared_source : {false, true})
        for (size_t length : {size_t{100}, (size_t{1} << 20) + 1}) ring_exchange(length, shared_source, true);
}

TEST(LargeMessages, SixtyFourMebibytes) {
    // Memory: a send and a receive buffer per process.
    if (size() > 4) GTEST_SKIP() << "64 MiB per process on " << size() << " processes is too much memory";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // Fresh pages cost a sanitizer seconds per job, and no code runs at 64
    // MiB that 16 MiB (FromSharedMemory, the destroyed context) does not
    // reach: the release build runs it in every configuration.
    GTEST_SKIP() << "64 MiB under a sanitizer: the release build runs it";
#endif
    ring_exchange(size_t{64} << 20, false);
}

TEST(LargeMessages, HeaderHandlersGivenAtCreationNeedNoBarrier) {
    // Every process sends the moment ccs_context_create returns: the header
    // handler exists everywhere by then.
    receiver r;
    const size_t length = size_t{1} << 20;
    std::vector<uint8_t> out(length), in(length, 0);
    fill_pattern(out, static_cast<uint64_t>(rank()), 11);
    r.destination = in.data();
    r.length = length;
    const ccs_am_header_handler_entry_t headers[] = {{header_id, on_header, &r}};
    const ccs_am_handler_entry_t handlers[] = {{small_id, on_small, &r}};
    ccs_context_params_t params{sizeof params, 0, "large-at-creation", handlers, 1, headers, 1};
    ccs_context_t ctx{0};
    ASSERT_EQ(ccs_context_create(&params, &ctx), CCS_OK) << ccs_last_error();
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    const uint64_t tag = 5;
    CCS_EXPECT_OK(ccs_am_send(ctx, next_rank(), small_id, &tag, 1, nullptr, 0, nullptr));
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &tag, 1, out.data(), length, &done));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; }));
    EXPECT_EQ(sent.errors + r.data.errors, 0u) << ccs_strerror(sent.first_error);
    EXPECT_EQ(r.order, (std::vector<uint64_t>{5, 5}));  // the small one first, in order
    EXPECT_TRUE(check_pattern(in.data(), length, static_cast<uint64_t>(previous_rank()), 11));
    CCS_EXPECT_OK(ccs_barrier());
    CCS_EXPECT_OK(ccs_context_destroy(ctx));
}

TEST(LargeMessages, MistakesInHeaderHandlersAtCreationFailEveryProcess) {
    receiver r;
    const ccs_am_handler_entry_t handlers[] = {{small_id, on_small, &r}};
    const ccs_am_header_handler_entry_t clash[] = {{small_id, on_header, &r}};
    const ccs_am_header_handler_entry_t null_handler[] = {{header_id, nullptr, &r}};
    const ccs_am_header_handler_entry_t out_of_range[] = {{CCS_AM_MAX_HANDLERS, on_header, &r}};
    struct mistake {
        const ccs_am_header_handler_entry_t *entries;
        size_t count;
        ccs_status_t status;
        const char *says;
    };
    const mistake mistakes[] = {{clash, 1, CCS_ERR_HANDLER_IN_USE, "appears twice"},
                                {null_handler, 1, CCS_ERR_INVALID_ARG, "header_handlers[0].handler is NULL"},
                                {out_of_range, 1, CCS_ERR_INVALID_HANDLER, "out of range"},
                                {nullptr, 2, CCS_ERR_INVALID_ARG, "header_handlers is NULL"}};
    for (const mistake &m : mistakes) {
        // Only the last process makes the mistake; every process fails.
        const bool mine = rank() == size() - 1;
        ccs_context_params_t params{sizeof params, 0, "large-mistake", handlers, 1, mine ? m.entries : nullptr,
                                    mine ? m.count : 0};
        ccs_context_t ctx{0};
        const ccs_status_t st = ccs_context_create(&params, &ctx);
        const std::string why = ccs_last_error();
        if (mine) {
            EXPECT_EQ(st, m.status) << why;
            EXPECT_TRUE(mentions(why, m.says)) << why;
        } else {
            EXPECT_EQ(st, CCS_ERR_INVALID_ARG) << why;
        }
        EXPECT_EQ(ctx.id, 0u);
    }
    // A struct that ends before the header handlers has none: it works.
    ccs_context_params_t older{offsetof(ccs_context_params_t, header_handlers), 0, "large-older", handlers, 1,
                               reinterpret_cast<const ccs_am_header_handler_entry_t *>(uintptr_t{1}), 7};
    ccs_context_t ctx{0};
    CCS_EXPECT_OK(ccs_context_create(&older, &ctx));
    CCS_EXPECT_OK(ccs_context_destroy(ctx));
}

TEST(LargeMessages, DatadescSourcesAndDestinations) {
    for (int64_t blocks : {int64_t{1}, int64_t{300}, int64_t{700}, int64_t{50000}}) {
        receiver r;
        ccs_datadesc_t d = strided(blocks);
        const size_t bytes = static_cast<size_t>(blocks) * 24, span = static_cast<size_t>(blocks) * 40;
        std::vector<uint8_t> out(span), in(span, 0xEE), packed(bytes);
        fill_pattern(out, static_cast<uint64_t>(rank()), 5);
        int64_t done_bytes = 0;
        EXPECT_EQ(ccs_datadesc_pack(out.data(), 1, d, 0, packed.data(), static_cast<int64_t>(bytes), &done_bytes), CCS_OK);
        r.destination = in.data();
        r.dd = d;
        r.count = 1;
        ccs_counter_t sent{0, 0, CCS_OK};
        const ccs_completion_t done{nullptr, nullptr, &sent};
        const uint64_t tag = 1;
        large_context ctx("large-datadesc", r);
        CCS_EXPECT_OK(ccs_am_send_large_datadesc(ctx, next_rank(), header_id, &tag, 1, out.data(), 1, d, &done));
        EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; })) << blocks;
        EXPECT_EQ(sent.errors, 0u) << blocks << ": " << ccs_strerror(sent.first_error);
        EXPECT_EQ(r.accept_status, CCS_OK) << ccs_last_error();
        // The blocks are the previous rank's; the gaps untouched.
        std::vector<uint8_t> theirs(span);
        fill_pattern(theirs, static_cast<uint64_t>(previous_rank()), 5);
        bool same = true;
        for (size_t i = 0; i < span; ++i) same = same && in[i] == (i % 40 < 24 ? theirs[i] : 0xEE);
        EXPECT_TRUE(same) << blocks;
        CCS_EXPECT_OK(ccs_barrier());
        ccs_datadesc_free(&d);
    }
}

TEST(LargeMessages, ContiguousSourceIntoDatadescAndBack) {
    const int64_t blocks = 20000;  // 480 000 bytes: read from the sender
    ccs_datadesc_t d = strided(blocks);
    const size_t bytes = static_cast<size_t>(blocks) * 24, span = static_cast<size_t>(blocks) * 40;
    for (bool into_layout : {true, false}) {
        receiver r;
        std::vector<uint8_t> out(span), in(span, 0);
        fill_pattern(out, static_cast<uint64_t>(rank()), 9);
        r.destination = in.data();
        r.length = bytes;
        if (into_layout) {
            r.dd = d;
            r.count = 1;
        }
        ccs_counter_t sent{0, 0, CCS_OK};
        const ccs_completion_t done{nullptr, nullptr, &sent};
        large_context ctx("large-mixed", r);
        if (into_layout)
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, nullptr, 0, out.data(), bytes, &done));
        else
            CCS_EXPECT_OK(ccs_am_send_large_datadesc(ctx, next_rank(), header_id, nullptr, 0, out.data(), 1, d, &done));
        EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; }));
        EXPECT_EQ(sent.errors + r.data.errors, 0u);
        std::vector<uint8_t> theirs(span), packed(bytes), got(bytes);
        fill_pattern(theirs, static_cast<uint64_t>(previous_rank()), 9);
        int64_t n = 0;
        // Either way the stream is the same: the layout's bytes in order.
        if (into_layout) {
            EXPECT_EQ(ccs_datadesc_pack(in.data(), 1, d, 0, got.data(), static_cast<int64_t>(bytes), &n), CCS_OK);
            EXPECT_TRUE(std::equal(got.begin(), got.end(), theirs.begin()));
        } else {
            EXPECT_EQ(ccs_datadesc_pack(theirs.data(), 1, d, 0, packed.data(), static_cast<int64_t>(bytes), &n), CCS_OK);
            EXPECT_TRUE(std::equal(packed.begin(), packed.end(), in.begin()));
        }
        CCS_EXPECT_OK(ccs_barrier());
    }
    ccs_datadesc_free(&d);
}

TEST(LargeMessages, DeferredAndAcceptedLaterOutOfOrder) {
    constexpr int messages = 48;
    for (size_t length : {size_t{64}, size_t{300000}}) {
        receiver r;
        r.how = receiver::policy::defer;
        std::vector<std::vector<uint8_t>> out(messages), in(messages);
        ccs_counter_t sent{0, 0, CCS_OK};
        const ccs_completion_t done{nullptr, nullptr, &sent};
        large_context ctx("large-defer", r);
        for (int i = 0; i < messages; ++i) {
            out[i].resize(length);
            fill_pattern(out[i], static_cast<uint64_t>(rank()), static_cast<uint64_t>(i));
            in[i].assign(length, 0);
            const uint64_t tag = static_cast<uint64_t>(i);
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &tag, 1, out[i].data(), length, &done));
        }
        EXPECT_TRUE(progress_until([&] { return r.tokens.size() >= messages; }));
        EXPECT_EQ(counted(sent), 0u) << "nothing completes before the target decides";
        CCS_EXPECT_OK(ccs_barrier());  // no target decides before every sender looked
        // Last first: data completions finish in any order.
        ASSERT_EQ(r.order.size(), static_cast<size_t>(messages));
        for (int i = messages - 1; i >= 0; --i) {
            const ccs_completion_t got{nullptr, nullptr, &r.data};
            CCS_EXPECT_OK(ccs_am_accept(r.tokens[static_cast<size_t>(i)], in[r.order[static_cast<size_t>(i)]].data(),
                                        length, &got));
        }
        EXPECT_TRUE(progress_until([&] { return counted(sent) >= messages && counted(r.data) >= messages; }));
        EXPECT_EQ(sent.errors + r.data.errors, 0u);
        for (int i = 0; i < messages; ++i)
            EXPECT_TRUE(check_pattern(in[i].data(), length, static_cast<uint64_t>(previous_rank()),
                                      static_cast<uint64_t>(i)))
                << i;
        // A token is good for one decision.
        EXPECT_EQ(ccs_am_refuse(r.tokens[0]), CCS_ERR_INVALID_ARG);
        CCS_EXPECT_OK(ccs_barrier());
    }
}

TEST(LargeMessages, HeaderHandlersKeepOrderWithSmallMessages) {
    receiver r;
    r.how = receiver::policy::accept;
    constexpr int rounds = 60;
    std::vector<uint8_t> out(100000, 1), in(100000);
    r.destination = in.data();
    r.length = in.size();
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    int large_sent = 0;
    large_context ctx("large-order", r);
    for (uint64_t i = 0; i < rounds; ++i) {
        // Small, eager-sized and fetched large messages, interleaved.
        if (i % 3 == 0) {
            CCS_EXPECT_OK(ccs_am_send(ctx, next_rank(), small_id, &i, 1, "s", 1, nullptr));
        } else {
            const size_t length = i % 3 == 1 ? 50 : out.size();
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &i, 1, out.data(), length, &done));
            ++large_sent;
        }
    }
    EXPECT_TRUE(progress_until([&] { return r.order.size() >= rounds && counted(sent) >= uint64_t(large_sent); }));
    ASSERT_EQ(r.order.size(), static_cast<size_t>(rounds));
    for (uint64_t i = 0; i < rounds; ++i) EXPECT_EQ(r.order[i], i);
    EXPECT_EQ(sent.errors, 0u);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(LargeMessages, OrdinaryMessageToHeaderHandlerCarriesItsPayload) {
    receiver r;
    std::vector<uint8_t> in(64, 0);
    r.destination = in.data();
    r.length = in.size();
    const uint64_t tag = 3;
    large_context ctx("large-ordinary", r);
    CCS_EXPECT_OK(ccs_am_send(ctx, next_rank(), header_id, &tag, 1, "0123456789", 10, nullptr));
    EXPECT_TRUE(progress_until([&] { return counted(r.data) >= 1; }));
    EXPECT_TRUE(r.payload_in_hand);
    EXPECT_EQ(r.size_seen, 10u);
    EXPECT_EQ(std::memcmp(in.data(), "0123456789", 10), 0);
    CCS_EXPECT_OK(ccs_barrier());
}
