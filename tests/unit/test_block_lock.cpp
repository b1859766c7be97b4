// The accumulate lock node peers share (core/rma/block_lock.hpp): mutual
// exclusion between processes, and a holder that dies does not hang the
// rest. Real processes (fork) on a shared anonymous page.
#include "core/rma/block_lock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct shared_page {
    void *p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ~shared_page() { ::munmap(p, 4096); }
    ccs::generation_word *lock() const { return static_cast<ccs::generation_word *>(p); }
    uint64_t *counter() const { return static_cast<uint64_t *>(p) + 8; }  // another line
};

}  // namespace

TEST(BlockLock, ProcessesTakeTurnsAndNoIncrementIsLost) {
    shared_page page;
    ASSERT_NE(page.p, MAP_FAILED);
    constexpr int children = 3, rounds = 20000;
    pid_t pids[children];
    for (pid_t &pid : pids) {
        pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            for (int i = 0; i < rounds; ++i) {
                const ccs::block_lock_guard hold(page.lock());
                volatile uint64_t *c = page.counter();  // a plain read-modify-write: only the lock protects it
                *c = *c + 1;
            }
            ::_exit(0);
        }
    }
    for (pid_t pid : pids) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(*page.counter(), static_cast<uint64_t>(children) * rounds);
    EXPECT_EQ(page.lock()->load(), 0u);
}

TEST(BlockLock, AHolderThatDiedIsTakenOverInBoundedTime) {
    shared_page page;
    ASSERT_NE(page.p, MAP_FAILED);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        new ccs::block_lock_guard(page.lock());  // never released: the process dies holding it
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_EQ(page.lock()->load(), static_cast<uint64_t>(pid));
    const auto start = std::chrono::steady_clock::now();
    {
        const ccs::block_lock_guard hold(page.lock());
        EXPECT_EQ(page.lock()->load(), static_cast<uint64_t>(::getpid()));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    EXPECT_EQ(page.lock()->load(), 0u);
}
