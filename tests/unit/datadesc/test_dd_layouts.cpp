// Hand-computed layouts and bounds for every constructor, including the
// tricky MPI cases: negative strides, resized with negative or zero extent,
// zero counts and zero-length blocks, sticky lb/ub markers.
#include "dd_helpers.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace {

// A buffer whose byte at position p holds p + 100 (so offsets are visible),
// addressed from `origin` so negative offsets are usable.
struct numbered {
    std::vector<uint8_t> bytes = std::vector<uint8_t>(256);
    numbered() { std::iota(bytes.begin(), bytes.end(), uint8_t{0}); }
    const uint8_t *origin() const { return bytes.data() + 100; }  // origin byte holds 100
};

std::vector<uint8_t> at(std::initializer_list<int> offsets) {
    std::vector<uint8_t> v;
    for (int o : offsets) v.push_back(static_cast<uint8_t>(100 + o));
    return v;
}

void commit(ccs_datadesc_t d) { ASSERT_EQ(ccs_datadesc_commit(d), CCS_OK) << ccs_last_error(); }

// Committed pieces of `len` bytes: at `displacements` if `listed`, else
// `stride` apart (the same places when the displacements are in order).
void make_pieces(bool listed, int64_t len, int64_t stride, const std::vector<int64_t> &displacements, dd_handle &pieces) {
    const auto count = static_cast<int64_t>(displacements.size());
    if (listed)
        ASSERT_EQ(ccs_datadesc_hindexed_block(count, len, displacements.data(), CCS_BYTE, pieces.out()), CCS_OK);
    else
        ASSERT_EQ(ccs_datadesc_hvector(count, len, stride, CCS_BYTE, pieces.out()), CCS_OK);
    commit(pieces);
}

}  // namespace

TEST(DatadescLayout, ByteAndContiguous) {
    const bounds b = bounds_of(CCS_BYTE);
    EXPECT_EQ(b.size, 1);
    EXPECT_EQ(b.extent, 1);
    dd_handle c;
    ASSERT_EQ(ccs_datadesc_contiguous(3, CCS_BYTE, c.out()), CCS_OK);
    commit(c);
    const bounds cb = bounds_of(c);
    EXPECT_EQ(cb.size, 3);
    EXPECT_EQ(cb.lb, 0);
    EXPECT_EQ(cb.extent, 3);
    int flag = 0;
    EXPECT_EQ(ccs_datadesc_is_contiguous(c, 5, &flag), CCS_OK);
    EXPECT_EQ(flag, 1);
    int64_t blocks = 0;
    EXPECT_EQ(ccs_datadesc_num_blocks(c, &blocks), CCS_OK);
    EXPECT_EQ(blocks, 1);
}

TEST(DatadescLayout, VectorPositiveAndNegativeStride) {
    numbered buf;
    dd_handle v;
    ASSERT_EQ(ccs_datadesc_vector(3, 2, 4, CCS_BYTE, v.out()), CCS_OK);
    commit(v);
    bounds b = bounds_of(v);
    EXPECT_EQ(b.size, 6);
    EXPECT_EQ(b.lb, 0);
    EXPECT_EQ(b.extent, 10);
    EXPECT_EQ(pack_all(v, buf.origin(), 1), at({0, 1, 4, 5, 8, 9}));
    EXPECT_EQ(pack_all(v, buf.origin(), 2), at({0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}));
    int64_t blocks = 0;
    ccs_datadesc_num_blocks(v, &blocks);
    EXPECT_EQ(blocks, 3);

    dd_handle n;
    ASSERT_EQ(ccs_datadesc_vector(3, 2, -4, CCS_BYTE, n.out()), CCS_OK);
    commit(n);
    b = bounds_of(n);
    EXPECT_EQ(b.lb, -8);
    EXPECT_EQ(b.extent, 10);
    EXPECT_EQ(b.true_lb, -8);
    EXPECT_EQ(pack_all(n, buf.origin(), 1), at({0, 1, -4, -3, -8, -7}));
}

TEST(DatadescLayout, VectorWhoseBlocksTouchIsOneCopy) {
    dd_handle v;
    ASSERT_EQ(ccs_datadesc_vector(4, 2, 2, CCS_BYTE, v.out()), CCS_OK);
    commit(v);
    int64_t blocks = 0;
    ccs_datadesc_num_blocks(v, &blocks);
    EXPECT_EQ(blocks, 1);
    int flag = 0;
    ccs_datadesc_is_contiguous(v, 3, &flag);
    EXPECT_EQ(flag, 1);
}

