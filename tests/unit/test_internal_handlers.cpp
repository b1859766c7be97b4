// Handler ids of the internal context come in ranges, one per subsystem,
// the same in every process that reserves in the same order.
#include "core/internal_handlers.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

void noop(const ccs_am_message_t *, void *) {}

TEST(InternalHandlers, RangesFollowEachOtherAndNameTheirOwner) {
    ccs::context internal(0, 0, "ccs-internal", 2);
    ccs::internal_handlers handlers(internal);
    uint16_t barrier = 99, rma = 99;
    ASSERT_EQ(handlers.reserve("barrier", 1, barrier), CCS_OK);
    ASSERT_EQ(handlers.reserve("rma", 8, rma), CCS_OK);
    EXPECT_EQ(barrier, 0);
    EXPECT_EQ(rma, 1);
    EXPECT_STREQ(handlers.owner(0), "barrier");
    EXPECT_STREQ(handlers.owner(1), "rma");
    EXPECT_STREQ(handlers.owner(8), "rma");
    EXPECT_EQ(handlers.owner(9), nullptr);
    int seen = 0;
    handlers.set(rma, noop, &seen);
    EXPECT_EQ(internal.handler(rma).fn, noop);
    EXPECT_EQ(internal.handler(rma).arg, &seen);
    // A second table reserving in the same order hands out the same ids.
    ccs::context other(0, 0, "ccs-internal", 2);
    ccs::internal_handlers again(other);
    uint16_t b2 = 0, r2 = 0;
    ASSERT_EQ(again.reserve("barrier", 1, b2), CCS_OK);
    ASSERT_EQ(again.reserve("rma", 8, r2), CCS_OK);
    EXPECT_EQ(b2, barrier);
    EXPECT_EQ(r2, rma);
}

TEST(InternalHandlers, AFullTableRefusesAndSaysWhoHoldsIt) {
    ccs::context internal(0, 0, "ccs-internal", 1);
    ccs::internal_handlers handlers(internal);
    uint16_t first = 0;
    ASSERT_EQ(handlers.reserve("big", CCS_AM_MAX_HANDLERS - 2, first), CCS_OK);
    uint16_t untouched = 777;
    EXPECT_EQ(handlers.reserve("more", 3, untouched), CCS_ERR_INVALID_HANDLER);
    EXPECT_EQ(untouched, 777);
    const std::string error = ccs_last_error();
    EXPECT_NE(error.find("more asks for 3 ids, 2 are left"), std::string::npos) << error;
    EXPECT_NE(error.find("big 1022"), std::string::npos) << error;
    EXPECT_EQ(handlers.reserve("none", 0, untouched), CCS_ERR_INVALID_HANDLER);
    ASSERT_EQ(handlers.reserve("last", 2, first), CCS_OK);
    EXPECT_EQ(first, CCS_AM_MAX_HANDLERS - 2);
}

}  // namespace
