// Accumulate on every plugin configuration: every type and op against a
// model (with and without the old values fetched), every rank at once
// into the same elements, large ones in many pieces, and bad input that
// must change nothing.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <complex>
#include <cstring>
#include <string>
#include <vector>

using namespace conformance;

namespace {

// Element i of a test pattern as type T (small, exact in every type).
template <typename T>
T pattern(size_t i, int salt) {
    const auto v = static_cast<int>((i * 7 + static_cast<size_t>(salt) * 3) % 11) - 5;  // -5..5
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(v + 1));
    else
        return static_cast<T>(v);
}

template <typename T>
T model(int op, T dst, T src, T scale) {
    switch (op) {
    case CCS_ACC_SUM: return static_cast<T>(dst + scale * src);
    case CCS_ACC_PROD: return static_cast<T>(dst * src);
    case CCS_ACC_REPLACE: return src;
    default:
        if constexpr (requires(T a, T b) { a < b; }) return op == CCS_ACC_MIN ? std::min(dst, src) : std::max(dst, src);
        else return dst;
    }
}

template <typename T>
void check_type(ccs_context_t ctx, const window &w, int type, int &checked) {
    constexpr size_t n = 37;
    for (int op = CCS_ACC_SUM; op <= CCS_ACC_REPLACE; ++op) {
        const bool complex = type >= CCS_ACC_COMPLEX_FLOAT;
        if (complex && (op == CCS_ACC_MIN || op == CCS_ACC_MAX)) continue;
        for (bool fetch : {false, true}) {
            std::vector<T> initial(n), src(n), fetched(n), now(n);
            for (size_t i = 0; i < n; ++i) {
                initial[i] = pattern<T>(i, op);
                src[i] = pattern<T>(i, op + 5);
            }
            const uint64_t at = w.slot(right(), rank()) + 4096 * static_cast<uint64_t>(checked % 64);
            CCS_ASSERT_OK(ccs_put_sync(ctx, right(), initial.data(), n * sizeof(T), at, w.key(right())));
            const T scale = op == CCS_ACC_SUM ? static_cast<T>(3) : static_cast<T>(1);
            CCS_ASSERT_OK(ccs_accumulate_sync(ctx, right(), op, type, src.data(), n * sizeof(T), at, w.key(right()),
                                              op == CCS_ACC_SUM ? &scale : nullptr, fetch ? fetched.data() : nullptr));
            CCS_ASSERT_OK(ccs_get_sync(ctx, right(), now.data(), n * sizeof(T), at, w.key(right())));
            for (size_t i = 0; i < n; ++i) {
                EXPECT_EQ(now[i], model<T>(op, initial[i], src[i], scale)) << "type " << type << " op " << op << " at " << i;
                if (fetch) {
                    EXPECT_EQ(fetched[i], initial[i]) << "type " << type << " op " << op << " at " << i;
                }
            }
            ++checked;
        }
    }
}

}  // namespace

class Accumulate : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Accumulate, Accumulate, window_kinds(), window_kind_name);

TEST_P(Accumulate, EveryTypeAndOpMatchesAModel) {
    scoped_context ctx("accumulate-model");
    window w(GetParam());
    int checked = 0;
    check_type<int32_t>(ctx, w, CCS_ACC_INT32, checked);
    check_type<uint32_t>(ctx, w, CCS_ACC_UINT32, checked);
    check_type<int64_t>(ctx, w, CCS_ACC_INT64, checked);
    check_type<uint64_t>(ctx, w, CCS_ACC_UINT64, checked);
    check_type<float>(ctx, w, CCS_ACC_FLOAT, checked);
    check_type<double>(ctx, w, CCS_ACC_DOUBLE, checked);
    check_type<std::complex<float>>(ctx, w, CCS_ACC_COMPLEX_FLOAT, checked);
    check_type<std::complex<double>>(ctx, w, CCS_ACC_COMPLEX_DOUBLE, checked);
    EXPECT_EQ(checked, 6 * 5 * 2 + 2 * 3 * 2);
    CCS_EXPECT_OK(ccs_barrier());
}

