// Large active messages: the header handler accepts into contiguous and
// datadesc destinations at sizes around every threshold, defers and accepts
// later out of order, refuses; header handlers keep the context's order
// with small messages; mistakes give errors at both ends and lose nothing
// else; a context destroyed with undecided messages, or while payloads
// come, tells their senders.
#include "harness.hpp"

#include <ccs/am_large.h>
#include <ccs/datadesc.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace conformance;

namespace {

constexpr uint16_t header_id = 7;
constexpr uint16_t small_id = 8;

int next_rank() { return (rank() + 1) % size(); }
int previous_rank() { return (rank() + size() - 1) % size(); }

// What the header handler does with each message, and what it saw.
struct receiver {
    enum class policy { accept, defer, refuse } how = policy::accept;
    uint8_t *destination = nullptr;
    size_t length = 0;
    ccs_datadesc_t dd = nullptr;  // set: accept into `count` elements of it
    int64_t count = 0;
    ccs_counter_t data{0, 0, CCS_OK};
    int headers = 0;
    size_t size_seen = 0;
    int source_seen = -1;
    bool payload_in_hand = false;
    ccs_status_t accept_status = CCS_OK;
    std::string accept_detail;  // ccs_last_error() of a failed accept
    std::vector<ccs_am_token_t> tokens;
    std::vector<uint64_t> order;  // args[0] of every message, header or small
};

void on_header(const ccs_am_header_t *h, void *arg) {
    auto *r = static_cast<receiver *>(arg);
    ++r->headers;
    r->size_seen = h->payload_size;
    r->source_seen = h->source;
    r->payload_in_hand = h->payload != nullptr;
    if (h->nargs > 0) r->order.push_back(h->args[0]);
    const ccs_completion_t done{nullptr, nullptr, &r->data};
    switch (r->how) {
    case receiver::policy::accept:
        r->accept_status = r->dd ? ccs_am_accept_datadesc(h->token, r->destination, r->count, r->dd, &done)
                                 : ccs_am_accept(h->token, r->destination, r->length, &done);
        if (r->accept_status != CCS_OK) r->accept_detail = ccs_last_error();
        break;
    case receiver::policy::defer:
        r->tokens.push_back(h->token);
        break;
    case receiver::policy::refuse:
        r->accept_status = ccs_am_refuse(h->token);
        break;
    }
}

void on_small(const ccs_am_message_t *m, void *arg) {
    auto *r = static_cast<receiver *>(arg);
    if (m->nargs > 0) r->order.push_back(m->args[0]);
}

// A context whose id `header_id` is the receiver's header handler (and
// `small_id` an ordinary handler into the same log), ready everywhere.
class large_context {
public:
    large_context(const char *name, receiver &r, uint64_t flags = 0) : ctx_(name, {{small_id, on_small, &r}}, flags) {
        EXPECT_EQ(ccs_am_header_handler_register(ctx_, header_id, on_header, &r), CCS_OK) << ccs_last_error();
        EXPECT_EQ(ccs_barrier(), CCS_OK);
    }
    operator ccs_context_t() const { return ctx_; }

private:
    scoped_context ctx_;
};

// Memory for a payload: ordinary heap, or ccs_mem_alloc (mapped by peers
// on the node, so the target copies from it directly).
class buffer {
public:
    buffer(size_t length, bool shared) : length_(length) {
        if (shared && length > 0) {
            void *p = nullptr;
            EXPECT_EQ(ccs_mem_alloc(length, &p, &mem_), CCS_OK) << ccs_last_error();
            data_ = static_cast<uint8_t *>(p);
        } else {
            // Not zeroed: every user fills or clears it, and each pass over
            // 64 MiB of fresh pages is slow under the sanitizers.
            heap_ = std::make_unique_for_overwrite<uint8_t[]>(std::max<size_t>(length, 1));
            data_ = heap_.get();
        }
    }
    ~buffer() {
        if (mem_.id) {
            EXPECT_EQ(ccs_mem_free(mem_), CCS_OK) << ccs_last_error();
        }
    }
    buffer(const buffer &) = delete;
    buffer &operator=(const buffer &) = delete;
    uint8_t *data() { return data_; }
    size_t size() const { return length_; }
    void fill(uint64_t a, uint64_t b) { fill_pattern(data_, length_, a, b); }

private:
    size_t length_;
    std::unique_ptr<uint8_t[]> heap_;
    uint8_t *data_ = nullptr;
    ccs_mem_t mem_{0};
};

// Every rank sends `length` bytes to the next one, which accepts them into
// its destination; both completions run and the bytes arrive.
void ring_exchange(size_t length, bool shared_source) {
    receiver r;
    buffer out(length, shared_source), in(length, false);
    out.fill(static_cast<uint64_t>(rank()), length);
    std::memset(in.data(), 0, length);
    r.destination = in.data();
    r.length = length;
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    const uint64_t tag = length;
    large_context ctx("large-ring", r);
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &tag, 1, out.data(), length, &done));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; })) << length;
    EXPECT_EQ(sent.errors, 0u) << length << ": " << ccs_strerror(sent.first_error);
    EXPECT_EQ(r.data.errors, 0u) << length;
    EXPECT_EQ(r.accept_status, CCS_OK) << length << ": " << r.accept_detail;
    EXPECT_EQ(r.size_seen, length);
    EXPECT_EQ(r.source_seen, previous_rank());
    EXPECT_TRUE(check_pattern(in.data(), length, static_cast<uint64_t>(previous_rank()), length)) << length;
    CCS_EXPECT_OK(ccs_barrier());
}

