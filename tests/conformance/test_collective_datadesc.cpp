// Collectives on datadesc buffers (data movement and reductions): strided
// layouts on both sides, layouts
// that differ between members (only the streams' bytes must agree), sizes
// on both sides of node memory's slot and chunk, nonblocking with the
// datadescs freed at once, and bad layouts.
#include "harness.hpp"

#include <ccs/coll.h>
#include <ccs/datadesc.h>

#include <cstring>
#include <vector>

using namespace conformance;

namespace {

// Every other int64 (blocks of one, stride two): the stream of `count`
// elements is 8 * count bytes spread over 16 * count.
struct strided_int64 {
    ccs_datadesc_t dd = nullptr;
    strided_int64() {
        ccs_datadesc_t vector = nullptr;
        EXPECT_EQ(ccs_datadesc_hvector(1, 8, 16, CCS_BYTE, &vector), CCS_OK);
        // Extent 16: consecutive elements interleave as the stride says.
        EXPECT_EQ(ccs_datadesc_resized(vector, 0, 16, &dd), CCS_OK);
        EXPECT_EQ(ccs_datadesc_commit(dd), CCS_OK);
        EXPECT_EQ(ccs_datadesc_free(&vector), CCS_OK);
    }
    ~strided_int64() {
        if (dd) {
            EXPECT_EQ(ccs_datadesc_free(&dd), CCS_OK);
        }
    }
};

int64_t value(int member, size_t i) { return static_cast<int64_t>(member) * 1000003 + static_cast<int64_t>(i); }

// Sizes in int64 per member: inline, one slot, past a slot, past a chunk.
const size_t counts[] = {0, 1, 1024, 1025, 40000};

}  // namespace

TEST(CollectiveDatadesc, BroadcastStridedFromEveryRoot) {
    strided_int64 strided;
    for (size_t count : counts)
        for (int root = 0; root < size(); ++root) {
            // Root sends from a strided buffer; odd ranks receive strided, even
            // ranks contiguously (CCS_BYTE): the streams agree.
            const bool use_strided = rank() == root || rank() % 2;
            std::vector<int64_t> buf(2 * count + 1, -1);
            if (rank() == root)
                for (size_t i = 0; i < count; ++i) buf[2 * i] = value(root, i);
            const ccs_status_t st =
                use_strided ? ccs_team_broadcast_datadesc(CCS_TEAM_WORLD, buf.data(), static_cast<int64_t>(count),
                                                          strided.dd, root, nullptr)
                            : ccs_team_broadcast_datadesc(CCS_TEAM_WORLD, buf.data(),
                                                          static_cast<int64_t>(8 * count), CCS_BYTE, root, nullptr);
            ASSERT_EQ(st, CCS_OK) << ccs_last_error();
            size_t wrong = 0;
            for (size_t i = 0; i < count; ++i) {
                wrong += buf[use_strided ? 2 * i : i] != value(root, i);
                if (use_strided) wrong += buf[2 * i + 1] != -1;  // the gaps untouched
            }
            EXPECT_EQ(wrong, 0u) << "count " << count << " root " << root;
            EXPECT_EQ(buf.back(), -1) << "past the end";
        }
}

TEST(CollectiveDatadesc, GatherAndAllgatherIntoStridedBlocks) {
    strided_int64 strided;
    const auto n = static_cast<size_t>(size());
    for (size_t count : counts) {
        // src contiguous; dst strided: member j's element i at 2 * (j * count + i).
        std::vector<int64_t> src(count);
        for (size_t i = 0; i < count; ++i) src[i] = value(rank(), i);
        std::vector<int64_t> all(2 * n * count + 1, -1);
        ASSERT_EQ(ccs_team_allgather_datadesc(CCS_TEAM_WORLD, src.data(), static_cast<int64_t>(8 * count), CCS_BYTE,
                                              all.data(), static_cast<int64_t>(count), strided.dd, nullptr),
                  CCS_OK)
            << ccs_last_error();
        size_t wrong = 0;
        for (size_t j = 0; j < n; ++j)
            for (size_t i = 0; i < count; ++i)
                wrong += all[2 * (j * count + i)] != value(static_cast<int>(j), i) || all[2 * (j * count + i) + 1] != -1;
        EXPECT_EQ(wrong, 0u) << "allgather count " << count;
        EXPECT_EQ(all.back(), -1);
        // Gather: src strided too, at the last rank.
        const int root = size() - 1;
        std::vector<int64_t> spread(2 * count, -1), at_root(2 * n * count + 1, -1);
        for (size_t i = 0; i < count; ++i) spread[2 * i] = value(rank(), i);
        ASSERT_EQ(ccs_team_gather_datadesc(CCS_TEAM_WORLD, spread.data(), static_cast<int64_t>(count), strided.dd,
                                           rank() == root ? at_root.data() : nullptr, static_cast<int64_t>(count),
                                           strided.dd, root, nullptr),
                  CCS_OK)
            << ccs_last_error();
        if (rank() == root) {
            EXPECT_EQ(at_root, all) << "gather count " << count;
        }
    }
}

