// Bad input to datadesc calls: clear errors, nothing written.
#include "dd_helpers.hpp"

#include <climits>

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