// Sizes around the eager limit (16 KiB), the shm packet (32 KiB), the
// core's mapped-copy limit (1 MiB), and large.
const size_t ring_sizes[] = {0,         1,       100,         16383,       16384,   16385,
                             32 << 10,  64 << 10, (1 << 20) - 1, 1 << 20,   (1 << 20) + 1, 4 << 20};

// A strided layout of `blocks` blocks of 24 bytes, 40 apart.
ccs_datadesc_t strided(int64_t blocks) {
    ccs_datadesc_t d = nullptr;
    EXPECT_EQ(ccs_datadesc_hvector(blocks, 24, 40, CCS_BYTE, &d), CCS_OK);
    EXPECT_EQ(ccs_datadesc_commit(d), CCS_OK);
    return d;
}

}  // namespace

TEST(LargeMessages, AcceptedIntoContiguousDestinationsAtEverySize) {
    const uint64_t placed_before = stat("am.placed");
    for (size_t length : ring_sizes) ring_exchange(length, false);
    // Where the configuration says the transport fetches pushed payloads
    // straight into the destination (CCS_TEST_PLACED=1), it did.
    if (std::getenv("CCS_TEST_PLACED") && size() > 1) {
        EXPECT_GT(stat("am.placed"), placed_before);
    }
}

TEST(LargeMessages, FromSharedMemory) {
    for (size_t length : {size_t{100}, size_t{1} << 20, size_t{16} << 20}) ring_exchange(length, true);
}

TEST(LargeMessages, SixtyFourMebibytes) {
    // Memory: a send and a receive buffer per process.
    if (size() > 4) GTEST_SKIP() << "64 MiB per process on " << size() << " processes is too much memory";
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
    ccs_context_set_error_handler(ctx, [](ccs_context_t, ccs_status_t, int, const char *, void *) {}, nullptr);
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
            CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &i, 1, out.data(), i % 2 ? 40 : out.size(), &done));
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

TEST(LargeMessages, APayloadSentLeavesItsMemoryUnexposed) {
    if (size() < 2) GTEST_SKIP() << "needs a peer";
    receiver r;
    std::vector<uint8_t> out(size_t{1} << 20, 9), in(out.size());
    r.destination = in.data();
    r.length = in.size();
    ccs_counter_t sent{0, 0, CCS_OK};
    const ccs_completion_t done{nullptr, nullptr, &sent};
    large_context ctx("large-unexposed", r);
    const uint64_t where = reinterpret_cast<uintptr_t>(out.data());
    CCS_EXPECT_OK(ccs_am_send_large(ctx, next_rank(), header_id, &where, 1, out.data(), out.size(), &done));
    EXPECT_TRUE(progress_until([&] { return counted(sent) >= 1 && counted(r.data) >= 1; }));
    CCS_EXPECT_OK(ccs_barrier());
    // The sender registered its payload for the message only: a peer
    // naming that memory afterwards is refused.
    uint64_t word = 0;
    EXPECT_EQ(ccs_get_sync(ctx, previous_rank(), &word, 8, r.order.at(0), CCS_RKEY_IMPLICIT), CCS_ERR_NOT_REGISTERED)
        << ccs_last_error();
    CCS_EXPECT_OK(ccs_barrier());
}
