// Teams on every plugin configuration: odd shapes made by stride and by
// list, numbering and translation, collectives on them, and bad input
// that fails every member alike and leaves the parent usable.
#include "harness.hpp"

#include <ccs/coll.h>

#include <algorithm>
#include <numeric>
#include <vector>

using namespace conformance;

namespace {

// Every member's job rank, gathered over the team: proves the team's
// numbering and that its collectives reach exactly its members.
std::vector<int> members_of(ccs_team_t t) {
    std::vector<int> all(static_cast<size_t>(team_size(t)), -1);
    const int me = rank();
    EXPECT_EQ(ccs_team_allgather(t, &me, sizeof me, all.data(), nullptr), CCS_OK) << ccs_last_error();
    return all;
}

}  // namespace

TEST(Teams, WorldOfAContext) {
    scoped_context ctx("teams-world");
    ccs_team_t world{};
    CCS_ASSERT_OK(ccs_team_world(ctx, &world));
    EXPECT_EQ(team_rank(world), rank());
    EXPECT_EQ(team_size(world), size());
    ccs_team_t again{};
    CCS_ASSERT_OK(ccs_team_world(ctx, &again));
    EXPECT_EQ(again.id, world.id);
    std::vector<int> expected(static_cast<size_t>(size()));
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(members_of(world), expected);
    EXPECT_EQ(members_of(CCS_TEAM_WORLD), expected);
    EXPECT_EQ(ccs_team_destroy(world), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "goes with its context")) << ccs_last_error();
    EXPECT_EQ(ccs_team_destroy(CCS_TEAM_WORLD), CCS_ERR_INVALID_ARG);
}

TEST(Teams, StridedShapes) {
    const int n = size();
    struct shape {
        int start, stride, size;
    };
    // Evens, odds, every third from 1, one member, the whole job reversed
    // is by list below.
    const std::vector<shape> shapes = {{0, 2, (n + 1) / 2}, {n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1},
                                       {n > 1 ? 1 : 0, 3, n > 1 ? (n - 2) / 3 + 1 : 1}, {n - 1, 5, 1}};
    for (const shape &s : shapes) {
        ccs_team_t t{};
        CCS_ASSERT_OK(ccs_team_split_strided(CCS_TEAM_WORLD, s.start, s.stride, s.size, &t));
        const bool member = rank() >= s.start && (rank() - s.start) % s.stride == 0 &&
                            (rank() - s.start) / s.stride < s.size;
        if (!member) {
            EXPECT_EQ(t.id, 0u) << "rank " << rank() << " is outside " << s.start << "/" << s.stride;
            continue;
        }
        EXPECT_EQ(team_rank(t), (rank() - s.start) / s.stride);
        EXPECT_EQ(team_size(t), s.size);
        std::vector<int> expected;
        for (int i = 0; i < s.size; ++i) expected.push_back(s.start + i * s.stride);
        EXPECT_EQ(members_of(t), expected);
        int to = -2;
        CCS_EXPECT_OK(ccs_team_translate(t, team_rank(t), CCS_TEAM_WORLD, &to));
        EXPECT_EQ(to, rank());
        // A job rank outside the team translates to -1.
        if (s.size < n) {
            int outsider = 0;
            while (std::find(expected.begin(), expected.end(), outsider) != expected.end()) ++outsider;
            CCS_EXPECT_OK(ccs_team_translate(CCS_TEAM_WORLD, outsider, t, &to));
            EXPECT_EQ(to, -1);
        }
        CCS_EXPECT_OK(ccs_team_destroy(t));
        EXPECT_EQ(ccs_team_rank(t, &to), CCS_ERR_INVALID_TEAM);
    }
}

