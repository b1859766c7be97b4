// Collectives on every plugin configuration: every type and op against a
// sequential model, sizes on both sides of every algorithm switch, every
// root, teams of odd shapes, many in flight on several teams and contexts.
#include "coll_model.hpp"
#include "harness.hpp"

#include <ccs/coll.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace conformance;

namespace {

// The teams every test runs on: the job, and (with 3 or more processes)
// every second process from 1 and the job without rank 0, reversed; with
// 4 or more, the job dealt out in threes (0, 3, 6, ..., 1, 4, 7, ...), so
// that a node's members, on pretend nodes of runs of ranks, are not a run
// of team ranks, and the last rank is not on the node whose first rank
// is the highest.
struct test_teams {
    std::vector<ccs_team_t> mine;  // those this process is in
    std::vector<ccs_team_t> made;
    test_teams() {
        mine.push_back(CCS_TEAM_WORLD);
        if (size() < 3) return;
        ccs_team_t odds{}, rest{};
        EXPECT_EQ(ccs_team_split_strided(CCS_TEAM_WORLD, 1, 2, size() / 2, &odds), CCS_OK) << ccs_last_error();
        std::vector<int> list;
        for (int r = size() - 1; r >= 1; --r) list.push_back(r);
        EXPECT_EQ(ccs_team_create(CCS_TEAM_WORLD, list.data(), size() - 1, &rest), CCS_OK) << ccs_last_error();
        ccs_team_t dealt{};
        if (size() >= 4) {
            list.clear();
            for (int first : {0, 1, 2})
                for (int r = first; r < size(); r += 3) list.push_back(r);
            EXPECT_EQ(ccs_team_create(CCS_TEAM_WORLD, list.data(), size(), &dealt), CCS_OK) << ccs_last_error();
        }
        for (ccs_team_t t : {odds, rest, dealt})
            if (t.id) {
                mine.push_back(t);
                made.push_back(t);
            }
    }
    ~test_teams() {
        for (ccs_team_t t : made) EXPECT_EQ(ccs_team_destroy(t), CCS_OK);
    }
};

template <typename T>
void check_allreduce(ccs_team_t team, int type, size_t count) {
    const int n = team_size(team), me = team_rank(team);
    for (int op = CCS_ACC_SUM; op <= CCS_ACC_REPLACE; ++op) {
        if (!valid_reduction(type, op)) continue;
        std::vector<T> src(count), dst(count);
        for (size_t i = 0; i < count; ++i) src[i] = element<T>(me, i, op);
        CCS_ASSERT_OK(ccs_team_allreduce(team, src.data(), dst.data(), count, type, op, nullptr));
        size_t wrong = 0;
        for (size_t i = 0; i < count; ++i) wrong += !(dst[i] == fold<T>(op, i, 0, n - 1));
        EXPECT_EQ(wrong, 0u) << "type " << type << " op " << op << " count " << count << " team size " << n;
        // In place.
        std::vector<T> inout = src;
        CCS_ASSERT_OK(ccs_team_allreduce(team, inout.data(), inout.data(), count, type, op, nullptr));
        EXPECT_TRUE(count == 0 || std::memcmp(inout.data(), dst.data(), count * sizeof(T)) == 0);
    }
}

}  // namespace

TEST(Collectives, BarrierOnEveryTeam) {
    test_teams teams;
    for (int i = 0; i < 200; ++i)
        for (ccs_team_t t : teams.mine) CCS_ASSERT_OK(ccs_team_barrier(t, nullptr));
}

TEST(Collectives, AllreduceEveryTypeAndOp) {
    test_teams teams;
    for (ccs_team_t t : teams.mine)
        for (size_t count : {size_t{0}, size_t{1}, size_t{37}, size_t{5000}})
            for_each_type([&](auto zero, int type) { check_allreduce<decltype(zero)>(t, type, count); });
    // Doubles on both sides of 48 bytes, 8 KiB and 256 KiB (where node
    // memory changes method), in several chunks, with a partial one.
    for (size_t count : {size_t{6}, size_t{7}, size_t{1024}, size_t{1025}, size_t{32768}, size_t{32769}, size_t{80001}})
        check_allreduce<double>(CCS_TEAM_WORLD, CCS_ACC_DOUBLE, count);
    check_allreduce<double>(CCS_TEAM_WORLD, CCS_ACC_DOUBLE, 1u << 17);
}

