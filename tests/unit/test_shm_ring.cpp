// The shm ring between two threads over ordinary memory: every record
// arrives once, in order, intact, across many wrap-arounds and with the
// producer often finding the ring full.
#include "shm_ring.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using namespace ccs::shm;

namespace {

struct ring_memory {
    explicit ring_memory(size_t bytes) : capacity(bytes), raw(new uint8_t[sizeof(ring_control) + bytes]()) {
        control = new (raw.get()) ring_control{};
        data = raw.get() + sizeof(ring_control);
    }
    size_t capacity;
    std::unique_ptr<uint8_t[]> raw;
    ring_control *control;
    uint8_t *data;
};

uint8_t pattern(uint32_t seq, size_t i) { return static_cast<uint8_t>(seq * 31 + i * 7); }

}  // namespace

TEST(ShmRing, FullRingRefusesAndKeepsContents) {
    ring_memory m(16 * 1024);
    ring_producer p(m.control, m.data, m.capacity);
    ring_consumer c(m.control, m.data, m.capacity);
    std::vector<uint8_t> rec(1000, 0xAB);
    const ring_piece piece{rec.data(), rec.size()};
    int pushed = 0;
    while (p.push(&piece, 1, rec.size())) ++pushed;
    EXPECT_GT(pushed, 10);
    EXPECT_LT(pushed, 17);
    int seen = 0;
    c.poll([&](const uint8_t *d, size_t n) {
        EXPECT_EQ(n, rec.size());
        EXPECT_EQ(d[0], 0xAB);
        ++seen;
    }, 1000);
    EXPECT_EQ(seen, pushed);
    c.poll([](const uint8_t *, size_t) {}, 1);  // idle poll releases the space
    EXPECT_TRUE(p.push(&piece, 1, rec.size()));
}

TEST(ShmRing, TwoThreadsManyWrapsEveryRecordInOrder) {
    ring_memory m(16 * 1024);
    constexpr uint32_t count = 200000;
    std::thread producer([&] {
        ring_producer p(m.control, m.data, m.capacity);
        std::mt19937 rng(1);
        std::vector<uint8_t> buf(ring_max_record(m.capacity));
        for (uint32_t seq = 0; seq < count; ++seq) {
            const size_t n = sizeof seq + rng() % (rng() % 8 == 0 ? buf.size() - sizeof seq : 64);
            std::memcpy(buf.data(), &seq, sizeof seq);
            for (size_t i = sizeof seq; i < n; ++i) buf[i] = pattern(seq, i);
            // Two pieces, as the core sends header and payload.
            const ring_piece pieces[2] = {{buf.data(), 2}, {buf.data() + 2, n - 2}};
            while (!p.push(pieces, 2, n)) std::this_thread::yield();
        }
    });
    ring_consumer c(m.control, m.data, m.capacity);
    uint32_t expected = 0;
    bool intact = true;
    while (expected < count) {
        const int got = c.poll([&](const uint8_t *d, size_t n) {
            uint32_t seq;
            std::memcpy(&seq, d, sizeof seq);
            if (seq != expected) intact = false;
            for (size_t i = sizeof seq; i < n; ++i)
                if (d[i] != pattern(seq, i)) intact = false;
            ++expected;
        }, 64);
        if (!got) std::this_thread::yield();
    }
    producer.join();
    EXPECT_TRUE(intact);
    EXPECT_TRUE(c.empty());
}

// Retiring an idle ring: only once drained; the consumer reads nothing
// after the marker until told of a new record; after its acknowledgement
// the memory may be zeroed (released) and the ring starts over.
TEST(ShmRing, RetireHandshakeThenStartOver) {
    ring_memory m(16 * 1024);
    ring_producer p(m.control, m.data, m.capacity);
    ring_consumer c(m.control, m.data, m.capacity);
    auto push = [&](uint64_t value) {
        const ring_piece piece{&value, sizeof value};
        return p.push(&piece, 1, sizeof value);
    };
    std::vector<uint64_t> got;
    auto poll = [&] {
        return c.poll([&](const uint8_t *d, size_t) { got.push_back(*reinterpret_cast<const uint64_t *>(d)); }, 64);
    };
    // Many laps first, so the marker lands anywhere but the start.
    for (uint64_t i = 0; i < 1000; ++i) {
        ASSERT_TRUE(push(i));
        ASSERT_EQ(poll(), 1);
    }
    ASSERT_TRUE(push(1000));
    EXPECT_FALSE(p.drained());  // not taken yet
    EXPECT_EQ(poll(), 1);
    EXPECT_EQ(poll(), 0);  // an idle poll releases what was read
    EXPECT_TRUE(p.drained());
    ASSERT_TRUE(p.retire());
    EXPECT_FALSE(p.retired());
    EXPECT_EQ(poll(), 0);
    ASSERT_TRUE(c.must_acknowledge());
    c.acknowledge_retire();
    EXPECT_FALSE(c.must_acknowledge());
    EXPECT_TRUE(p.retired());
    // A bell rung for the marker after it was read, before the producer
    // started over: the old records are still there, and stay unread.
    EXPECT_FALSE(c.unpark());
    EXPECT_EQ(poll(), 0);
    EXPECT_EQ(got.size(), 1001u);
    // Released: what the consumer would find is gone. Parked, it reads none of it.
    std::memset(m.raw.get(), 0xff, sizeof(ring_control) + m.capacity);
    EXPECT_EQ(poll(), 0);
    // Reserved anew (zero again) and restarted.
    std::memset(m.raw.get(), 0, sizeof(ring_control) + m.capacity);
    p.restart();
    ASSERT_TRUE(push(7));
    ASSERT_TRUE(push(8));
    EXPECT_TRUE(c.unpark());
    EXPECT_EQ(poll(), 2);
    EXPECT_EQ(std::vector<uint64_t>(got.end() - 2, got.end()), (std::vector<uint64_t>{7, 8}));
    EXPECT_EQ(got.size(), 1003u);
}
