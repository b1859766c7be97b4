// The message algorithms of collectives (ccs/core/coll/algorithms_*.cpp)
// run for every team size from 1 to 17 in one process: every member's
// schedule, messages handed over in memory, results checked against a
// sequential model. Team sizes the conformance suite cannot afford as
// processes, and every root.
#include "core/coll/algorithms.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <vector>

using namespace ccs;
using namespace ccs::coll;

namespace {

team_view member(int rank, int n) {
    std::vector<int> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    team_view t;
    t.members = std::make_shared<const std::vector<int>>(std::move(all));
    t.rank = rank;
    return t;
}

// Runs every member's schedule until all ended; false if they stall (a
// receive nobody sends) or a message's size is not what its receiver
// expects.
bool run_all(std::vector<schedule> &members) {
    const size_t n = members.size();
    std::map<std::tuple<int, int, uint32_t>, std::vector<uint8_t>> in_flight;  // (to, from, tag)
    std::vector<size_t> round(n, 0);
    std::vector<bool> started(n, false);
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t m = 0; m < n; ++m) {
            schedule &s = members[m];
            while (round[m] < s.rounds.size()) {
                schedule::round &r = s.rounds[round[m]];
                if (!started[m]) {
                    for (const auto &send : r.sends) {
                        auto &slot = in_flight[{send.peer, static_cast<int>(m), r.tag}];
                        EXPECT_TRUE(slot.empty()) << "two messages with one tag";
                        slot.assign(send.data, send.data + send.length);
                        if (send.length == 0) slot.push_back(0xAA);  // a marker: empty messages count too
                    }
                    started[m] = true;
                }
                bool all = true;
                for (const auto &rc : r.receives)
                    all = all && in_flight.count({static_cast<int>(m), rc.peer, r.tag});
                if (!all) break;
                for (const auto &rc : r.receives) {
                    auto it = in_flight.find({static_cast<int>(m), rc.peer, r.tag});
                    const size_t got = it->second.size() == 1 && rc.length == 0 ? 0 : it->second.size();
                    if (got != rc.length) return false;
                    if (rc.length) std::memcpy(rc.into, it->second.data(), rc.length);
                    in_flight.erase(it);
                }
                if (r.step) r.step();
                ++round[m];
                started[m] = false;
                moved = true;
            }
        }
    }
    for (size_t m = 0; m < n; ++m)
        if (round[m] != members[m].rounds.size()) return false;
    return in_flight.empty();
}

constexpr int max_members = 17;

}  // namespace

TEST(CollAlgorithms, LargeAllreduceGoesAroundTheRing) {
    const reduction sum = make_reduction(CCS_ACC_SUM, CCS_ACC_INT64);
    const reduction min = make_reduction(CCS_ACC_MIN, CCS_ACC_DOUBLE);
    constexpr size_t count = ring_allreduce_min / 8 + 13;  // blocks of unequal sizes
    for (int n = 1; n <= max_members; ++n) {
        std::vector<std::vector<int64_t>> src(static_cast<size_t>(n)), dst(static_cast<size_t>(n));
        std::vector<std::vector<double>> zeros(static_cast<size_t>(n)), lowest(static_cast<size_t>(n));
        std::vector<schedule> all, all_min;
        for (int m = 0; m < n; ++m) {
            const auto mm = static_cast<size_t>(m);
            for (size_t i = 0; i < count; ++i) src[mm].push_back(static_cast<int64_t>(i) * (m + 1));
            dst[mm].assign(count, -1);
            zeros[mm].assign(count, m % 2 ? -0.0 : 0.0);
            lowest[mm].assign(count, 1.0);
            all.push_back(build_allreduce(member(m, n), 0, reinterpret_cast<uint8_t *>(src[mm].data()),
                                          reinterpret_cast<uint8_t *>(dst[mm].data()), count, sum));
            all_min.push_back(build_allreduce(member(m, n), 0, reinterpret_cast<uint8_t *>(zeros[mm].data()),
                                              reinterpret_cast<uint8_t *>(lowest[mm].data()), count, min));
        }
        ASSERT_TRUE(run_all(all)) << n;
        ASSERT_TRUE(run_all(all_min)) << n;
        const int64_t factor = static_cast<int64_t>(n) * (n + 1) / 2;
        for (int m = 0; m < n; ++m) {
            const auto mm = static_cast<size_t>(m);
            size_t wrong = 0;
            for (size_t i = 0; i < count; ++i) wrong += dst[mm][i] != static_cast<int64_t>(i) * factor;
            EXPECT_EQ(wrong, 0u) << n << " members, member " << m;
            // Each block combined once: the same bits everywhere.
            EXPECT_EQ(std::memcmp(lowest[0].data(), lowest[mm].data(), count * sizeof(double)), 0) << n;
        }
    }
}

