// The shm plugin's copier for megabyte copies: every method copies exactly
// the bytes asked, small copies never enter the trial, and the trial
// settles on one method after its rounds.
#include "shm_copy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using ccs::shm::bulk_copy;

// Copies [offset, offset + n) of a patterned source into a poisoned
// destination and checks every byte, including the untouched guards.
void check_copy(bulk_copy &copy, size_t n, size_t offset) {
    std::vector<uint8_t> from(n + 2 * offset), to(n + 2 * offset, 0xee);
    for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<uint8_t>(i * 131 + 7);
    copy(to.data() + offset, from.data() + offset, n);
    // Compared whole, so that the sanitizer builds check megabytes quickly.
    std::vector<uint8_t> expected(to.size(), 0xee);
    std::copy(from.begin() + static_cast<ptrdiff_t>(offset), from.begin() + static_cast<ptrdiff_t>(offset + n),
              expected.begin() + static_cast<ptrdiff_t>(offset));
    const auto bad = std::mismatch(to.begin(), to.end(), expected.begin());
    ASSERT_TRUE(bad.first == to.end()) << "byte " << (bad.first - to.begin()) << " of a copy of " << n << " at "
                                       << offset << ": " << int{*bad.first} << ", not " << int{*bad.second};
}

TEST(ShmBulkCopy, EveryMethodCopiesExactly) {
    for (auto m : {bulk_copy::method::memcpy, bulk_copy::method::movsb, bulk_copy::method::trial}) {
        bulk_copy copy(m);
        for (size_t n : {size_t{1}, size_t{4095}, bulk_copy::min_bytes, bulk_copy::min_bytes + 3, size_t{3} << 20})
            check_copy(copy, n, 5);
    }
}

TEST(ShmBulkCopy, SmallCopiesLeaveTheTrialUndecided) {
    bulk_copy copy(bulk_copy::method::trial);
    const bool available = copy.chosen() == bulk_copy::method::trial;  // memcpy without fast rep movsb
    // More than the trial's eight copies, had they counted.
    for (int i = 0; i < 20; ++i) check_copy(copy, bulk_copy::min_bytes - 1, 0);
    EXPECT_EQ(copy.chosen(), available ? bulk_copy::method::trial : bulk_copy::method::memcpy);
    EXPECT_TRUE(copy.decision().empty());
}

TEST(ShmBulkCopy, TrialDecidesAndSaysWhat) {
    bulk_copy copy(bulk_copy::method::trial);
    if (copy.chosen() != bulk_copy::method::trial) GTEST_SKIP() << "no fast rep movsb here (or sanitized): memcpy only";
    int copies = 0;
    while (copy.chosen() == bulk_copy::method::trial && copies < 100) {
        check_copy(copy, bulk_copy::min_bytes, 64);
        ++copies;
    }
    EXPECT_EQ(copies, 8);  // four rounds of each
    EXPECT_NE(copy.decision().find("copies of 1 MiB and more use"), std::string::npos) << copy.decision();
    check_copy(copy, bulk_copy::min_bytes * 2 + 1, 1);  // and the decided method copies correctly
}

// Puts and gets run on several threads at thread level multiple: each copy
// stays exact while others take part in the trial, and exactly one copy
// says it decided.
TEST(ShmBulkCopy, ThreadsCopyingDuringTheTrialEachCopyExactlyAndOneDecides) {
    bulk_copy copy(bulk_copy::method::trial);
    const bool available = copy.chosen() == bulk_copy::method::trial;
    std::atomic<int> decided{0}, wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            const size_t n = bulk_copy::min_bytes + static_cast<size_t>(t);
            std::vector<uint8_t> from(n), to(n);
            for (int round = 0; round < 8; ++round) {
                for (size_t i = 0; i < n; ++i) from[i] = static_cast<uint8_t>(i * 7 + static_cast<size_t>(round + t));
                if (copy(to.data(), from.data(), n)) ++decided;
                if (to != from) ++wrong;
            }
        });
    for (auto &t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(decided.load(), available ? 1 : 0);
    EXPECT_NE(copy.chosen(), bulk_copy::method::trial);
}

}  // namespace
