// Calls before ccs_init and after ccs_finalize return the documented error;
// ccs_init after the last finalize is refused. One process (singleton).
#include "printed.hpp"

#include <ccs/ccs.h>
#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void expect_every_call_refused(ccs_status_t want) {
    int v = 0;
    uint64_t u = 0;
    ccs_context_t c{0};
    EXPECT_EQ(ccs_rank(&v), want);
    EXPECT_EQ(ccs_size(&v), want);
    EXPECT_EQ(ccs_context_create(nullptr, &c), want);
    EXPECT_EQ(ccs_context_destroy(ccs_context_t{1}), want);
    EXPECT_EQ(ccs_context_set_error_handler(ccs_context_t{1}, nullptr, nullptr), want);
    EXPECT_EQ(ccs_am_handler_register(ccs_context_t{1}, 1, nullptr, nullptr), want);
    EXPECT_EQ(ccs_am_handler_deregister(ccs_context_t{1}, 1), want);
    EXPECT_EQ(ccs_am_send(ccs_context_t{1}, 0, 1, nullptr, 0, nullptr, 0, nullptr), want);
    EXPECT_EQ(ccs_progress(), want);
    EXPECT_EQ(ccs_barrier(), want);
    EXPECT_EQ(ccs_stats_get("am.sent", &u), want);
    EXPECT_EQ(ccs_stats_print(stdout), want);
    ccs_peer_attr_t peer{};
    peer.struct_size = sizeof peer;
    EXPECT_EQ(ccs_peer_query(0, &peer), want);
    // Memory and RMA.
    char buf[64];
    size_t len = sizeof buf;
    ccs_mem_t mem{};
    ccs_rkey_t key{};
    ccs_counter_t counter{};
    EXPECT_EQ(ccs_mem_register(buf, sizeof buf, &mem), want);
    EXPECT_EQ(ccs_mem_deregister(ccs_mem_t{1}), want);
    EXPECT_EQ(ccs_mem_expose_all(1), want);
    EXPECT_EQ(ccs_rkey_pack(ccs_mem_t{1}, buf, &len), want);
    EXPECT_EQ(ccs_rkey_unpack(0, buf, sizeof buf, &key), want);
    EXPECT_EQ(ccs_rkey_release(ccs_rkey_t{1}), want);
    EXPECT_EQ(ccs_put(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT, nullptr), want);
    EXPECT_EQ(ccs_get(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT, nullptr), want);
    EXPECT_EQ(ccs_put_sync(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT), want);
    EXPECT_EQ(ccs_get_sync(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT), want);
    EXPECT_EQ(ccs_put_datadesc(ccs_context_t{1}, 0, buf, 8, CCS_BYTE, 0, 8, CCS_BYTE, CCS_RKEY_IMPLICIT, nullptr), want);
    EXPECT_EQ(ccs_get_datadesc(ccs_context_t{1}, 0, buf, 8, CCS_BYTE, 0, 8, CCS_BYTE, CCS_RKEY_IMPLICIT, nullptr), want);
    EXPECT_EQ(ccs_put_notify(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT, 1, nullptr, 0, nullptr), want);
    EXPECT_EQ(ccs_get_notify(ccs_context_t{1}, 0, buf, 8, 0, CCS_RKEY_IMPLICIT, 1, nullptr, 0, nullptr), want);
    EXPECT_EQ(ccs_fence(ccs_context_t{1}, 0), want);
    EXPECT_EQ(ccs_fence_all(ccs_context_t{1}), want);
    EXPECT_EQ(ccs_fence_global(ccs_context_t{1}), want);
    EXPECT_EQ(ccs_counter_wait(&counter, 1), want);
    EXPECT_EQ(ccs_wait_until(&v, CCS_INT32, CCS_CMP_EQ, 0), want);
    EXPECT_EQ(ccs_query_thread(&v), want);
    EXPECT_EQ(ccs_finalize(), want);
    EXPECT_EQ(ccs_initialized(&v), CCS_OK);
    EXPECT_EQ(v, 0);
}

}  // namespace

