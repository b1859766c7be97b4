// Active messages whose payload is a datadesc: the handler gets the packed
// bytes, contiguous, for layouts small and fragmented, with and without a
// completion, and with the datadesc freed while the send is in flight.
#include "harness.hpp"

#include <ccs/datadesc.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

using namespace conformance;

namespace {

struct dd_case {
    const char *name;
    std::function<ccs_datadesc_t()> make;
    int64_t count;
};

// Takes a pointer: the constructor call in the first argument sets *d, and
// argument evaluation order is unspecified.
ccs_datadesc_t committed(ccs_status_t st, const ccs_datadesc_t *dp) {
    EXPECT_EQ(st, CCS_OK) << ccs_last_error();
    ccs_datadesc_t d = *dp;
    EXPECT_EQ(ccs_datadesc_commit(d), CCS_OK);
    return d;
}

std::vector<dd_case> cases() {
    return {
        {"vector 8B blocks stride 16", [] { ccs_datadesc_t d; return committed(ccs_datadesc_vector(64, 8, 16, CCS_BYTE, &d), &d); }, 1},
        {"vector fragmented", [] { ccs_datadesc_t d; return committed(ccs_datadesc_vector(9000, 8, 16, CCS_BYTE, &d), &d); }, 2},
        {"contiguous shortcut", [] { ccs_datadesc_t d; return committed(ccs_datadesc_contiguous(70000, CCS_BYTE, &d), &d); }, 1},
        {"subarray face", [] {
             const int64_t sizes[] = {40, 40, 40}, sub[] = {40, 1, 40}, starts[] = {0, 7, 0};
             ccs_datadesc_t d;
             return committed(ccs_datadesc_subarray(3, sizes, sub, starts, CCS_ORDER_C, CCS_BYTE, &d), &d);
         }, 1},
        {"negative stride", [] { ccs_datadesc_t d; return committed(ccs_datadesc_hvector(5000, 3, -7, CCS_BYTE, &d), &d); }, 1},
        {"empty", [] { ccs_datadesc_t d; return committed(ccs_datadesc_contiguous(0, CCS_BYTE, &d), &d); }, 3},
    };
}

// Memory for `count` elements of d and the bytes they pack to, filled by a
// pattern that depends on the owner's rank.
struct source {
    std::vector<uint8_t> memory;
    int64_t origin = 0;
    std::vector<uint8_t> packed;
    source(ccs_datadesc_t d, int64_t count, int owner) {
        int64_t size = 0, lb = 0, extent = 0, tlb = 0, text = 0;
        ccs_datadesc_size(d, &size);
        ccs_datadesc_extent(d, &lb, &extent);
        ccs_datadesc_true_extent(d, &tlb, &text);
        const int64_t lo = std::min<int64_t>(tlb, tlb + (count - 1) * extent);
        const int64_t hi = std::max<int64_t>(tlb + text, tlb + text + (count - 1) * extent);
        origin = -lo;
        memory.resize(static_cast<size_t>(hi - lo + 1));
        fill_pattern(memory, static_cast<uint64_t>(owner), 77);
        packed.resize(static_cast<size_t>(size * count));
        int64_t done = 0;
        EXPECT_EQ(ccs_datadesc_pack(at(), count, d, 0, packed.data(), static_cast<int64_t>(packed.size()), &done), CCS_OK);
    }
    const uint8_t *at() const { return memory.data() + origin; }
};

struct receive_state {
    std::vector<std::vector<std::vector<uint8_t>>> expect;  // [case][source]
    int received = 0;
    int bad = 0;
};

void on_datadesc(const ccs_am_message_t *m, void *arg) {
    auto *s = static_cast<receive_state *>(arg);
    ++s->received;
    const auto &want = s->expect[m->args[0]][static_cast<size_t>(m->source)];
    if (m->payload_size != want.size() ||
        (m->payload_size && std::memcmp(m->payload, want.data(), want.size()) != 0))
        ++s->bad;
}

void count_completion(ccs_status_t st, void *arg) {
    if (st == CCS_OK) ++*static_cast<int *>(arg);
}

}  // namespace

TEST(ActiveMessages, DatadescPayloadsArrivePacked) {
    const auto all = cases();
    receive_state state;
    std::vector<std::vector<std::unique_ptr<source>>> sources(all.size());
    for (size_t c = 0; c < all.size(); ++c) {
        ccs_datadesc_t d = all[c].make();
        state.expect.emplace_back();
        for (int r = 0; r < size(); ++r) {
            sources[c].push_back(std::make_unique<source>(d, all[c].count, r));
            state.expect[c].push_back(sources[c].back()->packed);
        }
        ccs_datadesc_free(&d);
    }
    scoped_context ctx("datadesc", {{1, on_datadesc, &state}});
    int completed = 0;
    int sent = 0;
    for (size_t c = 0; c < all.size(); ++c) {
        const source &mine = *sources[c][static_cast<size_t>(rank())];
        for (int t = 0; t < size(); ++t) {
            for (bool with_completion : {false, true}) {
                ccs_datadesc_t d = all[c].make();
                const uint64_t arg = c;
                const ccs_completion_t done{count_completion, &completed};
                CCS_EXPECT_OK(ccs_am_send_datadesc(ctx, t, 1, &arg, 1, mine.at(), all[c].count, d,
                                                   with_completion ? &done : nullptr));
                ccs_datadesc_free(&d);  // in flight: the engine keeps what it needs
                ++sent;
            }
        }
    }
    const int expected = sent;  // everyone sends the same number to everyone
    EXPECT_TRUE(progress_until([&] { return state.received >= expected && completed >= sent / 2; }));
    EXPECT_EQ(state.received, expected);
    EXPECT_EQ(state.bad, 0);
    EXPECT_EQ(completed, sent / 2);
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(BadInput, DatadescSendChecksItsDatadesc) {
    scoped_context ctx("datadesc-bad");
    ccs_datadesc_t loose = nullptr;
    ASSERT_EQ(ccs_datadesc_vector(2, 1, 2, CCS_BYTE, &loose), CCS_OK);
    char buf[8] = {};
    EXPECT_EQ(ccs_am_send_datadesc(ctx, 0, 1, nullptr, 0, buf, 1, loose, nullptr), CCS_ERR_NOT_COMMITTED);
    EXPECT_EQ(ccs_am_send_datadesc(ctx, 0, 1, nullptr, 0, buf, 1, nullptr, nullptr), CCS_ERR_INVALID_ARG);
    ASSERT_EQ(ccs_datadesc_commit(loose), CCS_OK);
    EXPECT_EQ(ccs_am_send_datadesc(ctx, 0, 1, nullptr, 0, buf, -1, loose, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_send_datadesc(ctx, 0, 1, nullptr, 0, nullptr, 1, loose, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_am_send_datadesc(ctx, size(), 1, nullptr, 0, buf, 1, loose, nullptr), CCS_ERR_INVALID_RANK);
    ccs_datadesc_free(&loose);
    CCS_EXPECT_OK(ccs_barrier());
}
