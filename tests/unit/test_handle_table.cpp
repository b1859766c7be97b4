// Public handles: ids are never 0, a released id finds nothing even when
// its slot is reused, and forged ids find nothing.
#include "util/handle_table.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(HandleTable, StaleAndForgedIdsFindNothing) {
    ccs::handle_table<std::string> t;
    const uint64_t a = t.insert("a"), b = t.insert("b");
    EXPECT_NE(a, 0u);
    EXPECT_NE(a, b);
    ASSERT_NE(t.find(a), nullptr);
    EXPECT_EQ(*t.find(a), "a");
    EXPECT_EQ(t.find(0), nullptr);
    EXPECT_EQ(t.find(a + 1000), nullptr);
    EXPECT_EQ(t.find(~0ull), nullptr);
    EXPECT_TRUE(t.erase(a));
    EXPECT_FALSE(t.erase(a));
    EXPECT_EQ(t.find(a), nullptr);
    const uint64_t c = t.insert("c");  // reuses a's slot, with a new generation
    EXPECT_NE(c, a);
    EXPECT_EQ(t.find(a), nullptr);
    EXPECT_EQ(*t.find(c), "c");
    EXPECT_EQ(*t.find(b), "b");
    int live = 0;
    t.for_each([&](uint64_t id, std::string &v) {
        ++live;
        EXPECT_EQ(t.find(id), &v);
    });
    EXPECT_EQ(live, 2);
}