// Every rank adds into the same elements of rank 0 at once, repeatedly,
// small and large (many pieces, non-blocking): nothing is lost.
TEST_P(Accumulate, EveryRankAtOnceIntoTheSameElementsIsExact) {
    scoped_context ctx("accumulate-contention");
    window w(GetParam());
    constexpr size_t small = 64, large = (slot_bytes / 2) / sizeof(double);  // 512 KiB: 8 pieces
    constexpr int rounds = 10;
    const uint64_t ints_at = w.slot(0, 0), doubles_at = w.slot(0, 0) + 4096;
    std::vector<int64_t> ints(small, rank() + 1);
    std::vector<double> doubles(large, static_cast<double>(rank() + 1));
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    for (int r = 0; r < rounds; ++r) {
        CCS_EXPECT_OK(ccs_accumulate(ctx, 0, CCS_ACC_SUM, CCS_ACC_INT64, ints.data(), small * 8, ints_at, w.key(0),
                                     nullptr, nullptr, &done));
        CCS_EXPECT_OK(ccs_accumulate(ctx, 0, CCS_ACC_SUM, CCS_ACC_DOUBLE, doubles.data(), large * 8, doubles_at,
                                     w.key(0), nullptr, nullptr, &done));
    }
    CCS_EXPECT_OK(ccs_counter_wait(&counter, 2 * rounds));
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) {
        const int64_t ranks_sum = static_cast<int64_t>(size()) * (size() + 1) / 2;
        std::vector<int64_t> got_ints(small);
        std::memcpy(got_ints.data(), reinterpret_cast<void *>(ints_at), small * 8);
        for (size_t i = 0; i < small; ++i) ASSERT_EQ(got_ints[i], rounds * ranks_sum) << i;
        const auto *got = reinterpret_cast<const double *>(doubles_at);
        for (size_t i = 0; i < large; ++i) ASSERT_EQ(got[i], static_cast<double>(rounds * ranks_sum)) << i;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

TEST(AccumulateBadInput, RefusedAndNothingChanged) {
    scoped_context ctx("accumulate-bad-input");
    window w;
    const uint64_t at = w.slot(right(), rank());
    const std::vector<double> before(8, 2.5);
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), before.data(), 64, at, w.key(right())));
    const std::vector<double> src(8, 1.0);
    const double scale = 2;
    struct bad {
        int op, type;
        size_t length;
        uint64_t addr;
        const void *scale;
        const void *src;
        ccs_status_t want;
        const char *says;
    } cases[] = {
        {9, CCS_ACC_DOUBLE, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not a ccs_acc_op_t"},
        {CCS_ACC_SUM, 12, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not a ccs_acc_type_t"},
        {CCS_ACC_MIN, CCS_ACC_COMPLEX_DOUBLE, 64, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "no MIN or MAX"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 60, at, nullptr, src.data(), CCS_ERR_INVALID_ARG, "whole number"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, at + 4, nullptr, src.data(), CCS_ERR_INVALID_ARG, "not aligned"},
        {CCS_ACC_PROD, CCS_ACC_DOUBLE, 64, at, &scale, src.data(), CCS_ERR_INVALID_ARG, "CCS_ACC_SUM only"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, at, nullptr, nullptr, CCS_ERR_INVALID_ARG, "src is NULL"},
        {CCS_ACC_SUM, CCS_ACC_DOUBLE, 64, w.slot(right(), size()) - 32, nullptr, src.data(), CCS_ERR_OUT_OF_RANGE,
         "outside"},
    };
    for (const bad &c : cases) {
        EXPECT_EQ(ccs_accumulate_sync(ctx, right(), c.op, c.type, c.src, c.length, c.addr, w.key(right()), c.scale,
                                      nullptr),
                  c.want)
            << c.says;
        EXPECT_NE(std::string(ccs_last_error()).find(c.says), std::string::npos) << ccs_last_error();
    }
    // An implicit key to memory the target never registered.
    std::vector<double> unregistered(8, 0);
    const shared_bytes where = share_with_everyone({}, reinterpret_cast<uintptr_t>(unregistered.data()));
    if (right() != rank()) {
        EXPECT_EQ(ccs_accumulate_sync(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 64,
                                      where.words[static_cast<size_t>(right())], CCS_RKEY_IMPLICIT, nullptr, nullptr),
                  CCS_ERR_NOT_REGISTERED);
    }
    std::vector<double> now(8);
    CCS_EXPECT_OK(ccs_get_sync(ctx, right(), now.data(), 64, at, w.key(right())));
    EXPECT_EQ(now, before);
    CCS_EXPECT_OK(ccs_barrier());
    for (double d : unregistered) EXPECT_EQ(d, 0.0);
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {

// A committed datadesc, freed at the end of the scope.
struct layout {
    layout() = default;
    layout(const layout &) = delete;
    layout &operator=(const layout &) = delete;
    ~layout() {
        if (dd) {
            EXPECT_EQ(ccs_datadesc_free(&dd), CCS_OK);
        }
    }
    ccs_datadesc_t commit() {
        EXPECT_EQ(ccs_datadesc_commit(dd), CCS_OK) << ccs_last_error();
        return dd;
    }
    ccs_datadesc_t dd = nullptr;
};

// `count` blocks of `block` 8-byte elements, `stride` elements apart.
void strided_words(layout &out, layout &word, int64_t count, int64_t block, int64_t stride) {
    if (!word.dd) {
        EXPECT_EQ(ccs_datadesc_contiguous(8, CCS_BYTE, &word.dd), CCS_OK);
        word.commit();
    }
    EXPECT_EQ(ccs_datadesc_vector(count, block, stride, word.dd, &out.dd), CCS_OK);
    out.commit();
}

}  // namespace

// Every rank accumulates through its own strided layout into overlapping
// elements of rank 0, from a strided source, repeatedly and at once: small
// ones (a few pieces) and one of 20000 pieces (many messages, each listing
// its pieces). Integers and integral doubles come out exactly as the model.
TEST_P(Accumulate, EveryRankIntoOverlappingLayoutsIsExact) {
    scoped_context ctx("accumulate-layouts");
    window w(GetParam());
    const int64_t stride = 2 + rank() % 3, block = 1 + rank() % 2;
    const int64_t small_count = 50, large_count = 20000;
    layout word, small_to, large_to, from;
    strided_words(small_to, word, small_count, block, stride);
    strided_words(large_to, word, large_count, 1, 2);
    // The source: one word every three, as many as asked for.
    CCS_ASSERT_OK(ccs_datadesc_resized(word.dd, 0, 24, &from.dd));
    from.commit();
    const int64_t small_words = small_count * block;
    std::vector<int64_t> ints(3 * static_cast<size_t>(large_count), 0);
    std::vector<double> doubles(ints.size(), 0);
    for (size_t i = 0; i < ints.size(); i += 3) {
        ints[i] = rank() + 1;
        doubles[i] = rank() + 1;
    }
    const uint64_t ints_at = w.slot(0, 0), doubles_at = w.slot(0, 0) + 2 * 8 * static_cast<uint64_t>(large_count);
    constexpr int rounds = 5;
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    for (int r = 0; r < rounds; ++r) {
        CCS_EXPECT_OK(ccs_accumulate_datadesc(ctx, 0, CCS_ACC_SUM, CCS_ACC_INT64, ints.data(), small_words, from.dd,
                                              ints_at, 1, small_to.dd, w.key(0), nullptr, nullptr, &done));
        CCS_EXPECT_OK(ccs_accumulate_datadesc(ctx, 0, CCS_ACC_SUM, CCS_ACC_DOUBLE, doubles.data(), large_count,
                                              from.dd, doubles_at, 1, large_to.dd, w.key(0), nullptr, nullptr, &done));
    }
    CCS_EXPECT_OK(ccs_counter_wait(&counter, 2 * rounds));
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) {
        std::vector<int64_t> want_ints(static_cast<size_t>(large_count) * 2, 0);
        for (int r = 0; r < size(); ++r) {
            const int64_t s = 2 + r % 3, b = 1 + r % 2;
            for (int64_t c = 0; c < small_count; ++c)
                for (int64_t e = 0; e < b; ++e) want_ints[static_cast<size_t>(c * s + e)] += rounds * (r + 1);
        }
        const auto *got_ints = reinterpret_cast<const int64_t *>(ints_at);
        for (size_t i = 0; i < want_ints.size(); ++i) ASSERT_EQ(got_ints[i], want_ints[i]) << i;
        const double all = rounds * size() * (size() + 1) / 2.0;
        const auto *got = reinterpret_cast<const double *>(doubles_at);
        for (size_t i = 0; i < static_cast<size_t>(2 * large_count); ++i)
            ASSERT_EQ(got[i], i % 2 ? 0.0 : all) << i;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// Get-accumulate between layouts: the old values arrive contiguously, in
// stream order.
TEST_P(Accumulate, LayoutsFetchTheOldValuesInStreamOrder) {
    scoped_context ctx("accumulate-layouts-fetch");
    window w(GetParam());
    constexpr int64_t count = 9000;  // 72 KiB of data: two messages
    layout word, to;
    strided_words(to, word, count, 1, 2);
    std::vector<int64_t> initial(2 * count), src(count), fetched(count, -1), now(2 * count);
    for (size_t i = 0; i < initial.size(); ++i) initial[i] = static_cast<int64_t>(i) * 10 + rank();
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int64_t>(i);
    const uint64_t at = w.slot(right(), rank());
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), initial.data(), initial.size() * 8, at, w.key(right())));
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    CCS_ASSERT_OK(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_REPLACE, CCS_ACC_INT64, src.data(), count * 8,
                                          CCS_BYTE, at, 1, to.dd, w.key(right()), nullptr, fetched.data(), &done));
    CCS_ASSERT_OK(ccs_counter_wait(&counter, 1));
    CCS_ASSERT_OK(ccs_get_sync(ctx, right(), now.data(), now.size() * 8, at, w.key(right())));
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
        ASSERT_EQ(fetched[i], initial[2 * i]) << i;
        ASSERT_EQ(now[2 * i], src[i]) << i;
        ASSERT_EQ(now[2 * i + 1], initial[2 * i + 1]) << i;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// From a strided source into contiguous elements, with the old values