TEST(DatadescLayout, HvectorOfContiguous) {
    numbered buf;
    dd_handle c, h;
    ASSERT_EQ(ccs_datadesc_contiguous(2, CCS_BYTE, c.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_hvector(2, 1, 5, c, h.out()), CCS_OK);
    commit(h);
    const bounds b = bounds_of(h);
    EXPECT_EQ(b.size, 4);
    EXPECT_EQ(b.extent, 7);
    EXPECT_EQ(pack_all(h, buf.origin(), 1), at({0, 1, 5, 6}));
}

TEST(DatadescLayout, IndexedKeepsOrderAndIgnoresEmptyBlocks) {
    numbered buf;
    const int64_t bl[] = {2, 1, 0};
    const int64_t disp[] = {3, 0, 50};  // the empty block at 50 moves no bound
    dd_handle d;
    ASSERT_EQ(ccs_datadesc_indexed(3, bl, disp, CCS_BYTE, d.out()), CCS_OK);
    commit(d);
    const bounds b = bounds_of(d);
    EXPECT_EQ(b.size, 3);
    EXPECT_EQ(b.lb, 0);
    EXPECT_EQ(b.extent, 5);
    EXPECT_EQ(pack_all(d, buf.origin(), 1), at({3, 4, 0}));

    dd_handle pair, hd;
    ASSERT_EQ(ccs_datadesc_contiguous(2, CCS_BYTE, pair.out()), CCS_OK);
    const int64_t bdisp[] = {-6, 10};
    ASSERT_EQ(ccs_datadesc_hindexed_block(2, 2, bdisp, pair, hd.out()), CCS_OK);
    commit(hd);
    EXPECT_EQ(pack_all(hd, buf.origin(), 1), at({-6, -5, -4, -3, 10, 11, 12, 13}));
    EXPECT_EQ(bounds_of(hd).lb, -6);
    EXPECT_EQ(bounds_of(hd).extent, 20);

    dd_handle ib;
    const int64_t edisp[] = {2, 0};  // in units of pair's extent (2)
    ASSERT_EQ(ccs_datadesc_indexed_block(2, 1, edisp, pair, ib.out()), CCS_OK);
    commit(ib);
    EXPECT_EQ(pack_all(ib, buf.origin(), 1), at({4, 5, 0, 1}));
}

TEST(DatadescLayout, StructAddsNoPadding) {
    numbered buf;
    dd_handle four;
    ASSERT_EQ(ccs_datadesc_contiguous(4, CCS_BYTE, four.out()), CCS_OK);
    const int64_t bl[] = {1, 2};
    const int64_t disp[] = {0, 9};
    const ccs_datadesc_t types[] = {four, CCS_BYTE};
    dd_handle s;
    ASSERT_EQ(ccs_datadesc_struct(2, bl, disp, types, s.out()), CCS_OK);
    commit(s);
    const bounds b = bounds_of(s);
    EXPECT_EQ(b.size, 6);
    EXPECT_EQ(b.lb, 0);
    EXPECT_EQ(b.extent, 11);  // no rounding up to any alignment
    EXPECT_EQ(pack_all(s, buf.origin(), 1), at({0, 1, 2, 3, 9, 10}));
}

TEST(DatadescLayout, ResizedMarkersAreSticky) {
    numbered buf;
    dd_handle r, c;
    ASSERT_EQ(ccs_datadesc_resized(CCS_BYTE, -2, 5, r.out()), CCS_OK);
    commit(r);
    bounds b = bounds_of(r);
    EXPECT_EQ(b.lb, -2);
    EXPECT_EQ(b.extent, 5);
    EXPECT_EQ(b.true_lb, 0);
    EXPECT_EQ(b.true_extent, 1);
    ASSERT_EQ(ccs_datadesc_contiguous(3, r, c.out()), CCS_OK);
    commit(c);
    b = bounds_of(c);
    EXPECT_EQ(b.size, 3);
    EXPECT_EQ(b.lb, -2);
    EXPECT_EQ(b.extent, 15);
    EXPECT_EQ(b.true_lb, 0);
    EXPECT_EQ(b.true_extent, 11);
    EXPECT_EQ(pack_all(c, buf.origin(), 1), at({0, 5, 10}));
    // In a struct with a plain member, the markers still decide lb and ub.
    const int64_t bl[] = {1, 1};
    const int64_t disp[] = {0, -20};
    const ccs_datadesc_t types[] = {r, CCS_BYTE};
    dd_handle s;
    ASSERT_EQ(ccs_datadesc_struct(2, bl, disp, types, s.out()), CCS_OK);
    b = bounds_of(s);
    EXPECT_EQ(b.lb, -2);
    EXPECT_EQ(b.extent, 5);
    EXPECT_EQ(b.true_lb, -20);
    EXPECT_EQ(b.true_extent, 21);
}

TEST(DatadescLayout, ResizedToZeroAndNegativeExtent) {
    numbered buf;
    dd_handle four, zero, three_zero;
    ASSERT_EQ(ccs_datadesc_contiguous(4, CCS_BYTE, four.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_resized(four, 0, 0, zero.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_contiguous(3, zero, three_zero.out()), CCS_OK);
    commit(three_zero);
    bounds b = bounds_of(three_zero);
    EXPECT_EQ(b.size, 12);
    EXPECT_EQ(b.extent, 0);
    EXPECT_EQ(b.true_extent, 4);
    EXPECT_EQ(pack_all(three_zero, buf.origin(), 1), at({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));

    dd_handle two, back, three_back;
    ASSERT_EQ(ccs_datadesc_contiguous(2, CCS_BYTE, two.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_resized(two, 0, -4, back.out()), CCS_OK);
    b = bounds_of(back);
    EXPECT_EQ(b.extent, -4);
    ASSERT_EQ(ccs_datadesc_contiguous(3, back, three_back.out()), CCS_OK);
    commit(three_back);
    b = bounds_of(three_back);
    // lb markers at 0, -4, -8; ub markers at -4, -8, -12.
    EXPECT_EQ(b.lb, -8);
    EXPECT_EQ(b.extent, 4);
    EXPECT_EQ(b.true_lb, -8);
    EXPECT_EQ(b.true_extent, 10);
    EXPECT_EQ(pack_all(three_back, buf.origin(), 1), at({0, 1, -4, -3, -8, -7}));
}

TEST(DatadescLayout, SubarrayInBothOrders) {
    numbered buf;
    const int64_t sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
    dd_handle c, f;
    ASSERT_EQ(ccs_datadesc_subarray(2, sizes, subsizes, starts, CCS_ORDER_C, CCS_BYTE, c.out()), CCS_OK);
    commit(c);
    bounds b = bounds_of(c);
    EXPECT_EQ(b.size, 6);
    EXPECT_EQ(b.lb, 0);
    EXPECT_EQ(b.extent, 20);
    EXPECT_EQ(b.true_lb, 7);
    EXPECT_EQ(b.true_extent, 8);
    EXPECT_EQ(pack_all(c, buf.origin(), 1), at({7, 8, 9, 12, 13, 14}));
    ASSERT_EQ(ccs_datadesc_subarray(2, sizes, subsizes, starts, CCS_ORDER_FORTRAN, CCS_BYTE, f.out()), CCS_OK);
    commit(f);
    EXPECT_EQ(pack_all(f, buf.origin(), 1), at({9, 10, 13, 14, 17, 18}));
    EXPECT_EQ(bounds_of(f).extent, 20);
}

TEST(DatadescLayout, StridedAndIovFastConstructors) {
    numbered buf;
    const int64_t count[] = {3, 2, 2}, stride[] = {10, 25};
    dd_handle s;
    ASSERT_EQ(ccs_datadesc_strided(2, count, stride, s.out()), CCS_OK);
    commit(s);
    EXPECT_EQ(bounds_of(s).size, 12);
    EXPECT_EQ(pack_all(s, buf.origin(), 1), at({0, 1, 2, 10, 11, 12, 25, 26, 27, 35, 36, 37}));
    const int64_t off[] = {20, 2, 4}, len[] = {2, 2, 1};
    dd_handle v;
    ASSERT_EQ(ccs_datadesc_iov(3, off, len, v.out()), CCS_OK);
    commit(v);
    EXPECT_EQ(pack_all(v, buf.origin(), 1), at({20, 21, 2, 3, 4}));
    int64_t blocks = 0;
    ccs_datadesc_num_blocks(v, &blocks);
    EXPECT_EQ(blocks, 2);  // 2..3 and 4 merged
}

TEST(DatadescLayout, ZeroCountsAndDup) {
    dd_handle z, d;
    ASSERT_EQ(ccs_datadesc_contiguous(0, CCS_BYTE, z.out()), CCS_OK);
    commit(z);
    const bounds b = bounds_of(z);
    EXPECT_EQ(b.size, 0);
    EXPECT_EQ(b.lb, 0);
    EXPECT_EQ(b.extent, 0);
    int64_t done = -1;
    EXPECT_EQ(ccs_datadesc_pack(nullptr, 5, z, 0, nullptr, 100, &done), CCS_OK);
    EXPECT_EQ(done, 0);
    ASSERT_EQ(ccs_datadesc_dup(z, d.out()), CCS_OK);
    EXPECT_EQ(bounds_of(d).size, 0);
}

TEST(DatadescLayout, FreeingABaseStillUsedIsSafe) {
    numbered buf;
    ccs_datadesc_t inner = nullptr;
    ASSERT_EQ(ccs_datadesc_vector(2, 1, 3, CCS_BYTE, &inner), CCS_OK);
    dd_handle outer;
    ASSERT_EQ(ccs_datadesc_contiguous(2, inner, outer.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_free(&inner), CCS_OK);
    EXPECT_EQ(inner, nullptr);
    commit(outer);
    EXPECT_EQ(pack_all(outer, buf.origin(), 1), at({0, 3, 4, 7}));
}

// A dup of a committed datadesc is committed, and packs as the original
// did after the original is freed (the handle keeps copies of the
// program's size and element run; they must follow it into the dup).
TEST(DatadescLayout, DupOfACommittedDatadescPacksAlone) {
    numbered buf;
    ccs_datadesc_t original = nullptr;
    ASSERT_EQ(ccs_datadesc_vector(2, 1, 3, CCS_BYTE, &original), CCS_OK);
    ASSERT_EQ(ccs_datadesc_commit(original), CCS_OK);
    dd_handle copy;
    ASSERT_EQ(ccs_datadesc_dup(original, copy.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_free(&original), CCS_OK);
    EXPECT_EQ(pack_all(copy, buf.origin(), 1), at({0, 3}));
    EXPECT_EQ(pack_all(copy, buf.origin(), 2), at({0, 3, 4, 7}));
}

// Runs of vectors placed by a table, with piece lengths the kernels treat
// specially (24, 40, 48 bytes: constant-length nested copies) and others,
// packed, unpacked and cut at odd budgets, against a plain loop.
TEST(DatadescLayout, TableOfVectorsEveryPieceLength) {
    for (int64_t len : {8, 12, 24, 40, 48, 100}) {
        const int64_t pieces = 16, stride = len * 2 + 8;
        const std::vector<int64_t> rows = {20000, 40, 6000, 30000, 12000};  // irregular (a table loop), apart
        ccs_datadesc_t row = nullptr;
        ASSERT_EQ(ccs_datadesc_vector(pieces, len, stride, CCS_BYTE, &row), CCS_OK);
        dd_handle all;
        ASSERT_EQ(ccs_datadesc_hindexed_block(static_cast<int64_t>(rows.size()), 1, rows.data(), row, all.out()), CCS_OK);
        ccs_datadesc_free(&row);
        commit(all);
        std::vector<uint8_t> memory(40000), expected;
        for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 7 + 3);
        for (int64_t r : rows)
            for (int64_t p = 0; p < pieces; ++p)
                for (int64_t b = 0; b < len; ++b) expected.push_back(memory[static_cast<size_t>(r + p * stride + b)]);
        EXPECT_EQ(pack_all(all, memory.data(), 1), expected) << len;
        // Unpack into zeros in odd-sized segments: the gaps stay zero.
        std::vector<uint8_t> back(memory.size(), 0);
        int64_t offset = 0, done = 0;
        while (offset < static_cast<int64_t>(expected.size())) {
            ASSERT_EQ(ccs_datadesc_unpack(expected.data() + offset, 37, back.data(), 1, all, offset, &done), CCS_OK);
            offset += done;
        }
        for (int64_t r : rows)
            for (int64_t p = 0; p < pieces; ++p)
                for (int64_t b = 0; b < len; ++b) {
                    const size_t at = static_cast<size_t>(r + p * stride + b);
                    ASSERT_EQ(back[at], memory[at]) << len;
                    back[at] = 0;
                }
        for (uint8_t v : back) ASSERT_EQ(v, 0) << "a gap was written, len " << len;
    }
}

// One index list over arrays of different element sizes (a struct of
// indexed_blocks, as LAMMPS exchanges atoms): the compiled tables are
// shared, scaled per array. Indices with a common factor and negative ones
// (before the first) check the scaling; segments from odd offsets check
// seeking into a scaled table.
TEST(DatadescLayout, IndexedArraysSharingOneIndexList) {
    const std::vector<int64_t> index = {40, -6, 18, 2, 30, 8, -2, 24};
    const int64_t sizes[] = {24, 4, 4, 8, 1};
    const int64_t picks = static_cast<int64_t>(index.size()), span = 64;
    std::vector<int64_t> array_at;
    int64_t at = 8 * 24;  // room for the negative indices of the first array
    std::vector<ccs_datadesc_t> members;
    for (int64_t size : sizes) {
        array_at.push_back(at);
        at += span * size;
        ccs_datadesc_t elem = nullptr, member = nullptr;
        ASSERT_EQ(ccs_datadesc_contiguous(size, CCS_BYTE, &elem), CCS_OK);
        ASSERT_EQ(ccs_datadesc_indexed_block(picks, 1, index.data(), elem, &member), CCS_OK);
        ccs_datadesc_free(&elem);
        members.push_back(member);
    }
    const std::vector<int64_t> ones(members.size(), 1);
    dd_handle all;
    ASSERT_EQ(ccs_datadesc_struct(static_cast<int64_t>(members.size()), ones.data(), array_at.data(), members.data(),
                                  all.out()),
              CCS_OK);
    for (ccs_datadesc_t &m : members) ccs_datadesc_free(&m);
    commit(all);
    std::vector<uint8_t> memory(static_cast<size_t>(at)), expected;
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 13 + 5);
    for (size_t a = 0; a < array_at.size(); ++a)
        for (int64_t i : index)
            for (int64_t b = 0; b < sizes[a]; ++b)
                expected.push_back(memory[static_cast<size_t>(array_at[a] + i * sizes[a] + b)]);
    EXPECT_EQ(pack_all(all, memory.data(), 1), expected);
    std::vector<uint8_t> packed(expected.size(), 0);
    int64_t offset = 0, done = 0;
    while (offset < static_cast<int64_t>(packed.size())) {
        ASSERT_EQ(ccs_datadesc_pack(memory.data(), 1, all, offset, packed.data() + offset, 7, &done), CCS_OK);
        offset += done;
    }
    EXPECT_EQ(packed, expected);
    std::vector<uint8_t> back(memory.size(), 0);
    for (offset = 0; offset < static_cast<int64_t>(expected.size()); offset += done)
        ASSERT_EQ(ccs_datadesc_unpack(expected.data() + offset, 11, back.data(), 1, all, offset, &done), CCS_OK);
    for (size_t a = 0; a < array_at.size(); ++a)
        for (int64_t i : index)
            for (int64_t b = 0; b < sizes[a]; ++b) {
                const auto where = static_cast<size_t>(array_at[a] + i * sizes[a] + b);
                ASSERT_EQ(back[where], memory[where]);
                back[where] = 0;
            }
    for (uint8_t v : back) ASSERT_EQ(v, 0) << "a byte outside the arrays was written";
}

// A matrix transpose (columns side by side, the kernel that copies groups of
// columns row by row) and a strided gather of small pieces (the kernel that
// stores several pieces at once), for every piece length those kernels take,
// column counts that leave a partial group, and budgets that stop anywhere.
TEST(DatadescLayout, TransposedColumnsAndCloseSmallPieces) {
    for (int64_t len : {4, 8, 16, 32}) {
        for (int64_t columns : {int64_t{3}, 64 / len, 64 / len + 3, 2 * (64 / len) + 1}) {
            const int64_t rows = 37, row = columns * len + 24;  // rows with a gap after the last column
            dd_handle column, one, matrix;
            ASSERT_EQ(ccs_datadesc_vector(rows, len, row, CCS_BYTE, column.out()), CCS_OK);
            ASSERT_EQ(ccs_datadesc_resized(column, 0, len, one.out()), CCS_OK);
            ASSERT_EQ(ccs_datadesc_contiguous(columns, one, matrix.out()), CCS_OK);
            commit(matrix);
            std::vector<uint8_t> memory(static_cast<size_t>(rows * row)), expected;
            for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 7 + 3);
            for (int64_t c = 0; c < columns; ++c)
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t b = 0; b < len; ++b) expected.push_back(memory[static_cast<size_t>(r * row + c * len + b)]);
            SCOPED_TRACE("len " + std::to_string(len) + ", columns " + std::to_string(columns));
            EXPECT_EQ(pack_all(matrix, memory.data(), 1), expected);
            for (int64_t budget : {int64_t{5}, len * rows - 3, 3 * len * rows + 1}) {
                std::vector<uint8_t> packed(expected.size(), 0), back(memory.size(), 0);
                int64_t offset = 0, done = 0;
                for (; offset < static_cast<int64_t>(packed.size()); offset += done)
                    ASSERT_EQ(ccs_datadesc_pack(memory.data(), 1, matrix, offset, packed.data() + offset, budget, &done),
                              CCS_OK);
                EXPECT_EQ(packed, expected);
                for (offset = 0; offset < static_cast<int64_t>(expected.size()); offset += done)
                    ASSERT_EQ(ccs_datadesc_unpack(expected.data() + offset, budget, back.data(), 1, matrix, offset, &done),
                              CCS_OK);
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t b = 0; b < row; ++b) {
                        const auto at_byte = static_cast<size_t>(r * row + b);
                        ASSERT_EQ(back[at_byte], b < columns * len ? memory[at_byte] : 0) << "row " << r << " byte " << b;
                    }
            }
        }
        // Pieces 2 * len apart, an odd count: groups and a remainder.
        dd_handle close;
        ASSERT_EQ(ccs_datadesc_vector(41, len, 2 * len, CCS_BYTE, close.out()), CCS_OK);
        commit(close);
        std::vector<uint8_t> memory(static_cast<size_t>(82 * len)), expected;
        for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 5 + 1);
        for (int64_t i = 0; i < 41; ++i)
            for (int64_t b = 0; b < len; ++b) expected.push_back(memory[static_cast<size_t>(2 * len * i + b)]);
        EXPECT_EQ(pack_all(close, memory.data(), 1), expected) << "len " << len;
    }
}

// Pieces of each length that has its own kernel, at strides on both sides
// of where far-apart pieces take another loop (> 512 B), negative and zero
// strides included; packed whole and from every offset with a small budget,
// then unpacked both ways.
TEST(DatadescLayout, StridedPiecesNearAndFarEveryFixedLength) {
    for (int64_t len : {1, 2, 4, 8, 16, 24, 40, 48}) {
        for (int64_t stride : {int64_t{512}, int64_t{513}, int64_t{4096}, int64_t{-4096}, int64_t{0}}) {
            const int64_t count = 19, span = (count - 1) * (stride < 0 ? -stride : stride) + len;
            const int64_t first = stride < 0 ? span - len : 0;  // the first piece's byte in memory
            dd_handle pieces;
            ASSERT_EQ(ccs_datadesc_hvector(count, len, stride, CCS_BYTE, pieces.out()), CCS_OK);
            commit(pieces);
            std::vector<uint8_t> memory(static_cast<size_t>(span)), expected;
            for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 13 + 5);
            for (int64_t i = 0; i < count; ++i)
                for (int64_t b = 0; b < len; ++b) expected.push_back(memory[static_cast<size_t>(first + i * stride + b)]);
            SCOPED_TRACE("len " + std::to_string(len) + ", stride " + std::to_string(stride));
            EXPECT_EQ(pack_all(pieces, memory.data() + first, 1), expected);
            std::vector<uint8_t> packed(expected.size(), 0);
            int64_t done = 0;
            for (int64_t offset = 0; offset < static_cast<int64_t>(packed.size()); offset += done) {
                ASSERT_EQ(ccs_datadesc_pack(memory.data() + first, 1, pieces, offset, packed.data() + offset, 3, &done),
                          CCS_OK);
                ASSERT_GT(done, 0);
            }
            EXPECT_EQ(packed, expected);
            if (stride == 0) continue;  // overlapping pieces: unpack order decides, nothing to check
            const auto size = static_cast<int64_t>(expected.size());
            for (int64_t budget : {int64_t{3}, size}) {  // piece by piece, and whole
                SCOPED_TRACE("unpack budget " + std::to_string(budget));
                std::vector<uint8_t> back(memory.size(), 0);
                for (int64_t offset = 0; offset < size; offset += done) {
                    ASSERT_EQ(ccs_datadesc_unpack(expected.data() + offset, std::min(budget, size - offset), back.data() + first,
                                                  1, pieces, offset, &done),
                              CCS_OK);
                    ASSERT_GT(done, 0);
                }
                for (int64_t i = 0; i < span; ++i) {  // the lowest piece starts at byte 0 either way
                    const bool in_piece = i % (stride < 0 ? -stride : stride) < len;
                    ASSERT_EQ(back[static_cast<size_t>(i)], in_piece ? memory[static_cast<size_t>(i)] : 0) << "byte " << i;
                }
            }
        }
    }
}