TEST(CollectiveDatadesc, VariableSizesIntoStridedPlaces) {
    strided_int64 strided;
    const int n = size(), me = rank();
    const auto nn = static_cast<size_t>(n);
    for (int64_t scale : {int64_t{1}, int64_t{3000}}) {
        // Member i gives (i % 3) * scale + i int64s; its block lands strided,
        // in reverse member order, with a gap of 5 elements before each.
        std::vector<int64_t> counts(nn), displs(nn);
        int64_t end = 0;
        for (int i = n - 1; i >= 0; --i) {
            counts[static_cast<size_t>(i)] = (i % 3) * scale + i;
            displs[static_cast<size_t>(i)] = end + 5;
            end += 5 + counts[static_cast<size_t>(i)];
        }
        const auto mine = static_cast<size_t>(counts[static_cast<size_t>(me)]);
        std::vector<int64_t> src(mine);
        for (size_t k = 0; k < mine; ++k) src[k] = value(me, k);
        std::vector<int64_t> all(2 * static_cast<size_t>(end) + 1, -1);
        CCS_ASSERT_OK(ccs_team_allgatherv_datadesc(CCS_TEAM_WORLD, src.data(), static_cast<int64_t>(8 * mine), CCS_BYTE,
                                                   all.data(), counts.data(), displs.data(), strided.dd, nullptr));
        // Element e of the strided layout is at 2 * e; everything else untouched.
        std::vector<int64_t> expected(all.size(), -1);
        for (size_t i = 0; i < nn; ++i)
            for (int64_t k = 0; k < counts[i]; ++k)
                expected[2 * static_cast<size_t>(displs[i] + k)] = value(static_cast<int>(i), static_cast<size_t>(k));
        EXPECT_EQ(all, expected) << "allgatherv, scale " << scale;
        std::vector<int64_t> at_root(all.size(), -1);
        CCS_ASSERT_OK(ccs_team_gatherv_datadesc(CCS_TEAM_WORLD, src.data(), static_cast<int64_t>(8 * mine), CCS_BYTE,
                                                me == 0 ? at_root.data() : nullptr, me == 0 ? counts.data() : nullptr,
                                                me == 0 ? displs.data() : nullptr, strided.dd, 0, nullptr));
        if (me == 0) {
            EXPECT_EQ(at_root, expected) << "gatherv, scale " << scale;
        }
        // Rank 0 calls the contiguous form with the same blocks, gaps between
        // them, while the others call this one: the bytes agree, so it works.
        std::vector<int64_t> mixed(all.size(), -1);
        if (me == 0) {
            std::vector<size_t> lengths(nn), offsets(nn);
            for (size_t i = 0; i < nn; ++i) {
                lengths[i] = 8 * static_cast<size_t>(counts[i]);
                offsets[i] = 8 * static_cast<size_t>(displs[i]);
            }
            CCS_ASSERT_OK(ccs_team_allgatherv(CCS_TEAM_WORLD, src.data(), 8 * mine, mixed.data(), lengths.data(),
                                              offsets.data(), nullptr));
            for (size_t i = 0; i < nn; ++i)
                for (int64_t k = 0; k < counts[i]; ++k)
                    ASSERT_EQ(mixed[static_cast<size_t>(displs[i] + k)], value(static_cast<int>(i), static_cast<size_t>(k)))
                        << "contiguous allgatherv among datadesc ones, scale " << scale;
        } else {
            CCS_ASSERT_OK(ccs_team_allgatherv_datadesc(CCS_TEAM_WORLD, src.data(), static_cast<int64_t>(8 * mine),
                                                       CCS_BYTE, mixed.data(), counts.data(), displs.data(),
                                                       strided.dd, nullptr));
            EXPECT_EQ(mixed, expected) << "datadesc allgatherv beside a contiguous one, scale " << scale;
        }
    }
    // Without counts, allgatherv fails at once on every member.
    int64_t x = 0;
    EXPECT_EQ(ccs_team_allgatherv_datadesc(CCS_TEAM_WORLD, &x, 8, CCS_BYTE, &x, nullptr, nullptr, CCS_BYTE, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "dst_counts or dst_displs is NULL")) << ccs_last_error();
}