TEST(CollAlgorithms, AllreduceReduceAndScanMatchTheModel) {
    const reduction sum = make_reduction(CCS_ACC_SUM, CCS_ACC_INT64);
    constexpr size_t count = 5;
    for (int n = 1; n <= max_members; ++n) {
        std::vector<std::vector<int64_t>> src(static_cast<size_t>(n)), dst = src, scan = src, exscan = src;
        for (int m = 0; m < n; ++m) {
            for (size_t i = 0; i < count; ++i) src[static_cast<size_t>(m)].push_back((m + 1) * 100 + static_cast<int64_t>(i));
            dst[static_cast<size_t>(m)].assign(count, 0);
            scan[static_cast<size_t>(m)].assign(count, 0);
            exscan[static_cast<size_t>(m)].assign(count, -7);
        }
        auto bytes = [](std::vector<int64_t> &v) { return reinterpret_cast<uint8_t *>(v.data()); };
        std::vector<schedule> all, scans, exscans;
        for (int m = 0; m < n; ++m) {
            const auto mm = static_cast<size_t>(m);
            all.push_back(build_allreduce(member(m, n), 0, bytes(src[mm]), bytes(dst[mm]), count, sum));
            scans.push_back(build_scan(member(m, n), 0, bytes(src[mm]), bytes(scan[mm]), count, sum, false));
            exscans.push_back(build_scan(member(m, n), 0, bytes(src[mm]), bytes(exscan[mm]), count, sum, true));
        }
        ASSERT_TRUE(run_all(all)) << n;
        ASSERT_TRUE(run_all(scans)) << n;
        ASSERT_TRUE(run_all(exscans)) << n;
        for (size_t i = 0; i < count; ++i) {
            int64_t total = 0;
            for (int m = 0; m < n; ++m) {
                const auto mm = static_cast<size_t>(m);
                EXPECT_EQ(exscan[mm][i], m == 0 ? -7 : total) << "exscan, " << n << " members, member " << m;
                total += src[mm][i];
                EXPECT_EQ(scan[mm][i], total) << "scan, " << n << " members, member " << m;
            }
            for (int m = 0; m < n; ++m) EXPECT_EQ(dst[static_cast<size_t>(m)][i], total) << n << " members";
        }
        for (int root = 0; root < n; ++root) {
            std::vector<int64_t> out(count, 0);
            std::vector<schedule> reduce;
            for (int m = 0; m < n; ++m)
                reduce.push_back(build_reduce(member(m, n), 0, bytes(src[static_cast<size_t>(m)]),
                                              m == root ? bytes(out) : nullptr, count, sum, root));
            ASSERT_TRUE(run_all(reduce)) << n << " members, root " << root;
            EXPECT_EQ(out[0], dst[0][0]) << n << " members, root " << root;
        }
    }
}