TEST(Collectives, AllreduceIsBitwiseTheSameEverywhere) {
    // Values whose sum depends on the order of additions.
    std::mt19937_64 gen(static_cast<uint64_t>(rank()) * 7919 + 1);
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    for (size_t count : {size_t{1}, size_t{1000}, size_t{100000}}) {
        std::vector<double> src(count), dst(count), root(count);
        for (double &x : src) x = d(gen) * std::pow(10.0, static_cast<int>(gen() % 20) - 10);
        CCS_ASSERT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, src.data(), dst.data(), count, CCS_ACC_DOUBLE, CCS_ACC_SUM,
                                         nullptr));
        root = dst;
        CCS_ASSERT_OK(ccs_team_broadcast(CCS_TEAM_WORLD, root.data(), count * sizeof(double), 0, nullptr));
        EXPECT_EQ(std::memcmp(root.data(), dst.data(), count * sizeof(double)), 0) << count;
    }
}

TEST(Collectives, ReduceToEveryRoot) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int n = team_size(t), me = team_rank(t);
        for (int root = 0; root < n; ++root)
            for (int op : {CCS_ACC_SUM, CCS_ACC_MAX, CCS_ACC_REPLACE}) {
                // One slot of node memory holds 1024; 40000 take two chunks.
                const size_t count = op == CCS_ACC_SUM ? 1025 : op == CCS_ACC_MAX && root == n - 1 ? 40000 : 37;
                std::vector<int64_t> src(count), dst(count, -99);
                for (size_t i = 0; i < count; ++i) src[i] = element<int64_t>(me, i, op);
                CCS_ASSERT_OK(ccs_team_reduce(t, src.data(), me == root ? dst.data() : nullptr, count, CCS_ACC_INT64,
                                              op, root, nullptr));
                for (size_t i = 0; me == root && i < count; ++i)
                    ASSERT_EQ(dst[i], fold<int64_t>(op, i, 0, n - 1)) << "root " << root << " op " << op << " i " << i;
            }
    }
}

TEST(Collectives, ScanAndExscan) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int me = team_rank(t);
        auto check = [&](auto zero, int type) {
            using T = decltype(zero);
            for (int op = CCS_ACC_SUM; op <= CCS_ACC_REPLACE; ++op) {
                if (!valid_reduction(type, op)) continue;
                // Past a slot of node memory (8 KiB) for the widest types.
                const size_t count = op == CCS_ACC_SUM ? 1025 : 19;
                std::vector<T> src(count), in(count), ex(count, T(42));
                for (size_t i = 0; i < count; ++i) src[i] = element<T>(me, i, op);
                CCS_ASSERT_OK(ccs_team_scan(t, src.data(), in.data(), count, type, op, nullptr));
                CCS_ASSERT_OK(ccs_team_exscan(t, src.data(), ex.data(), count, type, op, nullptr));
                for (size_t i = 0; i < count; ++i) {
                    ASSERT_TRUE(in[i] == fold<T>(op, i, 0, me)) << "scan type " << type << " op " << op;
                    ASSERT_TRUE(ex[i] == (me == 0 ? T(42) : fold<T>(op, i, 0, me - 1)))
                        << "exscan type " << type << " op " << op;
                }
            }
        };
        for_each_type(check);
    }
}

TEST(Collectives, BroadcastEverySizeAndRoot) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int n = team_size(t), me = team_rank(t);
        for (size_t length : {size_t{0}, size_t{1}, size_t{13}, size_t{48}, size_t{49}, size_t{4096}, size_t{8192},
                              size_t{8193}, size_t{100003}, size_t{262145}, size_t{1} << 20})
            for (int root = 0; root < n; ++root) {
                // Large ones in big teams from roots of every position in
                // the tree (first, second, middle, last): every root there
                // moves hundreds of megabytes and tests nothing more.
                if (n > 8 && length > 8193 && root > 1 && root != n / 2 && root != n - 1) continue;
                std::vector<uint8_t> buf(length);
                if (me == root) fill_pattern(buf, length, static_cast<uint64_t>(root));
                CCS_ASSERT_OK(ccs_team_broadcast(t, buf.data(), length, root, nullptr));
                ASSERT_TRUE(check_pattern(buf.data(), length, length, static_cast<uint64_t>(root)))
                    << "length " << length << " root " << root;
            }
    }
}