// Packing many 4 and 8-byte pieces (8192 or more) moves them through
// floating-point registers: bit patterns that arithmetic would change
// (signaling NaNs, NaN payloads, subnormals, negative zero) must arrive
// unchanged, at odd addresses too, for strided pieces near and far apart
// and for pieces at listed places, in runs above and below that count.
TEST(DatadescLayout, PiecesThatLookLikeFloatsPackBitForBit) {
    const uint32_t floats[] = {0x7f800001u, 0xffa00000u, 0x7fc12345u, 0x00000001u, 0x80000000u, 0xdeadbeefu};
    const uint64_t doubles[] = {0x7ff0000000000001ull, 0xfff4000000000000ull, 0x7ff8dead0000beefull,
                                0x0000000000000001ull, 0x8000000000000000ull, 0x0123456789abcdefull};
    for (int64_t count : {int64_t{6}, int64_t{9001}}) {
        for (int64_t len : {4, 8}) {
            for (int64_t stride : {int64_t{16}, int64_t{520}, int64_t{-520}}) {
                for (bool listed : {false, true}) {
                    SCOPED_TRACE(std::to_string(count) + " pieces, len " + std::to_string(len) + ", stride " +
                                 std::to_string(stride) + (listed ? ", listed" : ""));
                    const int64_t step = stride < 0 ? -stride : stride, span = (count - 1) * step + len;
                    const int64_t first = stride < 0 ? span - len : 0;
                    std::vector<uint8_t> memory(static_cast<size_t>(span) + 1, 0x5a), expected;
                    uint8_t *base = memory.data() + 1 + first;  // odd addresses
                    std::vector<int64_t> displacements;
                    for (int64_t i = 0; i < count; ++i) {
                        // Listed: the same places, each once (7 is coprime with
                        // both counts), in a scrambled order for 9001 pieces.
                        const int64_t at = listed ? ((i * 7) % count) * stride : i * stride;
                        displacements.push_back(at);
                        const auto *bits = len == 4 ? reinterpret_cast<const uint8_t *>(&floats[i % 6])
                                                    : reinterpret_cast<const uint8_t *>(&doubles[i % 6]);
                        std::memcpy(base + at, bits, static_cast<size_t>(len));
                        expected.insert(expected.end(), bits, bits + len);
                    }
                    dd_handle pieces;
                    ASSERT_NO_FATAL_FAILURE(make_pieces(listed, len, stride, displacements, pieces));
                    ASSERT_EQ(pack_all(pieces, base, 1), expected);
                    std::vector<uint8_t> back(memory.size(), 0x5a);
                    int64_t done = 0;
                    ASSERT_EQ(ccs_datadesc_unpack(expected.data(), static_cast<int64_t>(expected.size()),
                                                  back.data() + 1 + first, 1, pieces, 0, &done),
                              CCS_OK);
                    ASSERT_EQ(back, memory);
                }
            }
        }
    }
}