TEST(Teams, ByListInAnyOrderAndNested) {
    const int n = size();
    std::vector<int> reversed(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) reversed[static_cast<size_t>(i)] = n - 1 - i;
    ccs_team_t back{};
    CCS_ASSERT_OK(ccs_team_create(CCS_TEAM_WORLD, reversed.data(), n, &back));
    EXPECT_EQ(team_rank(back), n - 1 - rank());
    EXPECT_EQ(members_of(back), reversed);
    // A team of the reversed team: its first half (ranks n-1 .. n-n/2).
    const int half = (n + 1) / 2;
    ccs_team_t front{};
    CCS_ASSERT_OK(ccs_team_split_strided(back, 0, 1, half, &front));
    if (rank() >= n - half) {
        std::vector<int> expected;
        for (int i = 0; i < half; ++i) expected.push_back(n - 1 - i);
        EXPECT_EQ(members_of(front), expected);
        CCS_EXPECT_OK(ccs_team_destroy(front));
    } else {
        EXPECT_EQ(front.id, 0u);
    }
    CCS_EXPECT_OK(ccs_team_destroy(back));
}

TEST(Teams, BadArgumentsFailEveryMember) {
    const int n = size();
    ccs_team_t t{7};
    // Out of range everywhere.
    EXPECT_EQ(ccs_team_split_strided(CCS_TEAM_WORLD, 0, 1, n + 1, &t), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(t.id, 0u);
    EXPECT_EQ(ccs_team_split_strided(CCS_TEAM_WORLD, n, 1, 1, &t), CCS_ERR_INVALID_RANK);
    if (n > 1) {
        // Bad on one member only: every member gets an error, nobody a team.
        const int stride = rank() == n - 1 ? 0 : 1;
        const ccs_status_t st = ccs_team_split_strided(CCS_TEAM_WORLD, 0, stride, n, &t);
        EXPECT_EQ(st, CCS_ERR_INVALID_ARG) << ccs_last_error();
        EXPECT_EQ(t.id, 0u);
        if (rank() != n - 1) {
            EXPECT_TRUE(mentions(ccs_last_error(), "another member")) << ccs_last_error();
        }
        // Good on every member, but not the same members.
        const int count = rank() == 0 ? 1 : n;
        std::vector<int> list(static_cast<size_t>(n));
        std::iota(list.begin(), list.end(), 0);
        EXPECT_EQ(ccs_team_create(CCS_TEAM_WORLD, list.data(), count, &t), CCS_ERR_INVALID_ARG);
        EXPECT_TRUE(mentions(ccs_last_error(), "different members")) << ccs_last_error();
    }
    const int twice[2] = {0, 0};
    EXPECT_EQ(ccs_team_create(CCS_TEAM_WORLD, twice, n > 1 ? 2 : 1, &t), n > 1 ? CCS_ERR_INVALID_ARG : CCS_OK);
    if (n == 1) CCS_EXPECT_OK(ccs_team_destroy(t));
    EXPECT_EQ(ccs_team_create(CCS_TEAM_WORLD, nullptr, 1, &t), CCS_ERR_INVALID_ARG);
    // Stale and forged handles.
    int r = 0;
    EXPECT_EQ(ccs_team_rank(ccs_team_t{0}, &r), CCS_ERR_INVALID_TEAM);
    EXPECT_EQ(ccs_team_rank(ccs_team_t{0x123456789ull}, &r), CCS_ERR_INVALID_TEAM);
    EXPECT_EQ(ccs_team_barrier(ccs_team_t{42}, nullptr), CCS_ERR_INVALID_TEAM);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_team_barrier")) << ccs_last_error();
    // Nothing lost: the world team still works, every member in step.
    EXPECT_EQ(members_of(CCS_TEAM_WORLD).size(), static_cast<size_t>(n));
}

TEST(Teams, GoWithTheirContext) {
    ccs_team_t world{}, sub{};
    {
        scoped_context ctx("teams-context");
        CCS_ASSERT_OK(ccs_team_world(ctx, &world));
        CCS_ASSERT_OK(ccs_team_split_strided(world, 0, 1, size(), &sub));
        CCS_EXPECT_OK(ccs_team_barrier(sub, nullptr));
    }
    int r = 0;
    EXPECT_EQ(ccs_team_rank(world, &r), CCS_ERR_INVALID_TEAM);
    EXPECT_EQ(ccs_team_rank(sub, &r), CCS_ERR_INVALID_TEAM);
    EXPECT_EQ(ccs_team_allreduce(sub, &r, &r, 1, CCS_ACC_INT32, CCS_ACC_SUM, nullptr), CCS_ERR_INVALID_TEAM);
}
