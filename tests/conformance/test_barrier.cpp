#include "harness.hpp"

#include <chrono>
#include <thread>
#include <time.h>

using namespace conformance;

namespace {

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for all processes of a host
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

struct arrivals {
    std::vector<uint64_t> at;
    int count = 0;
};

void on_arrival(const ccs_am_message_t *m, void *arg) {
    auto *a = static_cast<arrivals *>(arg);
    a->at[static_cast<size_t>(m->source)] = m->args[0];
    ++a->count;
}

}  // namespace

TEST(Barrier, NobodyLeavesBeforeEveryoneArrived) {
    for (int round = 0; round < 4; ++round) {
        arrivals a;
        a.at.assign(static_cast<size_t>(size()), 0);
        scoped_context ctx("barrier-check", {{1, on_arrival, &a}});
        // A different straggler each round.
        if (rank() == round % size()) std::this_thread::sleep_for(std::chrono::milliseconds(30));
        const uint64_t arrived = now_ns();
        CCS_ASSERT_OK(ccs_barrier());
        const uint64_t left = now_ns();
        for (int t = 0; t < size(); ++t) CCS_EXPECT_OK(ccs_am_send(ctx, t, 1, &arrived, 1, nullptr, 0, nullptr));
        EXPECT_TRUE(progress_until([&] { return a.count >= size(); }));
        for (int r = 0; r < size(); ++r)
            EXPECT_LE(a.at[static_cast<size_t>(r)], left) << "rank " << r << " arrived after rank " << rank() << " left";
        CCS_EXPECT_OK(ccs_barrier());
    }
}

TEST(Barrier, ManyInARow) {
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(ccs_barrier(), CCS_OK);
}