// Runs long enough that the kernels prefetch pieces ahead (8192 pieces or
// more, strided 1 KiB apart or more, or listed in a scrambled order), one
// count both prefetch distances divide and one they do not: every piece
// arrives, whole and from an offset that starts mid-run.
TEST(DatadescLayout, LongRunsOfPiecesFarApartOrScattered) {
    const int64_t stride = 1032;  // 1 KiB or more: far enough to prefetch
    for (int64_t count : {int64_t{8192}, int64_t{8192 + 37}}) {
        for (int64_t len : {1, 4, 8, 16, 24, 40}) {
            for (bool listed : {false, true}) {
                SCOPED_TRACE(std::to_string(count) + " pieces, len " + std::to_string(len) + (listed ? ", listed" : ""));
                std::vector<int64_t> displacements;
                for (int64_t i = 0; i < count; ++i)  // 4099 is prime: a permutation of the places
                    displacements.push_back((listed ? (i * 4099) % count : i) * stride);
                dd_handle pieces;
                ASSERT_NO_FATAL_FAILURE(make_pieces(listed, len, stride, displacements, pieces));
                std::vector<uint8_t> memory(static_cast<size_t>((count - 1) * stride + len)), expected;
                for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 7 + i / 251);
                for (int64_t at : displacements)
                    expected.insert(expected.end(), memory.begin() + at, memory.begin() + at + len);
                ASSERT_EQ(pack_all(pieces, memory.data(), 1), expected);
                const auto size = static_cast<int64_t>(expected.size());
                const int64_t from = 3 * len + 1;  // inside the fourth piece
                std::vector<uint8_t> tail(static_cast<size_t>(size - from), 0);
                int64_t done = 0;
                ASSERT_EQ(ccs_datadesc_pack(memory.data(), 1, pieces, from, tail.data(), size - from, &done), CCS_OK);
                ASSERT_EQ(done, size - from);
                ASSERT_TRUE(std::equal(tail.begin(), tail.end(), expected.begin() + from));
                std::vector<uint8_t> back(memory.size(), 0);
                ASSERT_EQ(ccs_datadesc_unpack(expected.data(), from, back.data(), 1, pieces, 0, &done), CCS_OK);
                ASSERT_EQ(ccs_datadesc_unpack(expected.data() + from, size - from, back.data(), 1, pieces, from, &done),
                          CCS_OK);
                ASSERT_EQ(done, size - from);
                std::vector<uint8_t> want(memory.size(), 0);  // the pieces' bytes, nothing between them
                for (int64_t at : displacements) std::copy_n(memory.begin() + at, len, want.begin() + at);
                ASSERT_TRUE(back == want);
            }
        }
    }
}

