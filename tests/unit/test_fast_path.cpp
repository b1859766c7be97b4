// Fast sections beside the API lock: off, nobody enters; on, a writer
// keeps new sections out and waits for the one inside to end; counts of
// every thread add up, threads that ended included; a peer's send lock is
// recursive for the locked path and only tried by fast calls.
#include "util/fast_path.hpp"
#include "util/send_lock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace ccs;

namespace {
struct enabled_for_test {
    enabled_for_test() { fast_path::set_enabled(true); }
    ~enabled_for_test() { fast_path::set_enabled(false); }
};
}  // namespace

TEST(FastPath, OffNobodyEntersAndExclusiveCostsNothing) {
    fast_path::set_enabled(false);
    const fast_path::section s;
    EXPECT_FALSE(s.entered());
    const fast_path::exclusive alone;
    EXPECT_FALSE(fast_path::section::writer_waiting());
}

TEST(FastPath, AWriterKeepsSectionsOutAndWaitsForTheOneInside) {
    const enabled_for_test on;
    std::atomic<bool> inside{false}, leave{false}, writer_in{false};
    std::thread reader([&] {
        const fast_path::section s;
        EXPECT_TRUE(s.entered());
        inside.store(true);
        while (!leave.load()) std::this_thread::yield();
    });
    while (!inside.load()) std::this_thread::yield();
    std::thread writer([&] {
        const fast_path::exclusive alone;
        writer_in.store(true);
        // While it is at work, no section is entered, nested writers pass.
        const fast_path::section s;
        EXPECT_FALSE(s.entered());
        const fast_path::exclusive nested;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(writer_in.load()) << "the writer went in beside a section";
    EXPECT_TRUE(fast_path::section::writer_waiting());
    leave.store(true);
    reader.join();
    writer.join();
    EXPECT_TRUE(writer_in.load());
    EXPECT_FALSE(fast_path::section::writer_waiting());
    const fast_path::section after;
    EXPECT_TRUE(after.entered());
}

TEST(FastPath, CountsOfEveryThreadAddUp) {
    const enabled_for_test on;
    const fast_path::totals before = fast_path::sum();
    auto work = [] {
        const fast_path::section s;
        ASSERT_TRUE(s.entered());
        for (int i = 0; i < 1000; ++i) fast_path::bump(s.counts().puts);
        fast_path::bump(s.counts().bytes, 4096);
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    std::thread c(work);  // may take a slot a thread that ended gave back
    c.join();
    const fast_path::totals after = fast_path::sum();
    EXPECT_EQ(after.puts - before.puts, 3000u);
    EXPECT_EQ(after.bytes - before.bytes, 3u * 4096);
}

TEST(FastPath, SendLockIsRecursiveForTheLockedPathAndOnlyTriedByFastCalls) {
    const enabled_for_test on;
    send_lock l;
    {
        const send_lock::hold outer(l, true);
        const send_lock::hold inner(l, true);  // an error handler that sends again
        bool got = true;
        std::thread fast([&] { got = l.try_take_fast(); });
        fast.join();
        EXPECT_FALSE(got) << "a fast call took a lock the locked path holds";
    }
    ASSERT_TRUE(l.try_take_fast());
    l.give_fast();
}
