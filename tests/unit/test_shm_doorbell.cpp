// The shm doorbell: every sender that rang is named once per look, with one
// group word or with a summary over many; nothing rung is ever missed,
// even while senders ring during the look.
#include "shm_doorbell.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace ccs::shm;

namespace {

struct bell_memory {
    explicit bell_memory(uint32_t senders) : words(doorbell_bytes(senders) / 8 + 8), bell(aligned(), senders) {}
    uint64_t *aligned() {
        auto at = reinterpret_cast<uintptr_t>(words.data());
        return reinterpret_cast<uint64_t *>((at + 63) & ~uintptr_t{63});
    }
    std::vector<uint64_t> words;
    doorbell bell;
};

std::set<uint32_t> take_all(doorbell &bell) {
    std::set<uint32_t> got;
    bell.take([&](uint32_t sender) { EXPECT_TRUE(got.insert(sender).second) << sender; });
    return got;
}

}  // namespace

TEST(ShmDoorbell, NamesEachSenderThatRangOnce) {
    for (uint32_t senders : {2u, 63u, 64u, 65u, 200u, doorbell_max_senders}) {
        bell_memory m(senders);
        EXPECT_TRUE(take_all(m.bell).empty());
        const std::set<uint32_t> rang{0, senders / 2, senders - 1};
        for (uint32_t s : rang) {
            m.bell.ring(s);
            m.bell.ring(s);
        }
        EXPECT_EQ(take_all(m.bell), rang) << senders << " senders";
        EXPECT_TRUE(take_all(m.bell).empty()) << senders << " senders";
    }
}

TEST(ShmDoorbell, FitsItsSize) {
    EXPECT_EQ(doorbell_bytes(64), 128u);
    EXPECT_EQ(doorbell_bytes(65), 128u);
    EXPECT_EQ(doorbell_bytes(doorbell_max_senders), 64u + 512u);
}

// Senders keep ringing while the receiver looks: each sender's count of
// rings never runs ahead of what the receiver has seen by more than one
// look, and at the end every sender has been seen after its last ring.
TEST(ShmDoorbell, NoRingIsLostWhileTheReceiverLooks) {
    constexpr uint32_t senders = 130;  // three groups, so the summary counts
    constexpr int rings_each = 2000;
    bell_memory m(senders);
    std::vector<std::atomic<int>> rung(senders);
    std::vector<int> seen_after(senders, 0);  // rings counted before the last take naming it
    std::atomic<bool> go{false};
    std::atomic<int> finished{0};
    int looks_meanwhile = 0;
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            while (!go.load()) {}
            for (int i = 0; i < rings_each; ++i)
                for (uint32_t s = t; s < senders; s += 2) {
                    rung[s].fetch_add(1, std::memory_order_relaxed);
                    m.bell.ring(s);
                }
            finished.fetch_add(1);
        });
    go = true;
    auto look = [&] {
        m.bell.take([&](uint32_t s) { seen_after[s] = rung[s].load(std::memory_order_relaxed); });
    };
    while (finished.load() < 2) {
        look();
        ++looks_meanwhile;
    }
    for (auto &t : threads) t.join();
    look();
    for (uint32_t s = 0; s < senders; ++s) EXPECT_EQ(seen_after[s], rings_each) << "sender " << s;
    EXPECT_GT(looks_meanwhile, 0);
}