// Columns far apart, forwards and backwards: a multiple of 1 KiB apart and
// 1024 to 8192 pieces, packed in lanes (copy_kernels.hpp, pack_in_lanes),
// 16 pieces at a time plus a tail; 8192 or more 1032 B apart backwards,
// prefetched. Every piece arrives in order, whole and resumed inside a
// piece, for counts the lanes divide and not, lengths outside the lanes too.
TEST(DatadescLayout, ColumnsFarApartPackInOrderEitherWay) {
    struct column {
        int64_t count, stride;
    };
    for (column c : {column{1024, 4096}, column{1024 + 5, -2048}, column{8192, 1024}, column{1024 + 15, 32768},
                     column{8192 + 37, -1032}}) {
        for (int64_t len : {2, 4, 8, 16}) {
            SCOPED_TRACE(std::to_string(c.count) + " pieces of " + std::to_string(len) + " B, stride " +
                         std::to_string(c.stride));
            const int64_t step = c.stride < 0 ? -c.stride : c.stride, span = (c.count - 1) * step + len;
            const int64_t first = c.stride < 0 ? span - len : 0;
            dd_handle pieces;
            ASSERT_EQ(ccs_datadesc_hvector(c.count, len, c.stride, CCS_BYTE, pieces.out()), CCS_OK);
            commit(pieces);
            std::vector<uint8_t> memory(static_cast<size_t>(span)), expected;
            for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 7 + i / 4093);
            for (int64_t i = 0; i < c.count; ++i)
                for (int64_t b = 0; b < len; ++b) expected.push_back(memory[static_cast<size_t>(first + i * c.stride + b)]);
            ASSERT_EQ(pack_all(pieces, memory.data() + first, 1), expected);
            const auto size = static_cast<int64_t>(expected.size());
            const int64_t from = 5 * len + 1;  // inside the sixth piece: the lanes start mid-run
            std::vector<uint8_t> tail(static_cast<size_t>(size - from), 0);
            int64_t done = 0;
            ASSERT_EQ(ccs_datadesc_pack(memory.data() + first, 1, pieces, from, tail.data(), size - from, &done), CCS_OK);
            ASSERT_EQ(done, size - from);
            ASSERT_TRUE(std::equal(tail.begin(), tail.end(), expected.begin() + from));
        }
    }
}

