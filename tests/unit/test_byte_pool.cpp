// The AM engine's buffer pool: buffers come back by capacity class, the
// bytes kept stay under the limit, the sizes just used push out others,
// small buffers are not kept, and a buffer may outlive its pool.
#include "util/asan.hpp"
#include "util/byte_pool.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <vector>

namespace {

using ccs::byte_buffer;
using ccs::byte_pool;

TEST(BytePool, AGivenBackBufferServesTheNextTakeOfItsClass) {
    byte_pool pool(1 << 20);
    byte_buffer a = pool.take(5000);  // class 8 KiB
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(a.size(), 5000u);
    std::memset(a.data(), 0xab, a.size());  // every byte of the size is usable
    const uint8_t *where = a.data();
    pool.give_back(std::move(a));
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(pool.cached_bytes(), 8192u);

    byte_buffer b = pool.take(8192);  // same class
    EXPECT_EQ(b.data(), where);
    EXPECT_EQ(b.size(), 8192u);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(pool.stats().reused, 1u);
    EXPECT_EQ(pool.stats().allocated, 1u);

    byte_buffer c = pool.take(8193);  // the next class: a new buffer
    EXPECT_NE(c.data(), where);
    EXPECT_EQ(pool.stats().allocated, 2u);
}

TEST(BytePool, SmallBuffersAreNotKept) {
    byte_pool pool(1 << 20);
    byte_buffer small = pool.take(byte_pool::min_pooled - 1);
    ASSERT_NE(small.data(), nullptr);
    pool.give_back(std::move(small));
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(pool.stats().allocated, 0u);  // counts pooled classes only
    EXPECT_TRUE(pool.take(0).empty());
}

TEST(BytePool, CopyOfHoldsTheBytes) {
    byte_pool pool(1 << 20);
    std::vector<uint8_t> src(10000);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7);
    pool.give_back(pool.take(16384));  // a used buffer of the class, reused below
    byte_buffer b = pool.copy_of(src.data(), src.size());
    EXPECT_EQ(pool.stats().reused, 1u);
    ASSERT_EQ(b.size(), src.size());
    EXPECT_EQ(std::memcmp(b.data(), src.data(), src.size()), 0);
}

TEST(BytePool, KeepsNoMoreThanItsLimit) {
    byte_pool pool(64 * 1024);
    std::vector<byte_buffer> held;
    for (int i = 0; i < 10; ++i) held.push_back(pool.take(16 * 1024));
    for (auto &b : held) pool.give_back(std::move(b));
    EXPECT_EQ(pool.cached_bytes(), 64u * 1024);  // 4 of the 10 kept
    for (int i = 0; i < 4; ++i) held[static_cast<size_t>(i)] = pool.take(16 * 1024);
    EXPECT_EQ(pool.stats().reused, 4u);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    pool.give_back(pool.take(128 * 1024));  // larger than the limit: never kept
    EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BytePool, TheSizeJustUsedPushesOutOthers) {
    byte_pool pool(64 * 1024);
    std::vector<byte_buffer> small, large;
    for (int i = 0; i < 8; ++i) small.push_back(pool.take(8 * 1024));
    for (auto &b : small) pool.give_back(std::move(b));
    EXPECT_EQ(pool.cached_bytes(), 64u * 1024);  // full of 8 KiB buffers
    for (int i = 0; i < 2; ++i) large.push_back(pool.take(32 * 1024));
    for (auto &b : large) pool.give_back(std::move(b));
    EXPECT_EQ(pool.cached_bytes(), 64u * 1024);  // now full of 32 KiB ones
    const uint64_t allocated = pool.stats().allocated;
    for (int i = 0; i < 2; ++i) large[static_cast<size_t>(i)] = pool.take(32 * 1024);
    EXPECT_EQ(pool.stats().allocated, allocated);
    EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BytePool, AbsurdSizesAreRefused) {
    byte_pool pool(1 << 20);
    EXPECT_THROW(pool.take(byte_pool::max_size + 1), std::bad_alloc);
    EXPECT_THROW(pool.take(SIZE_MAX), std::bad_alloc);
    EXPECT_EQ(pool.cached_bytes(), 0u);
}

#if defined(CCS_ASAN)
// What the pool keeps, and a buffer's bytes past its size, stay poisoned:
// ASan still reports a use after give_back or past the size.
TEST(BytePool, UnderAddressSanitizerKeptBytesArePoisoned) {
    byte_pool pool(1 << 20);
    byte_buffer b = pool.take(5000);
    uint8_t *p = b.data();
    EXPECT_FALSE(__asan_address_is_poisoned(p + 4999));
    EXPECT_TRUE(__asan_address_is_poisoned(p + 5000));
    pool.give_back(std::move(b));
    EXPECT_TRUE(__asan_address_is_poisoned(p));
    byte_buffer again = pool.take(6000);
    ASSERT_EQ(again.data(), p);
    EXPECT_FALSE(__asan_address_is_poisoned(p + 5999));
    EXPECT_TRUE(__asan_address_is_poisoned(p + 6000));
}
#endif

TEST(BytePool, ABufferMayOutliveItsPool) {
    byte_buffer survivor;
    {
        byte_pool pool(1 << 20);
        pool.give_back(pool.take(1 << 16));
        survivor = pool.take(1 << 16);
        survivor.data()[0] = 1;
    }  // the pool frees what it keeps; the survivor frees itself (ASan checks)
    EXPECT_EQ(survivor.data()[0], 1);
}

}  // namespace
