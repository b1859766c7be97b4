// Puts and gets in flight beside the API lock: each thread notes its own,
// any thread finishes them by token, once; fences count them by context
// and target; a peer's failure finds those aimed at it.
#include "core/rma/beside_operations.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using ccs::beside_operations;

// Contexts of their own per test: the tables are the process's.
constexpr uint16_t ctx_a = 9001, ctx_b = 9002;

TEST(BesideOperations, StartedIsInFlightCountedAndFinishedOnce) {
    ccs_counter_t counter{};
    uint64_t token = 0;
    ASSERT_NE(beside_operations::start(ctx_a, beside_operations::kind::put, 3, &counter, token), nullptr);
    EXPECT_TRUE(beside_operations::owns(token));
    EXPECT_TRUE(beside_operations::in_flight(token));
    EXPECT_TRUE(beside_operations::any());
    EXPECT_EQ(beside_operations::count(ctx_a, 3), 1u);
    EXPECT_EQ(beside_operations::count(ctx_a, -1), 1u);
    EXPECT_EQ(beside_operations::count(ctx_a, 4), 0u);
    EXPECT_EQ(beside_operations::count(ctx_b, -1), 0u);
    beside_operations::finished f;
    ASSERT_TRUE(beside_operations::finish(token, &f));
    EXPECT_EQ(f.ctx, ctx_a);
    EXPECT_EQ(f.what, beside_operations::kind::put);
    EXPECT_EQ(f.target, 3);
    EXPECT_EQ(f.counter, &counter);
    // A second report of the same operation (the transport's, after a
    // failure finished it) finds nothing.
    EXPECT_FALSE(beside_operations::finish(token));
    EXPECT_FALSE(beside_operations::in_flight(token));
    EXPECT_EQ(beside_operations::count(ctx_a, -1), 0u);
}

TEST(BesideOperations, ARecordUsedAgainHasANewTokenTheOldOneDoesNotFinish) {
    uint64_t first = 0, second = 0;
    // Every record of the table once, so the next start reuses a record.
    for (int i = 0; i < 300; ++i) {
        ASSERT_NE(beside_operations::start(ctx_a, beside_operations::kind::get, 1, nullptr, first), nullptr);
        ASSERT_TRUE(beside_operations::finish(first));
    }
    ASSERT_NE(beside_operations::start(ctx_a, beside_operations::kind::atomic, 1, nullptr, second), nullptr);
    EXPECT_NE(first, second);
    EXPECT_FALSE(beside_operations::finish(first));
    EXPECT_TRUE(beside_operations::in_flight(second));
    EXPECT_TRUE(beside_operations::finish(second));
}

TEST(BesideOperations, TokensThatNameNoRecordFinishNothing) {
    EXPECT_FALSE(beside_operations::owns(12345));
    EXPECT_FALSE(beside_operations::finish(12345));
    EXPECT_FALSE(beside_operations::finish(beside_operations::token_bit | 0xffffu));  // no such record
    EXPECT_FALSE(beside_operations::finish(beside_operations::token_bit | (uint64_t{4000} << 16)));  // no such table
    EXPECT_FALSE(beside_operations::in_flight(beside_operations::token_bit | (uint64_t{4000} << 16)));
}

TEST(BesideOperations, AFullTableSendsTheCallerToTheLockedPath) {
    std::vector<uint64_t> tokens;
    uint64_t token = 0;
    while (beside_operations::start(ctx_b, beside_operations::kind::put, 2, nullptr, token)) {
        tokens.push_back(token);
        ASSERT_LT(tokens.size(), 100000u);
    }
    EXPECT_GT(tokens.size(), 0u);
    EXPECT_EQ(beside_operations::count(ctx_b, 2), tokens.size());
    const std::vector<uint64_t> to_two = beside_operations::to(2);
    for (uint64_t t : tokens) EXPECT_NE(std::find(to_two.begin(), to_two.end(), t), to_two.end());
    for (uint64_t t : tokens) EXPECT_TRUE(beside_operations::finish(t));
    EXPECT_NE(beside_operations::start(ctx_b, beside_operations::kind::put, 2, nullptr, token), nullptr);  // room again
    EXPECT_TRUE(beside_operations::finish(token));
}

// Threads start operations while another finishes them as a transport's
// progress would, and a "failure" finishes those to one target: every
// operation is finished exactly once, and none is left in flight.
TEST(BesideOperations, ThreadsStartWhileOthersFinishEachExactlyOnce) {
    constexpr int threads = 4, each = 5000;
    std::mutex lock;
    std::vector<uint64_t> started;
    std::atomic<int> running{threads}, finished{0}, started_count{0};
    std::vector<std::thread> starters;
    for (int t = 0; t < threads; ++t)
        starters.emplace_back([&, t] {
            for (int i = 0; i < each; ++i) {
                uint64_t token = 0;
                if (!beside_operations::start(ctx_a, (i & 1) != 0 ? beside_operations::kind::put : beside_operations::kind::get, t,
                                              nullptr, token)) {
                    std::this_thread::yield();  // table full: the finisher catches up
                    --i;
                    continue;
                }
                ++started_count;
                // Every eighth finishes in the call, as a transport may.
                if (i % 8 == 0) {
                    if (beside_operations::finish(token)) ++finished;
                    continue;
                }
                const std::lock_guard<std::mutex> hold(lock);
                started.push_back(token);
            }
            --running;
        });
    std::thread finisher([&] {
        while (running.load() > 0 || beside_operations::any()) {
            std::vector<uint64_t> batch;
            {
                const std::lock_guard<std::mutex> hold(lock);
                batch.swap(started);
            }
            // A failure of target 0's process finishes its own first.
            for (uint64_t t : beside_operations::to(0))
                if (beside_operations::finish(t)) ++finished;
            for (uint64_t t : batch)
                if (beside_operations::finish(t)) ++finished;
            std::this_thread::yield();
        }
    });
    for (auto &t : starters) t.join();
    finisher.join();
    EXPECT_EQ(started_count.load(), threads * each);
    EXPECT_EQ(finished.load(), threads * each);
    EXPECT_FALSE(beside_operations::any());
    EXPECT_EQ(beside_operations::count(ctx_a, -1), 0u);
}

}  // namespace
