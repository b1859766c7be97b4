// FIFO per (context, source, target) under stress: 100,000 messages of
// random sizes (some fragmented) over several contexts, every stream checked
// in order and complete. Run through the altered plugin with
// CCS_ALTERED_SHUFFLE=1 (unordered, shuffled delivery) this exercises the
// core's sequence numbers and reorder buffer on real processes.
#include "harness.hpp"

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace conformance;

namespace {

constexpr int ordered_contexts = 3;
constexpr uint64_t total_messages = 100000;

struct stream_state {
    std::vector<uint64_t> next;  // per source: the sequence expected next
    uint64_t received = 0;
    uint64_t out_of_order = 0;
    uint64_t corrupt = 0;
};

void on_sequenced(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<stream_state *>(arg);
    ++s->received;
    const uint64_t seq = m->args[0];
    uint64_t &next = s->next[static_cast<size_t>(m->source)];
    if (seq != next) ++s->out_of_order;
    next = seq + 1;
    if (m->payload_size != m->args[1] || !check_pattern(m->payload, m->payload_size, seq, m->args[1])) ++s->corrupt;
}

struct count_sink {
    std::vector<uint64_t> *expect;
    int *arrived;
};

void on_count(const ccs_am_message_t *m, void *arg) {
    auto *sink = static_cast<count_sink *>(arg);
    (*sink->expect)[static_cast<size_t>(m->source)] = m->args[0];
    ++*sink->arrived;
}

size_t random_size(std::mt19937_64 &rng) {
    const unsigned r = rng() % 1000;
    if (r < 900) return rng() % 257;           // small, inline
    if (r < 990) return rng() % 8192;          // medium
    return 32768 + rng() % 100000;             // fragmented
}

}  // namespace

TEST(Ordering, FifoPerContextAndSourceUnderStress) {
    std::vector<stream_state> ordered(ordered_contexts);
    for (auto &s : ordered) s.next.assign(static_cast<size_t>(size()), 0);
    stream_state unordered;
    unordered.next.assign(static_cast<size_t>(size()), 0);
    std::vector<std::unique_ptr<scoped_context>> ctxs;
    for (int c = 0; c < ordered_contexts; ++c)
        ctxs.push_back(std::make_unique<scoped_context>("ordered", std::vector<ccs_am_handler_entry_t>{{1, on_sequenced, &ordered[static_cast<size_t>(c)]}}));
    scoped_context loose("unordered", {{1, on_sequenced, &unordered}}, CCS_CONTEXT_UNORDERED);

    // Each process sends its share to every process (itself included),
    // spread over the contexts; each (context, target) stream numbered.
    const uint64_t per_rank = total_messages / static_cast<uint64_t>(size());
    std::mt19937_64 rng(1000 + static_cast<uint64_t>(rank()));
    std::vector<std::vector<uint64_t>> seq(ordered_contexts + 1, std::vector<uint64_t>(static_cast<size_t>(size()), 0));
    std::vector<uint8_t> buf;
    for (uint64_t i = 0; i < per_rank; ++i) {
        const int target = static_cast<int>(rng() % static_cast<uint64_t>(size()));
        const size_t c = rng() % (ordered_contexts + 1);
        const ccs_context_t ctx = c < ordered_contexts ? ctxs[c]->handle() : loose.handle();
        const uint64_t s = seq[c][static_cast<size_t>(target)]++;
        buf.resize(random_size(rng));
        fill_pattern(buf, s, buf.size());
        const uint64_t args[2] = {s, buf.size()};
        ASSERT_EQ(ccs_am_send(ctx, target, 1, args, 2, buf.data(), buf.size(), nullptr), CCS_OK) << ccs_last_error();
        if (i % 64 == 0) ccs_progress();
    }
    // Everyone learns how many messages it must receive: one all-to-all of counts.
    std::vector<uint64_t> expect(static_cast<size_t>(size()), 0);
    int counts_in = 0;
    count_sink sink{&expect, &counts_in};
    scoped_context tally("tally", {{2, on_count, &sink}});
    for (int t = 0; t < size(); ++t) {
        uint64_t sent_to_t = 0;
        for (auto &per_ctx : seq) sent_to_t += per_ctx[static_cast<size_t>(t)];
        CCS_EXPECT_OK(ccs_am_send(tally, t, 2, &sent_to_t, 1, nullptr, 0, nullptr));
    }
    EXPECT_TRUE(progress_until([&] { return counts_in >= size(); }));
    uint64_t expected_total = 0;
    for (uint64_t e : expect) expected_total += e;
    auto received = [&] {
        uint64_t n = unordered.received;
        for (auto &s : ordered) n += s.received;
        return n;
    };
    EXPECT_TRUE(progress_until([&] { return received() >= expected_total; })) << received() << "/" << expected_total;
    EXPECT_EQ(received(), expected_total);
    for (auto &s : ordered) {
        EXPECT_EQ(s.out_of_order, 0u);
        EXPECT_EQ(s.corrupt, 0u);
    }
    EXPECT_EQ(unordered.corrupt, 0u);
    // In the shuffling test mode the reorder buffer must actually have worked.
    const char *shuffle = std::getenv("CCS_ALTERED_SHUFFLE");
    if (shuffle && std::string(shuffle) == "1" && size() > 1) {
        EXPECT_GT(stat("am.reordered"), 0u);
    }
    CCS_EXPECT_OK(ccs_barrier());
}
