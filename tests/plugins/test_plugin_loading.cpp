// Every way a plugin can be unusable gives ccs_init a clear failure that
// names the plugin, its path and the reason, and leaves the library able to
// initialize afterwards.
#include "printed.hpp"

#include <ccs/ccs.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef BROKEN_PLUGIN_DIR
#error "BROKEN_PLUGIN_DIR must be defined"
#endif

namespace {

struct failure_case {
    const char *name;
    ccs_status_t status;
    const char *reason;  // must appear in ccs_last_error()
};

// Returns ccs_init's detail (later calls in here replace ccs_last_error).
std::string expect_init_fails(const failure_case &c) {
    ::setenv("CCS_PLUGIN_PATH", BROKEN_PLUGIN_DIR, 1);
    ::setenv("CCS_TRANSPORT", c.name, 1);
    const ccs_status_t st = ccs_init(nullptr);
    const std::string detail = ccs_last_error();
    EXPECT_EQ(st, c.status) << c.name << ": " << ccs_strerror(st) << ": " << detail;
    EXPECT_NE(detail.find(std::string("'") + c.name + "'"), std::string::npos) << detail;
    EXPECT_NE(detail.find(c.reason), std::string::npos) << "wanted '" << c.reason << "' in: " << detail;
    int initialized = 1;
    EXPECT_EQ(ccs_initialized(&initialized), CCS_OK);
    EXPECT_EQ(initialized, 0) << "a failed ccs_init left the library initialized";
    int rank = 0;
    EXPECT_EQ(ccs_rank(&rank), CCS_ERR_NOT_INITIALIZED);
    return detail;
}

const std::string dir = BROKEN_PLUGIN_DIR;

}  // namespace

TEST(PluginLoading, MissingPlugin) {
    expect_init_fails({"nosuch", CCS_ERR_PLUGIN_NOT_FOUND, "not found in: " BROKEN_PLUGIN_DIR});
}
TEST(PluginLoading, FileThatIsNotAPlugin) {
    const std::string detail = expect_init_fails({"garbage", CCS_ERR_PLUGIN_LOAD, "dlopen failed"});
    EXPECT_NE(detail.find(dir + "/libccs_plugin_garbage.so"), std::string::npos) << detail;
}
TEST(PluginLoading, SharedObjectWithoutTheSymbol) {
    const std::string detail = expect_init_fails({"nosymbol", CCS_ERR_PLUGIN_LOAD, "no symbol ccs_plugin_v1"});
    EXPECT_NE(detail.find(dir + "/libccs_plugin_nosymbol.so"), std::string::npos) << detail;
}
TEST(PluginLoading, WrongAbiVersion) {
    expect_init_fails({"badabi", CCS_ERR_PLUGIN_ABI, "ABI version 7"});
}
TEST(PluginLoading, TableTooSmall) {
    expect_init_fails({"tiny", CCS_ERR_PLUGIN_ABI, "smaller than the v1 header"});
}
TEST(PluginLoading, NameDoesNotMatchFile) {
    expect_init_fails({"misnamed", CCS_ERR_PLUGIN_LOAD, "declares name 'somethingelse'"});
}
TEST(PluginLoading, MissingQueryIsATypedStub) {
    expect_init_fails({"noquery", CCS_ERR_PLUGIN_INIT, "query failed: operation not provided"});
}
TEST(PluginLoading, InitFailure) {
    const std::string detail = expect_init_fails({"initfail", CCS_ERR_PLUGIN_INIT, "init failed: no device"});
    EXPECT_NE(detail.find(dir + "/libccs_plugin_initfail.so"), std::string::npos) << detail;
}
TEST(PluginLoading, BadSelectionSyntax) {
    ::setenv("CCS_TRANSPORT", "shm,,", 1);
    EXPECT_EQ(ccs_init(nullptr), CCS_ERR_INVALID_ARG);
    EXPECT_NE(std::string(ccs_last_error()).find("CCS_TRANSPORT"), std::string::npos);
}

TEST(PluginLoading, InfoExplainsEveryBrokenPlugin) {
    ::setenv("CCS_PLUGIN_PATH", BROKEN_PLUGIN_DIR, 1);
    ::unsetenv("CCS_TRANSPORT");
    const std::string info = printed(ccs_info_print);
    for (const char *expected : {"libccs_plugin_garbage.so", "no symbol ccs_plugin_v1", "ABI version 7",
                                 "smaller than the v1 header", "declares name 'somethingelse'",
                                 "query failed: operation not provided", "libccs_plugin_shm.so"})
        EXPECT_NE(info.find(expected), std::string::npos) << "ccs_info lacks '" << expected << "':\n" << info;
}

// Last: automatic selection skips every broken plugin and still works.
TEST(PluginLoading, ZAutomaticSelectionSkipsBrokenPlugins) {
    ::setenv("CCS_PLUGIN_PATH", BROKEN_PLUGIN_DIR, 1);
    ::unsetenv("CCS_TRANSPORT");
    ASSERT_EQ(ccs_init(nullptr), CCS_OK) << ccs_last_error();
    int size = 0;
    EXPECT_EQ(ccs_size(&size), CCS_OK);
    EXPECT_EQ(size, 1);
    ccs_context_t ctx;
    EXPECT_EQ(ccs_context_create(nullptr, &ctx), CCS_OK);
    EXPECT_EQ(ccs_finalize(), CCS_OK);
}