// Runs first (the test after it finalizes for good). Each bad value of a
// core parameter fails ccs_init with an error naming the variable and its
// text and leaves CCS uninitialized; the next test's ccs_init then works.
TEST(Lifecycle, ABadParameterFailsInitByNameAndLeavesNothingBehind) {
    const struct {
        const char *name, *value;
    } bad[] = {{"CCS_AM_QUEUE_LIMIT", "lots"},    {"CCS_AM_QUEUE_LIMIT", "-1"},
               {"CCS_AM_BUFFER_CACHE", "16 M"},   {"CCS_RCACHE_MAX_UNUSED", "12q"},
               {"CCS_WAIT_GAP_NS", "10001"},      {"CCS_WAIT_GAP_NS", ""},
               {"CCS_RMA_EMULATE", "yes"},        {"CCS_RMA_EXPOSE", "everything"},
               {"CCS_LOG_LEVEL", "loud"},         {"CCS_WAIT_SPIN_US", "soon"},
               {"CCS_WAIT_SLEEP_MAX_US", "2000000"}, {"CCS_WAIT_SLEEP_MAX_US", "0"},
               {"CCS_WAIT_SPIN_MAX_US", "1 ms"},  {"CCS_PROGRESS_THREAD", "yes"}};
    for (const auto &b : bad) {
        SCOPED_TRACE(std::string(b.name) + "='" + b.value + "'");
        ::setenv(b.name, b.value, 1);
        EXPECT_EQ(ccs_init(nullptr), CCS_ERR_INVALID_ARG);
        const std::string error = ccs_last_error();
        EXPECT_NE(error.find(std::string(b.name) + "='" + b.value + "'"), std::string::npos) << error;
        ::unsetenv(b.name);
        int flag = -1;
        EXPECT_EQ(ccs_initialized(&flag), CCS_OK);
        EXPECT_EQ(flag, 0);
    }
    // The largest gap allowed is taken (ccs_info reads it as ccs_init does).
    ::setenv("CCS_WAIT_GAP_NS", "10000", 1);
    const std::string info = printed(ccs_info_print);
    ::unsetenv("CCS_WAIT_GAP_NS");
    EXPECT_NE(info.find("then every ~10000 ns"), std::string::npos) << info;
    // The next test starts with a successful ccs_init after these failures.
}

TEST(Lifecycle, BeforeInitDuringAndAfterFinalize) {
    expect_every_call_refused(CCS_ERR_NOT_INITIALIZED);
    EXPECT_NE(std::string(ccs_last_error()).find("call ccs_init first"), std::string::npos);
    // ccs_info works without init.
    FILE *null = std::fopen("/dev/null", "w");
    EXPECT_EQ(ccs_info_print(null), CCS_OK);
    std::fclose(null);

    ASSERT_EQ(ccs_init(nullptr), CCS_OK) << ccs_last_error();
    ASSERT_EQ(ccs_init(nullptr), CCS_OK);  // a second runtime in the process
    int rank = -1, size = -1;
    EXPECT_EQ(ccs_rank(&rank), CCS_OK);
    EXPECT_EQ(ccs_size(&size), CCS_OK);
    EXPECT_EQ(rank, 0);
    EXPECT_EQ(size, 1);
    int got = 0;
    const ccs_am_handler_entry_t h[1] = {{3, [](const ccs_am_message_t *, void *a) { ++*static_cast<int *>(a); }, &got}};
    const ccs_context_params_t params{sizeof(ccs_context_params_t), 0, "solo", h, 1};
    ccs_context_t ctx{0};
    ASSERT_EQ(ccs_context_create(&params, &ctx), CCS_OK);
    ASSERT_EQ(ccs_am_send(ctx, 0, 3, nullptr, 0, "hi", 2, nullptr), CCS_OK);
    EXPECT_EQ(got, 0) << "a handler ran inside ccs_am_send";
    for (int i = 0; i < 100 && got == 0; ++i) ccs_progress();
    EXPECT_EQ(got, 1);
    EXPECT_EQ(ccs_finalize(), CCS_OK);  // first runtime leaves; still running
    EXPECT_EQ(ccs_am_send(ctx, 0, 3, nullptr, 0, nullptr, 0, nullptr), CCS_OK);
    EXPECT_EQ(ccs_finalize(), CCS_OK);  // last one: now finalized

    expect_every_call_refused(CCS_ERR_NOT_INITIALIZED);
    EXPECT_NE(std::string(ccs_last_error()).find("ccs_finalize was called"), std::string::npos);
    EXPECT_EQ(ccs_init(nullptr), CCS_ERR_FINALIZED);
}
