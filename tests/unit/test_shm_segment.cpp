// The shm segment: private (0600), exclusive, validated on attach, gone
// from /dev/shm once unlinked; memory only for the rings reserved.
#include "shm_segment.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace ccs::shm;

namespace {
std::string unique_name() { return segment_name("unit" + std::to_string(::getpid()), 0); }
bool exists(const std::string &name) {
    struct stat st {};
    return ::stat(("/dev/shm" + name).c_str(), &st) == 0;
}
}  // namespace

TEST(ShmSegment, PrivateExclusiveAndRemovedOnUnlink) {
    const std::string name = unique_name();
    segment owner;
    ASSERT_EQ(owner.create(name, 3, 16 * 1024), "");
    struct stat st {};
    ASSERT_EQ(::stat(("/dev/shm" + name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);

    segment second;  // the same name again: refused, not shared by accident
    EXPECT_NE(second.create(name, 3, 16 * 1024).find("File exists"), std::string::npos);

    segment peer;
    EXPECT_EQ(peer.attach(name, 3, 16 * 1024), "");
    EXPECT_LT(reinterpret_cast<uint8_t *>(peer.control(1, 2)), peer.data(1, 2));
    EXPECT_LE(reinterpret_cast<uint8_t *>(peer.control(1, 2)) + sizeof(ring_control), peer.data(1, 2));
    segment wrong;
    EXPECT_NE(wrong.attach(name, 3, 32 * 1024).find("expected"), std::string::npos);

    EXPECT_EQ(owner.unlink(), "");
    EXPECT_FALSE(exists(name));
    EXPECT_EQ(owner.unlink(), "");  // idempotent
    EXPECT_NE(segment().attach(name, 3, 16 * 1024).find("No such file"), std::string::npos);
}

TEST(ShmSegment, NamesAreSafeForAnyJobId) {
    EXPECT_EQ(segment_name("abc-1.2@x/y", 3), "/ccs-abc_1_2_x_y-n3");
}

TEST(ShmSegment, OwnerRemovesTheNameWhenDestroyed) {
    const std::string name = unique_name() + "d";
    {
        segment s;
        ASSERT_EQ(s.create(name, 2, 16 * 1024), "");
        EXPECT_TRUE(exists(name));
    }
    EXPECT_FALSE(exists(name));
}

// 64 processes: the rings of all 4032 pairs would take a gigabyte; until a
// ring is reserved, the segment holds its header, pids and doorbells.
TEST(ShmSegment, HoldsMemoryOnlyForReservedRings) {
    const std::string name = unique_name() + "r";
    constexpr size_t ring = 256 * 1024;
    segment s;
    ASSERT_EQ(s.create(name, 64, ring), "");
    const size_t fixed = s.bytes_in_use();
    EXPECT_GT(fixed, 0u);
    EXPECT_LT(fixed, size_t{64} << 10);
    segment peer;  // a second process's view: the same memory
    ASSERT_EQ(peer.attach(name, 64, ring), "");

    ASSERT_EQ(s.reserve_ring(3, 7), "");
    EXPECT_GE(s.bytes_in_use(), fixed + ring);
    EXPECT_LT(s.bytes_in_use(), fixed + ring + (size_t{16} << 10));
    EXPECT_EQ(peer.bytes_in_use(), s.bytes_in_use());
    // A reserved ring is empty: a producer and a consumer on it agree.
    ring_producer p(s.control(3, 7), s.data(3, 7), ring);
    ring_consumer c(peer.control(3, 7), peer.data(3, 7), ring);
    EXPECT_TRUE(c.empty());
    const uint64_t word = 0x1122334455667788;
    const ring_piece piece{&word, sizeof word};
    ASSERT_TRUE(p.push(&piece, 1, sizeof word));
    uint64_t got = 0;
    EXPECT_EQ(c.poll([&](const uint8_t *data, size_t length) { std::memcpy(&got, data, length); }, 4), 1);
    EXPECT_EQ(got, word);

    // Released, the memory goes back, and the ring reads as never used.
    ASSERT_EQ(peer.release_ring(3, 7), "");
    EXPECT_EQ(s.bytes_in_use(), fixed);
    ASSERT_EQ(s.reserve_ring(3, 7), "");
    EXPECT_TRUE(ring_consumer(peer.control(3, 7), peer.data(3, 7), ring).empty());
    EXPECT_EQ(s.control(3, 7)->tail.load(), 0u);
}

TEST(ShmSegment, EveryProcessHasItsOwnEmptyDoorbell) {
    const std::string name = unique_name() + "b";
    segment s;
    ASSERT_EQ(s.create(name, 70, 16 * 1024), "");
    s.bell(5).ring(69);
    std::vector<uint32_t> rung;
    for (uint32_t p = 0; p < 70; ++p)
        s.bell(p).take([&](uint32_t sender) { rung.push_back(p * 1000 + sender); });
    EXPECT_EQ(rung, std::vector<uint32_t>{5069});
}