// Ten loop levels, more than a walker holds without allocating: packing
// from any offset with any budget still yields the typemap's bytes.
TEST(DatadescLayout, DeepLoopNestWalksFromAnyOffset) {
    std::vector<int64_t> offsets = {0, 3};  // the typemap, level by level
    dd_handle level;
    ASSERT_EQ(ccs_datadesc_vector(2, 1, 3, CCS_BYTE, level.out()), CCS_OK);
    int64_t span = 4;
    for (int k = 1; k < 10; ++k) {
        const int64_t stride = span + 1 + k;  // never the inner extent: the loops do not fuse
        dd_handle outer;
        ASSERT_EQ(ccs_datadesc_hvector(2, 1, stride, level, outer.out()), CCS_OK);
        std::swap(level.h, outer.h);  // the inner level lives on inside the outer one
        std::vector<int64_t> next;
        for (int64_t i = 0; i < 2; ++i)
            for (int64_t o : offsets) next.push_back(i * stride + o);
        offsets = next;
        span += stride;
    }
    commit(level);
    std::vector<uint8_t> memory(static_cast<size_t>(span)), expected;
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 11 + 7);
    for (int64_t o : offsets) expected.push_back(memory[static_cast<size_t>(o)]);
    EXPECT_EQ(pack_all(level, memory.data(), 1), expected);
    const auto total = static_cast<int64_t>(expected.size());
    for (int64_t from = 0; from < total; from += 37) {
        std::vector<uint8_t> part(13, 0);
        int64_t done = 0;
        ASSERT_EQ(ccs_datadesc_pack(memory.data(), 1, level, from, part.data(), 13, &done), CCS_OK);
        ASSERT_EQ(done, std::min<int64_t>(13, total - from));
        for (int64_t b = 0; b < done; ++b) ASSERT_EQ(part[static_cast<size_t>(b)], expected[static_cast<size_t>(from + b)]);
    }
}