TEST(CollectiveDatadesc, AlltoallStridedBothSides) {
    strided_int64 strided;
    const auto n = static_cast<size_t>(size());
    for (size_t count : counts) {
        // Block j of src (for member j): its element i at 2 * (j * count + i).
        std::vector<int64_t> src(2 * n * count, -1), dst(2 * n * count + 1, -1);
        for (size_t j = 0; j < n; ++j)
            for (size_t i = 0; i < count; ++i) src[2 * (j * count + i)] = value(rank(), j * count + i);
        ASSERT_EQ(ccs_team_alltoall_datadesc(CCS_TEAM_WORLD, src.data(), static_cast<int64_t>(count), strided.dd,
                                             dst.data(), static_cast<int64_t>(count), strided.dd, nullptr),
                  CCS_OK)
            << ccs_last_error();
        const auto me = static_cast<size_t>(rank());
        size_t wrong = 0;
        for (size_t j = 0; j < n; ++j)
            for (size_t i = 0; i < count; ++i)
                wrong += dst[2 * (j * count + i)] != value(static_cast<int>(j), me * count + i) ||
                         dst[2 * (j * count + i) + 1] != -1;
        EXPECT_EQ(wrong, 0u) << "count " << count;
        EXPECT_EQ(dst.back(), -1);
    }
}