// fetched: the reverse of the above, one element per source piece, more
// pieces than one batch of the kernel, and a scale.
TEST_P(Accumulate, AStridedSourceIntoContiguousElementsWithTheOldValues) {
    scoped_context ctx("accumulate-strided-source");
    window w(GetParam());
    constexpr int64_t count = 1000;
    layout word, from;
    strided_words(from, word, count, 1, 3);
    std::vector<double> initial(count), src(3 * count, -1.0), fetched(count, -1), now(count);
    for (size_t i = 0; i < initial.size(); ++i) initial[i] = static_cast<double>(i) + rank();
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) src[3 * i] = static_cast<double>(i % 7);
    const uint64_t at = w.slot(right(), rank());
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), initial.data(), initial.size() * 8, at, w.key(right())));
    const double scale = 2.0;
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    CCS_ASSERT_OK(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 1, from.dd, at,
                                          count * 8, CCS_BYTE, w.key(right()), &scale, fetched.data(), &done));
    CCS_ASSERT_OK(ccs_counter_wait(&counter, 1));
    CCS_ASSERT_OK(ccs_get_sync(ctx, right(), now.data(), now.size() * 8, at, w.key(right())));
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
        ASSERT_EQ(fetched[i], initial[i]) << i;
        ASSERT_EQ(now[i], initial[i] + 2.0 * static_cast<double>(i % 7)) << i;
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// Both sides strided, with pieces of different lengths: the local side a
// stack of 2 patches of 3 rows of 3 doubles (40 bytes apart, patches 160
// apart), the remote side 9 rows of 2 doubles (32 bytes apart), as a
// Global Arrays patch taken from a block of a larger local array. Scaled,
// with the old values, against a model.
TEST_P(Accumulate, BothSidesStridedWithPiecesOfDifferentLengths) {
    scoped_context ctx("accumulate-both-strided");
    window w(GetParam());
    layout from, to;
    const int64_t from_count[3] = {24, 3, 2}, from_stride[2] = {40, 160};
    const int64_t to_count[2] = {16, 9}, to_stride[1] = {32};
    CCS_ASSERT_OK(ccs_datadesc_strided(2, from_count, from_stride, &from.dd));
    from.commit();
    CCS_ASSERT_OK(ccs_datadesc_strided(1, to_count, to_stride, &to.dd));
    to.commit();
    std::vector<double> src(40, -1.0), initial(36), fetched(18, -1.0), now(36);
    std::vector<size_t> src_at, to_at;  // element indices in stream order
    for (size_t plane = 0; plane < 2; ++plane)
        for (size_t row = 0; row < 3; ++row)
            for (size_t e = 0; e < 3; ++e) src_at.push_back(plane * 20 + row * 5 + e);
    for (size_t row = 0; row < 9; ++row)
        for (size_t e = 0; e < 2; ++e) to_at.push_back(row * 4 + e);
    for (size_t k = 0; k < src_at.size(); ++k) src[src_at[k]] = static_cast<double>(k + 1);
    for (size_t i = 0; i < initial.size(); ++i) initial[i] = static_cast<double>(100 * i) + rank();
    const uint64_t at = w.slot(right(), rank());
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), initial.data(), initial.size() * 8, at, w.key(right())));
    const double scale = 2.0;
    ccs_counter_t counter;
    CCS_EXPECT_OK(ccs_counter_init(&counter));
    const ccs_completion_t done{nullptr, nullptr, &counter};
    CCS_ASSERT_OK(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 1, from.dd, at, 1,
                                          to.dd, w.key(right()), &scale, fetched.data(), &done));
    CCS_ASSERT_OK(ccs_counter_wait(&counter, 1));
    CCS_ASSERT_OK(ccs_get_sync(ctx, right(), now.data(), now.size() * 8, at, w.key(right())));
    std::vector<double> want = initial;
    for (size_t k = 0; k < to_at.size(); ++k) {
        ASSERT_EQ(fetched[k], initial[to_at[k]]) << k;
        want[to_at[k]] += 2.0 * static_cast<double>(k + 1);
    }
    EXPECT_EQ(now, want);
    CCS_EXPECT_OK(ccs_barrier());
}

