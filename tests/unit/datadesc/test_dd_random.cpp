// Self-check without an outside oracle: random datadesc trees (depth <= 4,
// every constructor, negative strides, resized) are built together with the
// explicit list of byte offsets they must describe. Then:
//   - one-shot pack equals gathering those offsets;
//   - packing in random segments, in random order, overlapping, gives the
//     same bytes;
//   - unpacking into a random layout B of the same size and packing B back
//     gives the same stream;
//   - copying straight from A into B and back (dd::copy_layouts, what RMA
//     into mapped memory does) moves the same bytes, and dd::footprint is
//     the span of the offsets;
//   - the layout written as bytes and read back (what RMA in active
//     messages sends the target) packs the same and has the same bounds;
//   - the iovec walk covers exactly the same bytes.
// Fixed seeds here; CCS_DATADESC_SEED=<n> and CCS_DATADESC_ROUNDS=<n> run
// others for longer.
#include "dd_helpers.hpp"
#include "datadesc/layout_copy.hpp"
#include "datadesc/layout_wire.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>

namespace {

struct layout {
    dd_handle dd;
    std::vector<int64_t> offsets;  // typemap order, one element
    int64_t lb = 0, extent = 0;
};

using rng_t = std::mt19937_64;
int64_t pick(rng_t &r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }

void finish(layout &l) {
    ASSERT_EQ(ccs_datadesc_extent(l.dd, &l.lb, &l.extent), CCS_OK);
    int64_t size = 0;
    ccs_datadesc_size(l.dd, &size);
    ASSERT_EQ(size, static_cast<int64_t>(l.offsets.size()));
}

// `blocklength` replicas of child at byte displacement d, child-extent apart.
void replicate(std::vector<int64_t> &out, const layout &child, int64_t d, int64_t blocklength) {
    for (int64_t j = 0; j < blocklength; ++j)
        for (int64_t o : child.offsets) out.push_back(d + j * child.extent + o);
}

std::unique_ptr<layout> random_layout(rng_t &r, int depth);

std::unique_ptr<layout> leaf(rng_t &r) {
    auto l = std::make_unique<layout>();
    // Up to 12 pieces: long copy lists compile differently from short ones.
    const int64_t n = pick(r, 0, 2) ? pick(r, 1, 4) : pick(r, 5, 12);
    if (pick(r, 0, 1)) {
        EXPECT_EQ(ccs_datadesc_contiguous(n, CCS_BYTE, l->dd.out()), CCS_OK);
        for (int64_t i = 0; i < n; ++i) l->offsets.push_back(i);
    } else {
        std::vector<int64_t> off, len;
        for (int64_t i = 0; i < n; ++i) {
            off.push_back(pick(r, -8, 8));
            len.push_back(pick(r, 0, 3));
            for (int64_t k = 0; k < len.back(); ++k) l->offsets.push_back(off.back() + k);
        }
        EXPECT_EQ(ccs_datadesc_iov(n, off.data(), len.data(), l->dd.out()), CCS_OK);
    }
    finish(*l);
    return l;
}

std::unique_ptr<layout> random_layout(rng_t &r, int depth) {
    if (depth == 0 || pick(r, 0, 5) == 0) return leaf(r);
    auto child = random_layout(r, depth - 1);
    auto l = std::make_unique<layout>();
    switch (pick(r, 0, 9)) {
    case 0: {
        const int64_t n = pick(r, 0, 3);
        EXPECT_EQ(ccs_datadesc_contiguous(n, child->dd, l->dd.out()), CCS_OK);
        replicate(l->offsets, *child, 0, n);
        break;
    }
    case 1: {
        const int64_t n = pick(r, 0, 3), bl = pick(r, 0, 3), stride = pick(r, -4, 4);
        EXPECT_EQ(ccs_datadesc_vector(n, bl, stride, child->dd, l->dd.out()), CCS_OK);
        for (int64_t i = 0; i < n; ++i) replicate(l->offsets, *child, i * stride * child->extent, bl);
        break;
    }
    case 2: {
        const int64_t n = pick(r, 0, 3), bl = pick(r, 0, 3), stride = pick(r, -30, 30);
        EXPECT_EQ(ccs_datadesc_hvector(n, bl, stride, child->dd, l->dd.out()), CCS_OK);
        for (int64_t i = 0; i < n; ++i) replicate(l->offsets, *child, i * stride, bl);
        break;
    }
    case 3:
    case 4: {
        // Equal blocklengths and four or more blocks compile to table loops.
        const int64_t n = pick(r, 0, 6), same = pick(r, 0, 1) ? pick(r, 0, 3) : -1;
        const bool bytes = pick(r, 0, 1);
        std::vector<int64_t> bl, disp;
        for (int64_t i = 0; i < n; ++i) {
            bl.push_back(same >= 0 ? same : pick(r, 0, 3));
            disp.push_back(pick(r, -6, 6));
            replicate(l->offsets, *child, bytes ? disp.back() : disp.back() * child->extent, bl.back());
        }
        EXPECT_EQ(bytes ? ccs_datadesc_hindexed(n, bl.data(), disp.data(), child->dd, l->dd.out())
                        : ccs_datadesc_indexed(n, bl.data(), disp.data(), child->dd, l->dd.out()),
                  CCS_OK);
        break;
    }
    case 5: {
        const int64_t n = pick(r, 0, 6), bl = pick(r, 0, 2);
        std::vector<int64_t> disp;
        for (int64_t i = 0; i < n; ++i) {
            disp.push_back(pick(r, -20, 20));
            replicate(l->offsets, *child, disp.back(), bl);
        }
        EXPECT_EQ(ccs_datadesc_hindexed_block(n, bl, disp.data(), child->dd, l->dd.out()), CCS_OK);
        break;
    }
    case 6: {
        auto second = random_layout(r, depth - 1);
        const int64_t bl[] = {pick(r, 0, 2), pick(r, 0, 2)};
        const int64_t disp[] = {pick(r, -20, 20), pick(r, -20, 20)};
        const ccs_datadesc_t types[] = {child->dd, second->dd};
        EXPECT_EQ(ccs_datadesc_struct(2, bl, disp, types, l->dd.out()), CCS_OK);
        replicate(l->offsets, *child, disp[0], bl[0]);
        replicate(l->offsets, *second, disp[1], bl[1]);
        break;
    }
    case 7: {
        const int64_t lb = pick(r, -10, 10), extent = pick(r, -10, 20);
        EXPECT_EQ(ccs_datadesc_resized(child->dd, lb, extent, l->dd.out()), CCS_OK);
        l->offsets = child->offsets;
        break;
    }
    case 8: {
        const int64_t sizes[] = {pick(r, 1, 4), pick(r, 1, 4)};
        const int64_t sub[] = {pick(r, 0, sizes[0]), pick(r, 0, sizes[1])};
        const int64_t starts[] = {pick(r, 0, sizes[0] - sub[0]), pick(r, 0, sizes[1] - sub[1])};
        const bool c_order = pick(r, 0, 1);
        EXPECT_EQ(ccs_datadesc_subarray(2, sizes, sub, starts, c_order ? CCS_ORDER_C : CCS_ORDER_FORTRAN, child->dd,
                                        l->dd.out()),
                  CCS_OK);
        const int fast = c_order ? 1 : 0, slow = 1 - fast;
        for (int64_t i = 0; i < sub[slow]; ++i)
            for (int64_t j = 0; j < sub[fast]; ++j)
                replicate(l->offsets, *child,
                          ((starts[slow] + i) * sizes[fast] + starts[fast] + j) * child->extent, 1);
        break;
    }
    default: {
        EXPECT_EQ(ccs_datadesc_dup(child->dd, l->dd.out()), CCS_OK);
        l->offsets = child->offsets;
        break;
    }
    }
    finish(*l);
    return l;
}

uint64_t env_or(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Memory big enough for `count` elements of l, with its origin in the middle.
struct arena {
    std::vector<uint8_t> bytes;
    int64_t origin = 0;
    arena(const layout &l, int64_t count, uint8_t seed) {
        int64_t lo = 0, hi = 1;
        for (int64_t e = 0; e < count; ++e)
            for (int64_t o : l.offsets) {
                lo = std::min(lo, o + e * l.extent);
                hi = std::max(hi, o + e * l.extent + 1);
            }
        origin = -lo;
        bytes.resize(static_cast<size_t>(hi - lo));
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(seed + i * 13);
    }
    uint8_t *at() { return bytes.data() + origin; }
};

}  // namespace

TEST(DatadescRandom, PackMatchesTypemapInAnySegmentsAndUnpackRoundTrips) {
    const uint64_t seed = env_or("CCS_DATADESC_SEED", 20261122);
    const uint64_t rounds = env_or("CCS_DATADESC_ROUNDS", 600);
    rng_t r(seed);
    for (uint64_t round = 0; round < rounds; ++round) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round));
        auto a = random_layout(r, 4);
        ASSERT_EQ(ccs_datadesc_commit(a->dd), CCS_OK) << ccs_last_error();
        const int64_t count = pick(r, 1, 3);
        arena mem(*a, count, static_cast<uint8_t>(round));
        // The oracle: gather the typemap's offsets element by element.
        std::vector<uint8_t> expect;
        for (int64_t e = 0; e < count; ++e)
            for (int64_t o : a->offsets) expect.push_back(mem.at()[o + e * a->extent]);
        const auto total = static_cast<int64_t>(expect.size());
        ASSERT_EQ(pack_all(a->dd, mem.at(), count), expect);

        // Random segments, random order, some overlapping.
        std::vector<uint8_t> got(expect.size(), 0xEE);
        std::vector<std::pair<int64_t, int64_t>> segs;
        for (int64_t off = 0; off < total;) {
            const int64_t len = std::min(total - off, pick(r, 1, 9));
            segs.push_back({off, len});
            off += len;
        }
        for (int k = 0; k < 3 && total > 0; ++k) {
            const int64_t off = pick(r, 0, total - 1);
            segs.push_back({off, pick(r, 1, total - off)});
        }
        std::shuffle(segs.begin(), segs.end(), r);
        for (auto [off, len] : segs) {
            int64_t done = -1;
            ASSERT_EQ(ccs_datadesc_pack(mem.at(), count, a->dd, off, got.data() + off, len, &done), CCS_OK);
            ASSERT_EQ(done, len);
        }
        ASSERT_EQ(got, expect);

        // Unpack into B: the same number of bytes scattered in a random order.
        std::vector<int64_t> b_off(static_cast<size_t>(total)), b_len(static_cast<size_t>(total), 1);
        std::iota(b_off.begin(), b_off.end(), 0);
        std::shuffle(b_off.begin(), b_off.end(), r);
        dd_handle b;
        ASSERT_EQ(ccs_datadesc_iov(total, b_off.data(), b_len.data(), b.out()), CCS_OK);
        ASSERT_EQ(ccs_datadesc_commit(b), CCS_OK);
        std::vector<uint8_t> b_mem(static_cast<size_t>(total) + 1, 0);
        std::shuffle(segs.begin(), segs.end(), r);
        for (auto [off, len] : segs) {
            int64_t done = -1;
            ASSERT_EQ(ccs_datadesc_unpack(expect.data() + off, len, b_mem.data(), 1, b, off, &done), CCS_OK);
            ASSERT_EQ(done, len);
        }
        for (int64_t i = 0; i < total; ++i) ASSERT_EQ(b_mem[static_cast<size_t>(b_off[static_cast<size_t>(i)])], expect[static_cast<size_t>(i)]);
        ASSERT_EQ(pack_all(b, b_mem.data(), 1), expect);

        // Layout to layout, both ways, without a stream in between.
        std::vector<uint8_t> b_direct(b_mem.size(), 0);
        const ccs_datadesc_s *a_dd = ccs::dd::resolve(a->dd), *b_dd = ccs::dd::resolve(b);
        ccs::dd::copy_layouts(b_direct.data(), 1, *b_dd, mem.at(), count, *a_dd);
        ASSERT_EQ(b_direct, b_mem);
        arena back(*a, count, static_cast<uint8_t>(round + 1));
        ccs::dd::copy_layouts(back.at(), count, *a_dd, b_direct.data(), 1, *b_dd);
        ASSERT_EQ(pack_all(a->dd, back.at(), count), expect);
        int64_t lo = -1, hi = -1, want_lo = INT64_MAX, want_hi = INT64_MIN;
        ASSERT_TRUE(ccs::dd::footprint(*a_dd, count, lo, hi));
        for (int64_t e = 0; e < count; ++e)
            for (int64_t o : a->offsets) {
                want_lo = std::min(want_lo, o + e * a->extent);
                want_hi = std::max(want_hi, o + e * a->extent + 1);
            }
        if (a->offsets.empty()) want_lo = want_hi = 0;
        ASSERT_EQ(lo, want_lo);
        ASSERT_EQ(hi, want_hi);

        // Through the wire format and back.
        std::vector<uint8_t> wire;
        ccs::dd::layout_to_bytes(*a_dd, wire);
        ccs_datadesc_s decoded;
        ASSERT_EQ(ccs::dd::layout_from_bytes(wire.data(), wire.size(), decoded), CCS_OK) << ccs_last_error();
        struct freed {
            ccs_datadesc_t h;
            ~freed() { ccs_datadesc_free(&h); }
        } read_back{ccs::dd::handle_insert(std::make_unique<ccs_datadesc_s>(decoded))};
        ASSERT_EQ(pack_all(read_back.h, mem.at(), count), expect);
        int64_t lb = 0, extent = 0, read_lb = 0, read_extent = 0;
        ASSERT_EQ(ccs_datadesc_extent(a->dd, &lb, &extent), CCS_OK);
        ASSERT_EQ(ccs_datadesc_extent(read_back.h, &read_lb, &read_extent), CCS_OK);
        ASSERT_EQ(std::make_pair(read_lb, read_extent), std::make_pair(lb, extent));

        // The iovec walk, a few entries at a time, covers the same bytes.
        std::vector<uint8_t> via_iov;
        for (int64_t off = 0; off < total;) {
            ccs_datadesc_iovec_t iov[3];
            int64_t n = 0, bytes = 0;
            ASSERT_EQ(ccs_datadesc_iov_walk(mem.at(), count, a->dd, off, iov, 3, pick(r, 1, 40), &n, &bytes), CCS_OK);
            ASSERT_GT(bytes, 0);
            for (int64_t i = 0; i < n; ++i) {
                const auto *p = static_cast<const uint8_t *>(iov[i].base);
                via_iov.insert(via_iov.end(), p, p + iov[i].length);
            }
            off += bytes;
        }
        ASSERT_EQ(via_iov, expect);
    }
}
