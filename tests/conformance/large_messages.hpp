// What the large-message tests share: a receiver whose header handler
// accepts, defers or refuses as told and records what it saw, a context
// with it, payload buffers from heap or ccs_mem_alloc, and a ring exchange
// of one message per rank.
#pragma once

#include "harness.hpp"

#include <ccs/am_large.h>
#include <ccs/datadesc.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace conformance::large_messages {

constexpr uint16_t header_id = 7;
constexpr uint16_t small_id = 8;

inline int next_rank() { return (rank() + 1) % size(); }
inline int previous_rank() { return (rank() + size() - 1) % size(); }

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

inline void on_header(const ccs_am_header_t *h, void *arg) {
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
        case receiver::policy::defer: r->tokens.push_back(h->token); break;
        case receiver::policy::refuse: r->accept_status = ccs_am_refuse(h->token); break;
    }
}

inline void on_small(const ccs_am_message_t *m, void *arg) {
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
inline void ring_exchange(size_t length, bool shared_source, bool shared_destination = false) {
    receiver r;
    buffer out(length, shared_source), in(length, shared_destination);
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
inline const size_t ring_sizes[] = {0,        1,        100,           16383,   16384,         16385,
                                    32 << 10, 64 << 10, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 4 << 20};

// A strided layout of `blocks` blocks of 24 bytes, 40 apart.
inline ccs_datadesc_t strided(int64_t blocks) {
    ccs_datadesc_t d = nullptr;
    EXPECT_EQ(ccs_datadesc_hvector(blocks, 24, 40, CCS_BYTE, &d), CCS_OK);
    EXPECT_EQ(ccs_datadesc_commit(d), CCS_OK);
    return d;
}

}  // namespace conformance::large_messages