// Pieces that are not whole elements, or target pieces not aligned for
// them, are refused before anything moves: into registered memory, and
// into a ccs_mem_alloc block (mapped by peers on the node, which apply
// accumulates in place).
TEST(AccumulateBadInput, LayoutPiecesMustHoldWholeAlignedElements) {
    for (const bool allocated : {false, true}) {
        SCOPED_TRACE(allocated ? "ccs_mem_alloc block" : "registered memory");
        scoped_context ctx("accumulate-layouts-bad");
        window w(allocated);
        const uint64_t at = w.slot(right(), rank());
        const std::vector<double> before(16, 2.5);
        CCS_ASSERT_OK(ccs_put_sync(ctx, right(), before.data(), before.size() * 8, at, w.key(right())));
        const std::vector<double> src(16, 1.0);
        layout twelve, shifted;
        // Four 12-byte pieces 16 bytes apart; four 8-byte pieces at byte 4 of
        // each 16.
        CCS_ASSERT_OK(ccs_datadesc_hvector(4, 12, 16, CCS_BYTE, &twelve.dd));
        twelve.commit();
        const int64_t lengths[4] = {8, 8, 8, 8}, offsets[4] = {4, 20, 36, 52};
        CCS_ASSERT_OK(ccs_datadesc_hindexed(4, lengths, offsets, CCS_BYTE, &shifted.dd));
        shifted.commit();
        EXPECT_EQ(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_INT32, src.data(), 48, CCS_BYTE, at, 1,
                                          twelve.dd, w.key(right()), nullptr, nullptr, nullptr),
                  CCS_OK)
            << "12-byte pieces are whole 4-byte elements: " << ccs_last_error();
        CCS_ASSERT_OK(ccs_fence(ctx, right()));
        CCS_ASSERT_OK(ccs_put_sync(ctx, right(), before.data(), before.size() * 8, at, w.key(right())));
        EXPECT_EQ(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 48, CCS_BYTE, at, 1,
                                          twelve.dd, w.key(right()), nullptr, nullptr, nullptr),
                  CCS_ERR_INVALID_ARG);
        EXPECT_NE(std::string(ccs_last_error()).find("not whole 8-byte elements"), std::string::npos)
            << ccs_last_error();
        EXPECT_EQ(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 1, twelve.dd, at, 48,
                                          CCS_BYTE, w.key(right()), nullptr, nullptr, nullptr),
                  CCS_ERR_INVALID_ARG);
        EXPECT_NE(std::string(ccs_last_error()).find("local layout"), std::string::npos) << ccs_last_error();
        EXPECT_EQ(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 32, CCS_BYTE, at, 1,
                                          shifted.dd, w.key(right()), nullptr, nullptr, nullptr),
                  CCS_ERR_INVALID_ARG);
        EXPECT_NE(std::string(ccs_last_error()).find("not aligned to 8 bytes"), std::string::npos) << ccs_last_error();
        // Eight-byte pieces 12 bytes apart: whole doubles, the second not aligned.
        layout skewed;
        CCS_ASSERT_OK(ccs_datadesc_hvector(4, 8, 12, CCS_BYTE, &skewed.dd));
        skewed.commit();
        EXPECT_EQ(ccs_accumulate_datadesc(ctx, right(), CCS_ACC_SUM, CCS_ACC_DOUBLE, src.data(), 32, CCS_BYTE, at, 1,
                                          skewed.dd, w.key(right()), nullptr, nullptr, nullptr),
                  CCS_ERR_INVALID_ARG);
        EXPECT_NE(std::string(ccs_last_error()).find("not aligned to 8 bytes"), std::string::npos) << ccs_last_error();
        std::vector<double> now(16);
        CCS_EXPECT_OK(ccs_get_sync(ctx, right(), now.data(), now.size() * 8, at, w.key(right())));
        EXPECT_EQ(now, before);
        CCS_EXPECT_OK(ccs_barrier());
    }
}