TEST(CollAlgorithms, DataMovementForEverySizeAndRoot) {
    for (int n = 1; n <= max_members; ++n) {
        const auto nn = static_cast<size_t>(n);
        // Barrier.
        std::vector<schedule> barrier;
        for (int m = 0; m < n; ++m) barrier.push_back(build_barrier(member(m, n), 0));
        ASSERT_TRUE(run_all(barrier)) << n;
        // Broadcast from every root, down the tree and along the chain (in
        // segments, the last one short).
        for (size_t length : {size_t{33}, chain_broadcast_min + broadcast_segment / 3})
            for (int root = 0; root < n; ++root) {
                std::vector<std::vector<uint8_t>> buf(nn, std::vector<uint8_t>(length, 0));
                for (size_t i = 0; i < length; ++i) buf[static_cast<size_t>(root)][i] = static_cast<uint8_t>(i * 7 + root);
                std::vector<schedule> b;
                for (int m = 0; m < n; ++m)
                    b.push_back(build_broadcast(member(m, n), 0, buf[static_cast<size_t>(m)].data(), length, root));
                ASSERT_TRUE(run_all(b)) << n << " members, root " << root;
                for (int m = 0; m < n; ++m) EXPECT_EQ(buf[static_cast<size_t>(m)], buf[static_cast<size_t>(root)]);
            }
        // Allgather by direct sends and around the ring, gather, alltoall.
        for (size_t length : {size_t{3}, allgather_direct_max / nn + 1}) {
            std::vector<std::vector<uint8_t>> mine(nn), all(nn, std::vector<uint8_t>(length * nn, 0));
            for (int m = 0; m < n; ++m) mine[static_cast<size_t>(m)].assign(length, static_cast<uint8_t>(m * 7 + 1));
            std::vector<schedule> ag, g, a2a;
            std::vector<uint8_t> at_root(length * nn, 0);
            std::vector<std::vector<uint8_t>> a2a_in(nn, std::vector<uint8_t>(length * nn)), a2a_out = a2a_in;
            for (int m = 0; m < n; ++m) {
                const auto mm = static_cast<size_t>(m);
                for (size_t j = 0; j < nn; ++j) std::memset(a2a_in[mm].data() + j * length, static_cast<int>(m * 16 + j), length);
                ag.push_back(build_allgather(member(m, n), 0, mine[mm].data(), length, all[mm].data(), blocks::uniform(n, length)));
                g.push_back(build_gather(member(m, n), 0, mine[mm].data(), length, m == n - 1 ? at_root.data() : nullptr,
                                         blocks::uniform(n, length), true, n - 1));
                a2a.push_back(build_alltoall(member(m, n), 0, a2a_in[mm].data(), length, a2a_out[mm].data()));
            }
            ASSERT_TRUE(run_all(ag)) << n;
            ASSERT_TRUE(run_all(g)) << n;
            ASSERT_TRUE(run_all(a2a)) << n;
            for (int m = 0; m < n; ++m) {
                const auto mm = static_cast<size_t>(m);
                for (size_t j = 0; j < nn; ++j) {
                    EXPECT_EQ(all[mm][j * length], static_cast<uint8_t>(j * 7 + 1)) << n << " members, length " << length;
                    EXPECT_EQ(a2a_out[mm][j * length], static_cast<uint8_t>(j * 16 + mm)) << n << " members";
                }
            }
            EXPECT_EQ(at_root, all[0]);
        }
    }
}

TEST(CollAlgorithms, AllreduceCombinesInOneOrderEverywhere) {
    // Doubles whose sum depends on the order: every member's bits agree.
    const reduction sum = make_reduction(CCS_ACC_SUM, CCS_ACC_DOUBLE);
    for (int n = 2; n <= max_members; ++n) {
        std::vector<double> src(static_cast<size_t>(n)), dst(static_cast<size_t>(n));
        for (int m = 0; m < n; ++m) src[static_cast<size_t>(m)] = (m % 2 ? 1e16 : 1.0) + m * 0.1;
        std::vector<schedule> all;
        for (int m = 0; m < n; ++m)
            all.push_back(build_allreduce(member(m, n), 0, reinterpret_cast<uint8_t *>(&src[static_cast<size_t>(m)]),
                                          reinterpret_cast<uint8_t *>(&dst[static_cast<size_t>(m)]), 1, sum));
        ASSERT_TRUE(run_all(all));
        for (int m = 1; m < n; ++m) EXPECT_EQ(std::memcmp(&dst[0], &dst[static_cast<size_t>(m)], 8), 0) << n;
        // MIN of +0 and -0 is whichever comes first: the same everywhere only
        // if every member puts the same side first.
        const reduction min = make_reduction(CCS_ACC_MIN, CCS_ACC_DOUBLE);
        for (int m = 0; m < n; ++m) src[static_cast<size_t>(m)] = m % 2 ? -0.0 : 0.0;
        all.clear();
        for (int m = 0; m < n; ++m)
            all.push_back(build_allreduce(member(m, n), 0, reinterpret_cast<uint8_t *>(&src[static_cast<size_t>(m)]),
                                          reinterpret_cast<uint8_t *>(&dst[static_cast<size_t>(m)]), 1, min));
        ASSERT_TRUE(run_all(all));
        for (int m = 1; m < n; ++m) EXPECT_EQ(std::memcmp(&dst[0], &dst[static_cast<size_t>(m)], 8), 0) << "min, " << n;
    }
}
