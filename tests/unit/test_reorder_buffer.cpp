#include "core/am/reorder_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using ccs::reorder_buffer;
using verdict = reorder_buffer<int>::verdict;

TEST(ReorderBuffer, InOrderMessagesPassStraightThrough) {
    reorder_buffer<int> rb;
    for (uint32_t s = 0; s < 5; ++s) EXPECT_EQ(rb.classify(s), verdict::deliver);
    EXPECT_EQ(rb.held(), 0u);
    EXPECT_EQ(rb.expected(), 5u);
}

TEST(ReorderBuffer, AnyPermutationComesOutInOrder) {
    std::mt19937 rng(7);
    for (int round = 0; round < 50; ++round) {
        std::vector<uint32_t> seqs(200);
        for (uint32_t i = 0; i < seqs.size(); ++i) seqs[i] = i;
        std::shuffle(seqs.begin(), seqs.end(), rng);
        reorder_buffer<int> rb;
        std::vector<int> out;
        for (uint32_t s : seqs) {
            if (rb.classify(s) == verdict::deliver) {
                out.push_back(static_cast<int>(s));
                while (auto m = rb.next()) out.push_back(*m);
            } else {
                rb.hold(s, static_cast<int>(s));
            }
        }
        ASSERT_EQ(out.size(), seqs.size());
        for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<int>(i));
        EXPECT_EQ(rb.held(), 0u);
    }
}

TEST(ReorderBuffer, DuplicatesAreRejected) {
    reorder_buffer<int> rb;
    EXPECT_EQ(rb.classify(0), verdict::deliver);
    EXPECT_EQ(rb.classify(0), verdict::duplicate);
    EXPECT_EQ(rb.classify(2), verdict::early);
    rb.hold(2, 2);
    EXPECT_EQ(rb.classify(2), verdict::duplicate);
}

TEST(ReorderBuffer, SequenceNumbersWrapAround) {
    reorder_buffer<int> rb(0xFFFFFFFEu);
    std::vector<int> out;
    for (uint32_t s : {1u, 0u, 0xFFFFFFFFu, 0xFFFFFFFEu}) {
        const auto v = rb.classify(s);
        if (v == verdict::deliver) {
            out.push_back(static_cast<int>(s));
            while (auto m = rb.next()) out.push_back(*m);
        } else {
            ASSERT_EQ(v, verdict::early) << s;
            rb.hold(s, static_cast<int>(s));
        }
    }
    EXPECT_EQ(out, (std::vector<int>{-2, -1, 0, 1}));
    EXPECT_EQ(rb.classify(0xFFFFFFFFu), verdict::duplicate);  // behind, not 4 billion ahead
}

// Messages whose senders gave up on them (skipped), in any order among the
// rest: the others come out in order, none waits for a skipped one, and a
// skipped number is not accepted again.
TEST(ReorderBuffer, SkippedNumbersHoldNothingBack) {
    std::mt19937 rng(11);
    for (int round = 0; round < 50; ++round) {
        std::vector<uint32_t> seqs(200);
        for (uint32_t i = 0; i < seqs.size(); ++i) seqs[i] = i;
        std::shuffle(seqs.begin(), seqs.end(), rng);
        const auto skipped = [](uint32_t s) { return s % 7 == 3 || s == 0 || s == 199; };
        reorder_buffer<int> rb;
        std::vector<int> out;
        for (uint32_t s : seqs) {
            const verdict v = skipped(s) ? rb.skip(s) : rb.classify(s);
            if (v == verdict::deliver) {
                if (!skipped(s)) out.push_back(static_cast<int>(s));
                while (auto m = rb.next()) out.push_back(*m);
            } else {
                ASSERT_EQ(v, verdict::early) << s;
                if (!skipped(s)) rb.hold(s, static_cast<int>(s));
            }
        }
        std::vector<int> expected;
        for (uint32_t s = 0; s < seqs.size(); ++s)
            if (!skipped(s)) expected.push_back(static_cast<int>(s));
        ASSERT_EQ(out, expected);
        EXPECT_EQ(rb.held(), 0u);
        EXPECT_EQ(rb.expected(), 200u);
    }
    reorder_buffer<int> rb;
    EXPECT_EQ(rb.skip(1), verdict::early);
    EXPECT_EQ(rb.classify(1), verdict::duplicate);
    EXPECT_EQ(rb.skip(1), verdict::duplicate);
}
