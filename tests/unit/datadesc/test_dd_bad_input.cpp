// Bad input to datadesc calls: clear errors, nothing written.
#include "dd_helpers.hpp"
#include "datadesc/layout_wire.hpp"

#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

TEST(DatadescBadInput, NegativeCountsAndNullArrays) {
    ccs_datadesc_t out = nullptr;
    EXPECT_EQ(ccs_datadesc_contiguous(-1, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_vector(2, -1, 1, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_indexed(2, nullptr, nullptr, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    const int64_t bl[] = {1, -2}, disp[] = {0, 4};
    EXPECT_EQ(ccs_datadesc_hindexed(2, bl, disp, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_struct(1, bl, disp, nullptr, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_contiguous(2, nullptr, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_contiguous(2, CCS_BYTE, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(out, nullptr);
}

TEST(DatadescBadInput, OverflowIsAnErrorNotAWrap) {
    dd_handle two;
    ASSERT_EQ(ccs_datadesc_contiguous(2, CCS_BYTE, two.out()), CCS_OK);
    ccs_datadesc_t out = nullptr;
    EXPECT_EQ(ccs_datadesc_contiguous(INT64_MAX, two, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(ccs_datadesc_hvector(3, 1, INT64_MAX / 2 + 1, CCS_BYTE, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(ccs_datadesc_vector(2, 1, INT64_MAX, two, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(ccs_datadesc_resized(CCS_BYTE, INT64_MAX, 1, &out), CCS_ERR_OVERFLOW);
    dd_handle big;
    ASSERT_EQ(ccs_datadesc_contiguous(INT64_MAX / 2, CCS_BYTE, big.out()), CCS_OK);
    ASSERT_EQ(ccs_datadesc_commit(big), CCS_OK);
    int64_t done = 0;
    char c = 0;
    EXPECT_EQ(ccs_datadesc_pack(&c, 3, big, 0, &c, 1, &done), CCS_ERR_OVERFLOW);
    EXPECT_EQ(out, nullptr);
}

TEST(DatadescBadInput, UncommittedUseAndLimits) {
    dd_handle v;
    ASSERT_EQ(ccs_datadesc_vector(2, 1, 2, CCS_BYTE, v.out()), CCS_OK);
    char src[8] = {}, dst[8] = {};
    int64_t done = 0, n = 0;
    int flag = 0;
    EXPECT_EQ(ccs_datadesc_pack(src, 1, v, 0, dst, 2, &done), CCS_ERR_NOT_COMMITTED);
    EXPECT_EQ(ccs_datadesc_unpack(src, 2, dst, 1, v, 0, &done), CCS_ERR_NOT_COMMITTED);
    EXPECT_EQ(ccs_datadesc_num_blocks(v, &n), CCS_ERR_NOT_COMMITTED);
    EXPECT_EQ(ccs_datadesc_is_contiguous(v, 1, &flag), CCS_ERR_NOT_COMMITTED);
    ASSERT_EQ(ccs_datadesc_commit(v), CCS_OK);
    EXPECT_EQ(ccs_datadesc_pack(src, 1, v, 3, dst, 2, &done), CCS_ERR_INVALID_ARG);  // past the end
    EXPECT_EQ(ccs_datadesc_pack(src, -1, v, 0, dst, 2, &done), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_pack(src, 1, v, 0, nullptr, 2, &done), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_pack(src, 1, v, 0, dst, 2, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(std::string(dst, 8), std::string(8, '\0'));  // nothing written on errors

    const int64_t counts[CCS_DATADESC_MAX_STRIDE_LEVELS + 2] = {1};
    const int64_t strides[CCS_DATADESC_MAX_STRIDE_LEVELS + 1] = {};
    ccs_datadesc_t out = nullptr;
    EXPECT_EQ(ccs_datadesc_strided(CCS_DATADESC_MAX_STRIDE_LEVELS + 1, counts, strides, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_strided(-1, counts, strides, &out), CCS_ERR_INVALID_ARG);
    const int64_t sizes[] = {4}, sub[] = {3}, starts[] = {2};
    EXPECT_EQ(ccs_datadesc_subarray(1, sizes, sub, starts, CCS_ORDER_C, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(out, nullptr);
    const int64_t fits[] = {1};
    EXPECT_EQ(ccs_datadesc_subarray(1, sizes, sub, fits, 2, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);  // no such order
    EXPECT_EQ(ccs_datadesc_subarray(1, sizes, sub, fits, -1, CCS_BYTE, &out), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(out, nullptr);
}

// Bounds that each fit but lie further apart than 64 bits reach: the
// extent would wrap, so the constructor refuses (the wire fuzzer found
// this through a blocks node; the public constructors build the same).
TEST(DatadescBadInput, ExtentsWiderThan64BitsAreRefused) {
    ccs_datadesc_t out = nullptr;
    const int64_t bl[] = {1, 1}, apart[] = {-(INT64_MAX / 2) - 1000, INT64_MAX / 2 + 1000};
    EXPECT_EQ(ccs_datadesc_hindexed(2, bl, apart, CCS_BYTE, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(ccs_datadesc_hvector(2, 1, INT64_MIN + 1, CCS_BYTE, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(out, nullptr);
    ccs_datadesc_t far = nullptr;  // [2^62 + 1000, +1): fits
    const int64_t one[] = {1}, at[] = {INT64_MAX / 2 + 1000};
    ASSERT_EQ(ccs_datadesc_hindexed(1, one, at, CCS_BYTE, &far), CCS_OK);
    EXPECT_EQ(ccs_datadesc_resized(far, -(INT64_MAX / 2) - 1000, 1, &out), CCS_OK);  // markers alone fit
    ccs_datadesc_free(&out);
    const ccs_datadesc_t both[] = {far, CCS_BYTE};
    const int64_t zero[] = {0, -(INT64_MAX / 2) - 1000};
    EXPECT_EQ(ccs_datadesc_struct(2, bl, zero, both, &out), CCS_ERR_OVERFLOW);
    EXPECT_EQ(out, nullptr);
    ccs_datadesc_free(&far);
}

// Layouts that are valid but whose compilation multiplied numbers no
// constructor had checked (found by the wire fuzzer): zero blocks of a
// huge block length, and a loop of two blocks 2^62 + 1 apart repeated,
// whose count times stride does not fit though its span does. They
// commit (UBSan in CI watches the arithmetic) and keep their sizes.
TEST(DatadescBadInput, CommitDoesNotOverflowOnUncheckedProducts) {
    ccs_datadesc_t big = nullptr, none = nullptr, wide = nullptr, twice = nullptr;
    ASSERT_EQ(ccs_datadesc_contiguous(int64_t{1} << 40, CCS_BYTE, &big), CCS_OK);
    ASSERT_EQ(ccs_datadesc_hvector(0, int64_t{1} << 40, 8, big, &none), CCS_OK);
    EXPECT_EQ(ccs_datadesc_commit(none), CCS_OK);
    ASSERT_EQ(ccs_datadesc_hvector(2, 1, (int64_t{1} << 62) + 1, CCS_BYTE, &wide), CCS_OK);
    ASSERT_EQ(ccs_datadesc_hvector(2, 1, 5, wide, &twice), CCS_OK);
    EXPECT_EQ(ccs_datadesc_commit(twice), CCS_OK);
    int64_t size = -1;
    EXPECT_EQ(ccs_datadesc_size(none, &size), CCS_OK);
    EXPECT_EQ(size, 0);
    EXPECT_EQ(ccs_datadesc_size(twice, &size), CCS_OK);
    EXPECT_EQ(size, 4);
    for (ccs_datadesc_t *d : {&big, &none, &wide, &twice}) ccs_datadesc_free(d);
}

TEST(DatadescBadInput, ByteCannotBeFreedAndFreeClearsTheHandle) {
    ccs_datadesc_t byte = CCS_BYTE;
    EXPECT_EQ(ccs_datadesc_free(&byte), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_datadesc_free(nullptr), CCS_ERR_INVALID_ARG);
    ccs_datadesc_t d = nullptr;
    ASSERT_EQ(ccs_datadesc_contiguous(1, CCS_BYTE, &d), CCS_OK);
    ASSERT_EQ(ccs_datadesc_free(&d), CCS_OK);
    EXPECT_EQ(d, nullptr);
    EXPECT_EQ(ccs_datadesc_free(&d), CCS_ERR_INVALID_ARG);  // NULL now
    int64_t size = 0;
    EXPECT_EQ(ccs_datadesc_size(CCS_BYTE, &size), CCS_OK);  // the byte is untouched
    EXPECT_EQ(size, 1);
}

// The wire form of a layout comes from another process: every truncation,
// a child that is not an earlier node, an unknown kind, negative counts,
// overflowing bounds and trailing bytes are errors, and nothing is built.
TEST(DatadescBadInput, LayoutFromAnotherProcessIsCheckedBeforeUse) {
    ccs_datadesc_t inner = nullptr, outer = nullptr;
    ASSERT_EQ(ccs_datadesc_hvector(3, 2, 5, CCS_BYTE, &inner), CCS_OK);
    ASSERT_EQ(ccs_datadesc_resized(inner, -4, 40, &outer), CCS_OK);
    ASSERT_EQ(ccs_datadesc_commit(outer), CCS_OK);
    std::vector<uint8_t> wire;
    ccs::dd::layout_to_bytes(*ccs::dd::resolve(outer), wire);
    // byte, strided, resized: 4 + 1 + (1 + 24 + 4) + (1 + 16 + 4) bytes.
    ASSERT_EQ(wire.size(), 55u);
    ccs_datadesc_s good;
    ASSERT_EQ(ccs::dd::layout_from_bytes(wire.data(), wire.size(), good), CCS_OK);
    for (size_t n = 0; n < wire.size(); ++n) {
        ccs_datadesc_s cut;
        EXPECT_EQ(ccs::dd::layout_from_bytes(wire.data(), n, cut), CCS_ERR_INVALID_ARG) << n << " bytes";
        EXPECT_FALSE(cut.compiled) << n;
    }
    auto broken = [&](size_t at, auto value) {
        std::vector<uint8_t> w = wire;
        std::memcpy(w.data() + at, &value, sizeof value);
        ccs_datadesc_s out;
        const ccs_status_t st = ccs::dd::layout_from_bytes(w.data(), w.size(), out);
        EXPECT_FALSE(out.compiled) << at;
        return st;
    };
    EXPECT_EQ(broken(5, uint8_t{7}), CCS_ERR_INVALID_ARG);          // unknown kind
    EXPECT_EQ(broken(30, uint32_t{1}), CCS_ERR_INVALID_ARG);        // the strided node as its own child
    EXPECT_EQ(broken(30, uint32_t{9}), CCS_ERR_INVALID_ARG);        // no such node
    EXPECT_EQ(broken(6, int64_t{-3}), CCS_ERR_INVALID_ARG);         // negative count
    EXPECT_EQ(broken(14, int64_t{-2}), CCS_ERR_INVALID_ARG);        // negative block length
    EXPECT_EQ(broken(22, INT64_MAX), CCS_ERR_OVERFLOW);             // stride times count
    EXPECT_EQ(broken(0, uint32_t{1000}), CCS_ERR_INVALID_ARG);      // more nodes than bytes
    std::vector<uint8_t> longer = wire;
    longer.push_back(0);
    ccs_datadesc_s out;
    EXPECT_EQ(ccs::dd::layout_from_bytes(longer.data(), longer.size(), out), CCS_ERR_INVALID_ARG);
    // Read back, the layout is the one written.
    int64_t lb = 0, extent = 0, size = 0;
    ccs_datadesc_t read_back = ccs::dd::handle_insert(std::make_unique<ccs_datadesc_s>(good));
    EXPECT_EQ(ccs_datadesc_extent(read_back, &lb, &extent), CCS_OK);
    EXPECT_EQ(ccs_datadesc_size(read_back, &size), CCS_OK);
    EXPECT_EQ(std::make_tuple(lb, extent, size), std::make_tuple(int64_t{-4}, int64_t{40}, int64_t{6}));
    ccs_datadesc_free(&read_back);
    ccs_datadesc_free(&inner);
    ccs_datadesc_free(&outer);
}

// A handle is checked through the table, never by reading what it points
// to: a freed handle is refused even when its slot holds a new datadesc,
// and values that were never handles are refused without being read.
TEST(DatadescBadInput, StaleAndForgedHandlesAreRefusedAndHarmNothing) {
    ccs_datadesc_t first = nullptr, second = nullptr;
    ASSERT_EQ(ccs_datadesc_contiguous(8, CCS_BYTE, &first), CCS_OK);
    ASSERT_EQ(ccs_datadesc_commit(first), CCS_OK);
    ccs_datadesc_t stale = first;
    ASSERT_EQ(ccs_datadesc_free(&first), CCS_OK);
    ASSERT_EQ(ccs_datadesc_contiguous(16, CCS_BYTE, &second), CCS_OK);  // may reuse the slot
    ASSERT_EQ(ccs_datadesc_commit(second), CCS_OK);
    ASSERT_NE(second, stale);
    int64_t size = 0;
    EXPECT_EQ(ccs_datadesc_size(stale, &size), CCS_ERR_INVALID_ARG);
    EXPECT_NE(std::string(ccs_last_error()).find("not a live datadesc"), std::string::npos) << ccs_last_error();
    uint8_t src[16] = {1}, dst[16] = {};
    int64_t done = -1;
    EXPECT_EQ(ccs_datadesc_pack(src, 1, stale, 0, dst, 16, &done), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(done, -1);
    EXPECT_EQ(ccs_datadesc_free(&stale), CCS_ERR_INVALID_ARG);
    // The new datadesc is whole.
    EXPECT_EQ(ccs_datadesc_size(second, &size), CCS_OK);
    EXPECT_EQ(size, 16);
    // Forged values: small integers, the address of some memory (which
    // must not be read: it holds bytes that would look like anything).
    std::vector<uint8_t> garbage(256, 0xab);
    for (ccs_datadesc_t forged : {reinterpret_cast<ccs_datadesc_t>(uintptr_t{1}),
                                  reinterpret_cast<ccs_datadesc_t>(uintptr_t{0x100000001}),
                                  reinterpret_cast<ccs_datadesc_t>(garbage.data()),
                                  reinterpret_cast<ccs_datadesc_t>(~uintptr_t{0})}) {
        EXPECT_EQ(ccs_datadesc_size(forged, &size), CCS_ERR_INVALID_ARG);
        ccs_datadesc_t out = nullptr;
        EXPECT_EQ(ccs_datadesc_contiguous(2, forged, &out), CCS_ERR_INVALID_ARG);
        EXPECT_EQ(out, nullptr);
    }
    EXPECT_EQ(ccs_datadesc_free(&second), CCS_OK);
}