TEST(Collectives, GatherAndAllgather) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int n = team_size(t), me = team_rank(t);
        const size_t direct = 16 * 1024 / static_cast<size_t>(n);
        // Around the inline data, a slot and a chunk of node memory too.
        for (size_t length : {size_t{0}, size_t{5}, size_t{48}, size_t{49}, direct - 1, direct + 1, size_t{8192},
                              size_t{8193}, size_t{70001}, size_t{262145}, size_t{600000}}) {
            // Past two chunks a member in a big team only adds bytes to
            // check (the smaller teams cover it).
            if (n > 8 && length > 262145) continue;
            std::vector<uint8_t> mine(length), all(length * static_cast<size_t>(n));
            fill_pattern(mine, length, static_cast<uint64_t>(me));
            CCS_ASSERT_OK(ccs_team_allgather(t, mine.data(), length, all.data(), nullptr));
            for (int r = 0; r < n; ++r)
                ASSERT_TRUE(check_pattern(all.data() + static_cast<size_t>(r) * length, length, length,
                                          static_cast<uint64_t>(r)))
                    << "allgather length " << length << " block " << r;
            const int root = n - 1;
            std::vector<uint8_t> at_root(me == root ? all.size() : 0);
            CCS_ASSERT_OK(ccs_team_gather(t, mine.data(), length, me == root ? at_root.data() : nullptr, root, nullptr));
            if (me == root) {
                EXPECT_EQ(at_root, all) << "gather length " << length;
            }
        }
    }
}

TEST(Collectives, VariableSizes) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int n = team_size(t), me = team_rank(t);
        for (size_t scale : {size_t{1}, size_t{3000}, size_t{150000}}) {
            // Member i holds (i % 3) * scale + i bytes, placed with gaps and
            // in reverse order.
            std::vector<size_t> lengths(static_cast<size_t>(n)), offsets(static_cast<size_t>(n));
            size_t end = 0;
            for (int i = n - 1; i >= 0; --i) {
                lengths[static_cast<size_t>(i)] = static_cast<size_t>(i % 3) * scale + static_cast<size_t>(i);
                offsets[static_cast<size_t>(i)] = end + 7;
                end += 7 + lengths[static_cast<size_t>(i)];
            }
            std::vector<uint8_t> mine(lengths[static_cast<size_t>(me)]), all(end, 0xEE);
            fill_pattern(mine, scale, static_cast<uint64_t>(me));
            CCS_ASSERT_OK(ccs_team_allgatherv(t, mine.data(), mine.size(), all.data(), lengths.data(), offsets.data(),
                                              nullptr));
            for (int r = 0; r < n; ++r)
                ASSERT_TRUE(check_pattern(all.data() + offsets[static_cast<size_t>(r)], lengths[static_cast<size_t>(r)],
                                          scale, static_cast<uint64_t>(r)))
                    << "allgatherv block " << r;
            std::vector<bool> in_block(end, false);
            for (int r = 0; r < n; ++r)
                std::fill_n(in_block.begin() + static_cast<ptrdiff_t>(offsets[static_cast<size_t>(r)]),
                            lengths[static_cast<size_t>(r)], true);
            for (size_t i = 0; i < end; ++i) {
                if (!in_block[i]) {
                    ASSERT_EQ(all[i], 0xEE) << "a gap was written at " << i;
                }
            }
            std::vector<uint8_t> at_root(end, 0xEE);
            CCS_ASSERT_OK(ccs_team_gatherv(t, mine.data(), mine.size(), me == 0 ? at_root.data() : nullptr,
                                           me == 0 ? lengths.data() : nullptr, me == 0 ? offsets.data() : nullptr, 0,
                                           nullptr));
            if (me == 0) {
                EXPECT_EQ(at_root, all);
            }
        }
    }
}

