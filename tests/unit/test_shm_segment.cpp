// The shm segment: private (0600), exclusive, validated on attach, gone
// from /dev/shm once unlinked.
#include "shm_segment.hpp"

#include <gtest/gtest.h>

#include <string>

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
    EXPECT_EQ(peer.control(1, 2), reinterpret_cast<ring_control *>(peer.data(1, 2)) - 1);
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