TEST(CollectiveDatadesc, ReductionsOverStridedElements) {
    strided_int64 strided;
    const int n = size(), me = rank();
    for (size_t count : counts) {
        // src strided (the gaps hold garbage that must not count), dst
        // strided for allreduce and scan, contiguous for the rest.
        std::vector<int64_t> src(2 * count, 99999), all(2 * count + 1, -1), scan(2 * count + 1, -1);
        for (size_t i = 0; i < count; ++i) src[2 * i] = value(me, i);
        const auto c = static_cast<int64_t>(count);
        CCS_ASSERT_OK(ccs_team_allreduce_datadesc(CCS_TEAM_WORLD, src.data(), c, strided.dd, all.data(), c,
                                                  strided.dd, CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
        CCS_ASSERT_OK(ccs_team_scan_datadesc(CCS_TEAM_WORLD, src.data(), c, strided.dd, scan.data(), c, strided.dd,
                                             CCS_ACC_INT64, CCS_ACC_MAX, nullptr));
        std::vector<int64_t> at_root(count, -1), ex(count, -7);
        CCS_ASSERT_OK(ccs_team_reduce_datadesc(CCS_TEAM_WORLD, src.data(), c, strided.dd,
                                               me == n - 1 ? at_root.data() : nullptr, 8 * c, CCS_BYTE, CCS_ACC_INT64,
                                               CCS_ACC_MIN, n - 1, nullptr));
        CCS_ASSERT_OK(ccs_team_exscan_datadesc(CCS_TEAM_WORLD, src.data(), c, strided.dd, ex.data(), 8 * c, CCS_BYTE,
                                               CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
        size_t wrong = 0;
        for (size_t i = 0; i < count; ++i) {
            int64_t sum = 0, prefix = 0;
            for (int m = 0; m < n; ++m) sum += value(m, i);
            for (int m = 0; m < me; ++m) prefix += value(m, i);
            wrong += all[2 * i] != sum || all[2 * i + 1] != -1;
            wrong += scan[2 * i] != value(me, i) || scan[2 * i + 1] != -1;  // MAX of 0 .. me: me's
            if (me == n - 1) wrong += at_root[i] != value(0, i);
            wrong += ex[i] != (me == 0 ? -7 : prefix);  // rank 0's untouched
        }
        EXPECT_EQ(wrong, 0u) << "count " << count;
        EXPECT_EQ(all.back(), -1);
        EXPECT_EQ(scan.back(), -1);
    }
    // A stream that is not a whole number of elements: refused at once.
    int64_t x = 0;
    EXPECT_EQ(ccs_team_allreduce_datadesc(CCS_TEAM_WORLD, &x, 6, CCS_BYTE, &x, 6, CCS_BYTE, CCS_ACC_INT64,
                                          CCS_ACC_SUM, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "whole number")) << ccs_last_error();
}

// The layouts are compiled into the collective: freeing them at once is
// safe, and the data lands when the completion says so.
TEST(CollectiveDatadesc, NonblockingWithTheDatadescFreedAtOnce) {
    const size_t count = 3000;
    std::vector<int64_t> buf(2 * count, -1);
    if (rank() == 0)
        for (size_t i = 0; i < count; ++i) buf[2 * i] = value(0, i);
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    {
        strided_int64 strided;
        CCS_ASSERT_OK(ccs_team_broadcast_datadesc(CCS_TEAM_WORLD, buf.data(), static_cast<int64_t>(count), strided.dd,
                                                  0, &c));
    }
    CCS_ASSERT_OK(ccs_counter_wait(&done, 1));
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) wrong += buf[2 * i] != value(0, i) || buf[2 * i + 1] != -1;
    EXPECT_EQ(wrong, 0u);
}

TEST(CollectiveDatadesc, BadLayoutsAreRefused) {
    int64_t x[4] = {};
    // Every member alike: refused at once.
    auto forged = reinterpret_cast<ccs_datadesc_t>(uintptr_t{0x5151});
    EXPECT_EQ(ccs_team_broadcast_datadesc(CCS_TEAM_WORLD, x, 1, forged, 0, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_team_broadcast_datadesc")) << ccs_last_error();
    ccs_datadesc_t uncommitted = nullptr;
    CCS_ASSERT_OK(ccs_datadesc_contiguous(2, CCS_BYTE, &uncommitted));
    EXPECT_EQ(ccs_team_allgather_datadesc(CCS_TEAM_WORLD, x, 1, uncommitted, x, 1, uncommitted, nullptr),
              CCS_ERR_NOT_COMMITTED);
    CCS_EXPECT_OK(ccs_datadesc_free(&uncommitted));
    EXPECT_EQ(ccs_team_gather_datadesc(CCS_TEAM_WORLD, x, -1, CCS_BYTE, x, 1, CCS_BYTE, 0, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "negative")) << ccs_last_error();
    if (size() > 1) {
        // count times the team's size past 64 bits.
        EXPECT_EQ(ccs_team_alltoall_datadesc(CCS_TEAM_WORLD, x, INT64_MAX / 2 + 1, CCS_BYTE, x, 1, CCS_BYTE, nullptr),
                  CCS_ERR_OVERFLOW);
        EXPECT_TRUE(mentions(ccs_last_error(), "overflows")) << ccs_last_error();
    }
    // One member's src and dst disagree: it takes part with its error, and
    // the others end with it instead of waiting.
    std::vector<int64_t> all(4 * static_cast<size_t>(size()));
    const int last = size() - 1;
    const ccs_status_t st = ccs_team_allgather_datadesc(CCS_TEAM_WORLD, x, 32, CCS_BYTE, all.data(),
                                                        rank() == last ? 16 : 32, CCS_BYTE, nullptr);
    EXPECT_EQ(st, CCS_ERR_INVALID_ARG) << ccs_last_error();
    EXPECT_TRUE(mentions(ccs_last_error(), rank() == last ? "bytes per member" : "failed at team rank"))
        << ccs_last_error();
    // Nothing lost: the team goes on.
    int64_t one = 1, sum = 0;
    CCS_EXPECT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, &one, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
    EXPECT_EQ(sum, size());
}
