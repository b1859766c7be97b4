// Bad input to collectives: a clear error, on every member where one
// member's mistake would otherwise leave the rest waiting, and nothing
// lost: the team goes on working afterwards.
#include "harness.hpp"

#include <ccs/coll.h>

#include <algorithm>
#include <vector>

#include <sys/mman.h>

using namespace conformance;

namespace {

// The world team still works, with every member in step.
void expect_team_works() {
    int64_t one = 1, sum = 0;
    CCS_EXPECT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, &one, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
    EXPECT_EQ(sum, size());
}

}  // namespace

TEST(CollectiveErrors, RefusedEverywhereAlike) {
    int64_t x = 1, y = 0;
    EXPECT_EQ(ccs_team_broadcast(CCS_TEAM_WORLD, &x, 8, size(), nullptr), CCS_ERR_INVALID_RANK);
    EXPECT_TRUE(mentions(ccs_last_error(), "root")) << ccs_last_error();
    EXPECT_EQ(ccs_team_reduce(CCS_TEAM_WORLD, &x, &y, 1, CCS_ACC_INT64, CCS_ACC_SUM, -1, nullptr), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(ccs_team_allreduce(CCS_TEAM_WORLD, &x, &y, 1, CCS_ACC_INT64, 99, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_team_allreduce(CCS_TEAM_WORLD, &x, &y, 1, 42, CCS_ACC_SUM, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_team_allreduce(CCS_TEAM_WORLD, &x, &y, 1, CCS_ACC_COMPLEX_DOUBLE, CCS_ACC_MAX, nullptr),
              CCS_ERR_INVALID_ARG);
    if (size() > 1) {
        // size * length past SIZE_MAX.
        EXPECT_EQ(ccs_team_allgather(CCS_TEAM_WORLD, &x, SIZE_MAX / 2 + 1, &y, nullptr), CCS_ERR_OVERFLOW);
        EXPECT_EQ(ccs_team_alltoall(CCS_TEAM_WORLD, &x, SIZE_MAX / 2 + 1, &y, nullptr), CCS_ERR_OVERFLOW);
        EXPECT_TRUE(mentions(ccs_last_error(), "does not fit")) << ccs_last_error();
    }
    EXPECT_EQ(ccs_team_allreduce(CCS_TEAM_WORLD, &x, &y, SIZE_MAX / 4, CCS_ACC_INT64, CCS_ACC_SUM, nullptr),
              CCS_ERR_OVERFLOW);
    std::vector<size_t> lengths(static_cast<size_t>(size()), 8);
    EXPECT_EQ(ccs_team_allgatherv(CCS_TEAM_WORLD, &x, 8, &y, lengths.data(), nullptr, nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "lengths or offsets is NULL")) << ccs_last_error();
    // A completion that tells nothing, on every member.
    const ccs_completion_t nothing{};
    EXPECT_EQ(ccs_team_barrier(CCS_TEAM_WORLD, &nothing), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "neither a callback nor a counter")) << ccs_last_error();
    expect_team_works();
}

TEST(CollectiveErrors, OneMembersBadBufferEndsItEverywhere) {
    const int last = size() - 1;
    std::vector<int64_t> src(4, 1), dst(4, 0);
    const ccs_status_t st = ccs_team_allreduce(CCS_TEAM_WORLD, rank() == last ? nullptr : src.data(), dst.data(), 4,
                                               CCS_ACC_INT64, CCS_ACC_SUM, nullptr);
    EXPECT_EQ(st, CCS_ERR_INVALID_ARG) << ccs_last_error();
    const char *expected = rank() == last ? "src is NULL" : "failed at team rank";
    EXPECT_TRUE(mentions(ccs_last_error(), expected)) << ccs_last_error();
    expect_team_works();
    // Large (chunk by chunk, in node memory where the team has it): the
    // collectives after it do not wait for the chunks it never moved.
    // Who else fails depends on who waited for the refusing member, which
    // differs between algorithms.
    std::vector<uint8_t> big(1 << 20, 7);
    const ccs_status_t large =
        ccs_team_broadcast(CCS_TEAM_WORLD, rank() == last ? nullptr : big.data(), big.size(), 0, nullptr);
    if (rank() == last) {
        EXPECT_EQ(large, CCS_ERR_INVALID_ARG);
    } else if (large != CCS_OK) {
        EXPECT_TRUE(mentions(ccs_last_error(), "failed at team rank")) << ccs_last_error();
    }
    std::vector<uint8_t> gathered(big.size() * static_cast<size_t>(size()));
    CCS_EXPECT_OK(ccs_team_allgather(CCS_TEAM_WORLD, big.data(), big.size(), gathered.data(), nullptr));
    EXPECT_EQ(gathered.front(), 7);
    EXPECT_EQ(gathered.back(), 7);
    expect_team_works();
}

// Where bytes move straight between the members' buffers, a member's
// buffer that is not mapped fails the collective on every member of its
// node (the kernel reports it; nothing faults), and the team goes on. In
// two levels, the other nodes' members may have all they need.
TEST(CollectiveErrors, AnUnmappedBufferFailsEveryMemberWhereBytesMoveStraight) {
    if (size() < 2) GTEST_SKIP() << "needs two processes";
    std::vector<uint8_t> big(1 << 20, 0);
    const uint64_t before = stat("coll.cross_memory");
    CCS_ASSERT_OK(ccs_team_broadcast(CCS_TEAM_WORLD, big.data(), big.size(), 0, nullptr));
    // The last member whose node moves bytes straight (in two levels, some
    // nodes may not); never the one its node's part starts from, whose
    // bytes come by messages.
    const int64_t mine = stat("coll.cross_memory") > before ? rank() : -1;
    int64_t last = -1;
    CCS_ASSERT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, &mine, &last, 1, CCS_ACC_INT64, CCS_ACC_MAX, nullptr));
    if (last < 0) GTEST_SKIP() << "bytes do not move straight between buffers here";
    void *unmapped = mmap(nullptr, big.size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(unmapped, MAP_FAILED);
    if (rank() == 0) std::fill(big.begin(), big.end(), 9);
    const ccs_status_t st =
        ccs_team_broadcast(CCS_TEAM_WORLD, rank() == last ? unmapped : big.data(), big.size(), 0, nullptr);
    const bool with_last = rank() == last || (peer_flags(static_cast<int>(last)) & CCS_PEER_SAME_NODE);
    if (with_last || st != CCS_OK) {
        EXPECT_EQ(st, CCS_ERR_INVALID_ARG) << ccs_last_error();
        const char *expected = rank() == last ? "not mapped" : "failed at team rank";
        EXPECT_TRUE(mentions(ccs_last_error(), expected) || mentions(ccs_last_error(), "not mapped"))
            << ccs_last_error();
    }
    if (rank() == 0) {
        EXPECT_EQ(std::count(big.begin(), big.end(), 9), static_cast<long>(big.size()));
    }
    munmap(unmapped, big.size());
    CCS_EXPECT_OK(ccs_team_broadcast(CCS_TEAM_WORLD, big.data(), big.size(), 0, nullptr));
    EXPECT_EQ(big[12345], 9);
    expect_team_works();
}

TEST(CollectiveErrors, MembersThatDisagreeAreNamed) {
    if (size() < 2) GTEST_SKIP() << "needs two processes";
    std::vector<int64_t> src(2, 1), dst(2, 0);
    // Rank 0 reduces two elements, the others one.
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    CCS_ASSERT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, src.data(), dst.data(), rank() == 0 ? 2 : 1, CCS_ACC_INT64,
                                     CCS_ACC_SUM, &c));
    ASSERT_TRUE(progress_until([&] { return counted(done) == 1; }, 60)) << "a mismatched allreduce did not end";
    EXPECT_EQ(done.errors, 1u);
    EXPECT_EQ(done.first_error, CCS_ERR_INVALID_ARG);
    EXPECT_EQ(ccs_counter_wait(&done, 1), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_team_allreduce")) << ccs_last_error();
    // The same, blocking.
    EXPECT_EQ(ccs_team_allreduce(CCS_TEAM_WORLD, src.data(), dst.data(), rank() == 0 ? 2 : 1, CCS_ACC_INT64,
                                 CCS_ACC_SUM, nullptr),
              CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_team_allreduce")) << ccs_last_error();
    CCS_EXPECT_OK(ccs_barrier());
    CCS_EXPECT_OK(ccs_barrier());
    expect_team_works();
    // Rank 0 gathers blocks of any size (by messages), the others gather
    // blocks of 8 bytes (through node memory where the team has it): rank 0
    // must not wait for messages that never come.
    int64_t mine = rank(), at_root[64] = {};
    const std::vector<size_t> lengths(static_cast<size_t>(size()), 8);
    std::vector<size_t> offsets;
    for (int i = 0; i < size(); ++i) offsets.push_back(8 * static_cast<size_t>(i));
    const ccs_status_t st = rank() == 0 ? ccs_team_gatherv(CCS_TEAM_WORLD, &mine, 8, at_root, lengths.data(),
                                                           offsets.data(), 0, nullptr)
                                        : ccs_team_gather(CCS_TEAM_WORLD, &mine, 8, nullptr, 0, nullptr);
    EXPECT_EQ(st, rank() == 0 ? CCS_ERR_INVALID_ARG : CCS_OK) << ccs_last_error();
    if (rank() == 0) {
        EXPECT_TRUE(mentions(ccs_last_error(), "ccs_team_gather")) << ccs_last_error();
    }
    CCS_EXPECT_OK(ccs_barrier());
    expect_team_works();
}

TEST(CollectiveErrors, BlockingCallsRefusedInCallbacks) {
    struct seen {
        ccs_status_t inner = CCS_OK;
        bool ran = false;
    } s;
    const ccs_completion_t c{[](ccs_status_t, void *arg) {
                                 auto &v = *static_cast<seen *>(arg);
                                 v.ran = true;
                                 v.inner = ccs_team_barrier(CCS_TEAM_WORLD, nullptr);
                             },
                             &s, nullptr};
    CCS_ASSERT_OK(ccs_team_barrier(CCS_TEAM_WORLD, &c));
    ASSERT_TRUE(progress_until([&] { return s.ran; }, 60));
    EXPECT_EQ(s.inner, CCS_ERR_IN_HANDLER);
    expect_team_works();
}