TEST(Collectives, Alltoall) {
    test_teams teams;
    for (ccs_team_t t : teams.mine) {
        const int n = team_size(t), me = team_rank(t);
        // size * length around a slot (8 KiB) and a chunk (256 KiB) of node memory.
        const size_t slot = 8192 / static_cast<size_t>(n), chunk = 262144 / static_cast<size_t>(n);
        for (size_t length : {size_t{0}, size_t{8}, slot, slot + 1, size_t{10000}, chunk + 3, size_t{100000}}) {
            std::vector<uint8_t> src(length * static_cast<size_t>(n)), dst(src.size());
            for (int j = 0; j < n; ++j)
                fill_pattern(src.data() + static_cast<size_t>(j) * length, length, static_cast<uint64_t>(me),
                             static_cast<uint64_t>(j));
            CCS_ASSERT_OK(ccs_team_alltoall(t, src.data(), length, dst.data(), nullptr));
            for (int i = 0; i < n; ++i)
                ASSERT_TRUE(check_pattern(dst.data() + static_cast<size_t>(i) * length, length,
                                          static_cast<uint64_t>(i), static_cast<uint64_t>(me)))
                    << "block from " << i << ", length " << length;
        }
    }
}

TEST(Collectives, ManyInFlightOnSeveralTeamsAndContexts) {
    test_teams teams;
    scoped_context a("coll-a"), b("coll-b");
    ccs_team_t wa{}, wb{};
    CCS_ASSERT_OK(ccs_team_world(a, &wa));
    CCS_ASSERT_OK(ccs_team_world(b, &wb));
    std::vector<ccs_team_t> all = teams.mine;
    std::vector<uint64_t> tag;  // names a team the same on every member: its first member and size
    for (ccs_team_t t : all) {
        int first = -1;
        EXPECT_EQ(ccs_team_translate(t, 0, CCS_TEAM_WORLD, &first), CCS_OK);
        tag.push_back(static_cast<uint64_t>(first) * 64 + static_cast<uint64_t>(team_size(t)));
    }
    // The two contexts' teams started in opposite orders on neighbours.
    if (rank() % 2) {
        all.insert(all.end(), {wb, wa});
        tag.insert(tag.end(), {10001, 10000});
    } else {
        all.insert(all.end(), {wa, wb});
        tag.insert(tag.end(), {10000, 10001});
    }
    constexpr int per_team = 24;
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    struct slot {
        int64_t in, out;
        std::vector<uint8_t> data;
    };
    std::vector<std::vector<slot>> slots(all.size(), std::vector<slot>(per_team));
    uint64_t started = 0;
    for (int k = 0; k < per_team; ++k)
        for (size_t ti = 0; ti < all.size(); ++ti) {
            slot &s = slots[ti][static_cast<size_t>(k)];
            const int me = team_rank(all[ti]);
            if (k % 2 == 0) {
                s.in = me + k;
                CCS_ASSERT_OK(ccs_team_allreduce(all[ti], &s.in, &s.out, 1, CCS_ACC_INT64, CCS_ACC_SUM, &c));
            } else {
                s.data.assign(3000 + static_cast<size_t>(k), 0);
                if (me == k % team_size(all[ti])) fill_pattern(s.data, tag[ti], static_cast<uint64_t>(k));
                CCS_ASSERT_OK(ccs_team_broadcast(all[ti], s.data.data(), s.data.size(), k % team_size(all[ti]), &c));
            }
            ++started;
        }
    CCS_ASSERT_OK(ccs_counter_wait(&done, started));
    EXPECT_EQ(done.errors, 0u);
    for (size_t ti = 0; ti < all.size(); ++ti) {
        const int64_t n = team_size(all[ti]);
        for (int k = 0; k < per_team; ++k) {
            const slot &s = slots[ti][static_cast<size_t>(k)];
            if (k % 2 == 0) {
                EXPECT_EQ(s.out, n * (n - 1) / 2 + n * k) << "team " << ti << " op " << k;
            }
            else EXPECT_TRUE(check_pattern(s.data.data(), s.data.size(), tag[ti], static_cast<uint64_t>(k)));
        }
    }
}

