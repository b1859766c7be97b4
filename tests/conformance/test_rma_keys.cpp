// Remote keys as capabilities and the errors of RMA: what a key allows,
// what a stale or damaged one is refused, and that every failure says
// what failed. On every plugin configuration.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstring>
#include <string>

using namespace conformance;

namespace {

// Leaves an unrelated failure behind, so a test can tell a call's own
// detail from whatever came before it.
void leave_an_older_error() {
    EXPECT_EQ(ccs_mem_deregister(ccs_mem_t{~uint64_t{0}}), CCS_ERR_INVALID_MEMORY);
    ASSERT_NE(std::string(ccs_last_error()).find("never registered"), std::string::npos);
}

bool mentions(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(RmaErrors, OperationsThatFailLaterSayWhatFailed) {
    scoped_context ctx("rma-error-detail");
    // An address nobody registered: the target refuses the implicit key
    // only when the request arrives, after the call returned.
    std::vector<uint8_t> unregistered(4096, 0xEE);
    const shared_bytes where = share_with_everyone({}, reinterpret_cast<uintptr_t>(unregistered.data()));
    const uint64_t there = where.words[static_cast<size_t>(right())];
    const uint64_t junk = 7;
    if (right() != rank()) {
        leave_an_older_error();
        EXPECT_EQ(ccs_put_sync(ctx, right(), &junk, 8, there, CCS_RKEY_IMPLICIT), CCS_ERR_NOT_REGISTERED);
        const std::string sync_detail = ccs_last_error();
        EXPECT_TRUE(mentions(sync_detail, "ccs_put_sync") && mentions(sync_detail, "rank " + std::to_string(right())))
            << sync_detail;

        ccs_counter_t counter;
        CCS_EXPECT_OK(ccs_counter_init(&counter));
        struct seen {
            ccs_status_t status = CCS_OK;
            std::string detail;
        } in_callback;
        const ccs_completion_t both{[](ccs_status_t st, void *arg) {
                                        auto *s = static_cast<seen *>(arg);
                                        s->status = st;
                                        s->detail = ccs_last_error();
                                    },
                                    &in_callback, &counter};
        uint64_t back = 0;
        CCS_EXPECT_OK(ccs_get(ctx, right(), &back, 8, there, CCS_RKEY_IMPLICIT, &both));
        leave_an_older_error();
        EXPECT_EQ(ccs_counter_wait(&counter, 1), CCS_ERR_NOT_REGISTERED);
        const std::string wait_detail = ccs_last_error();
        EXPECT_TRUE(mentions(wait_detail, "ccs_counter_wait") && mentions(wait_detail, "get of 8 bytes"))
            << wait_detail;
        EXPECT_EQ(in_callback.status, CCS_ERR_NOT_REGISTERED);
        EXPECT_TRUE(mentions(in_callback.detail, "get of 8 bytes from rank " + std::to_string(right())))
            << in_callback.detail;
    }
    CCS_EXPECT_OK(ccs_barrier());
    for (uint8_t b : unregistered) ASSERT_EQ(b, 0xEE) << "a refused put wrote";
    CCS_EXPECT_OK(ccs_barrier());
}