// Which way collectives go follows from how this process reaches the
// others (ccs_peer_query), never from a plugin's name: a team on one node
// whose transports map each other's memory works through it, a team
// across nodes in two levels where every node's members map theirs, any
// other by messages.
TEST(Collectives, GoThroughNodeMemoryWhereTheTransportsMapIt) {
    if (size() < 2) GTEST_SKIP() << "one process has no one to reach";
    bool all_here = true, all_mapped = true;
    for (int peer = 0; peer < size(); ++peer) {
        if (peer == rank()) continue;
        const uint32_t f = peer_flags(peer);
        all_here = all_here && (f & CCS_PEER_SAME_NODE);
        if (f & CCS_PEER_SAME_NODE) all_mapped = all_mapped && (f & CCS_PEER_MAPS_MEMORY);
    }
    const char *expected = !all_mapped ? "coll.by_messages" : all_here ? "coll.in_node_memory" : "coll.two_levels";
    const uint64_t before = stat(expected), calls_before = stat("coll.in_the_call");
    int64_t one = 1, sum = 0;
    CCS_ASSERT_OK(ccs_team_barrier(CCS_TEAM_WORLD, nullptr));
    CCS_ASSERT_OK(ccs_team_allreduce(CCS_TEAM_WORLD, &one, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
    EXPECT_EQ(sum, size());
    // The rest too (on one node; in two levels they go by messages).
    // Reduce and gather through node memory only past a slot.
    const size_t large = 2 * 8192;
    std::vector<int64_t> all(static_cast<size_t>(size()) * large), mine(large, 1), reduced(large);
    CCS_ASSERT_OK(
        ccs_team_reduce(CCS_TEAM_WORLD, mine.data(), reduced.data(), large, CCS_ACC_INT64, CCS_ACC_SUM, 0, nullptr));
    CCS_ASSERT_OK(ccs_team_scan(CCS_TEAM_WORLD, &one, &sum, 1, CCS_ACC_INT64, CCS_ACC_SUM, nullptr));
    EXPECT_EQ(sum, rank() + 1);
    CCS_ASSERT_OK(ccs_team_gather(CCS_TEAM_WORLD, mine.data(), 8 * large, all.data(), 0, nullptr));
    CCS_ASSERT_OK(ccs_team_allgather(CCS_TEAM_WORLD, &one, 8, all.data(), nullptr));
    std::vector<int64_t> exchanged(all.size());
    CCS_ASSERT_OK(ccs_team_alltoall(CCS_TEAM_WORLD, all.data(), 8, exchanged.data(), nullptr));
    EXPECT_EQ(stat(expected), before + 7) << expected;
    // Small blocking ones of a team on one node run in the call.
    EXPECT_EQ(stat("coll.in_the_call"), calls_before + (all_here && all_mapped ? 2 : 0));
}

// Whether a large broadcast moves bytes straight between the buffers of
// the members on this node (all of a team on one node, or its part on this
// node in two levels) follows CCS_COLL_CROSS_MEMORY (the kernel
// permitting: no Yama ptrace restriction) and whether they fit the node's
// CPUs; the bytes arrive either way.
TEST(Collectives, MoveStraightBetweenBuffersAsCrossMemorySays) {
    if (size() < 2) GTEST_SKIP() << "one process has no one to reach";
    int here = 1;
    bool all_mapped = true;
    for (int peer = 0; peer < size(); ++peer)
        if (peer != rank() && (peer_flags(peer) & CCS_PEER_SAME_NODE)) {
            ++here;
            all_mapped = all_mapped && (peer_flags(peer) & CCS_PEER_MAPS_MEMORY);
        }
    const char *set = std::getenv("CCS_COLL_CROSS_MEMORY");
    const std::string use = set ? set : "auto";
    int yama = 0;
    if (FILE *f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "r")) {
        if (std::fscanf(f, "%d", &yama) != 1) yama = 0;
        std::fclose(f);
    }
    const bool fits = here <= sysconf(_SC_NPROCESSORS_ONLN);
    const bool straight = here > 1 && all_mapped && yama == 0 && (use == "always" || (use == "auto" && fits));
    const uint64_t before = stat("coll.cross_memory");
    const size_t large = 3 * 8192 + 5;  // past a slot, pieces off cache lines
    std::vector<uint8_t> data(large);
    for (int root = 0; root < size(); ++root) {
        fill_pattern(data, 7, static_cast<uint64_t>(root));
        if (rank() != root) std::fill(data.begin(), data.end(), 0);
        CCS_ASSERT_OK(ccs_team_broadcast(CCS_TEAM_WORLD, data.data(), large, root, nullptr));
        EXPECT_TRUE(check_pattern(data.data(), large, 7, static_cast<uint64_t>(root))) << "root " << root;
    }
    EXPECT_EQ(stat("coll.cross_memory"), before + (straight ? static_cast<uint64_t>(size()) : 0)) << use;
}
