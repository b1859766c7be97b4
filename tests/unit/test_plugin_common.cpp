// plugins/common: the table built from a plugin class, the parameter
// helpers' values and messages, the struct_size probes, process liveness.
#include "common/core_services.hpp"
#include "common/plugin_table.hpp"
#include "common/process_liveness.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using ccs::plugin::core_services;

// Parameters a test sets, handed out as the core's param_get would.
std::map<std::string, std::string> g_params;
std::string g_last_log;

const char *fake_param(void *, const char *name, const char *default_value, const char *) {
    const auto it = g_params.find(name);
    return it == g_params.end() ? default_value : it->second.c_str();
}
void fake_log(void *, int32_t, const char *message) { g_last_log = message; }

ccs_plugin_services_v1_t fake_services() {
    ccs_plugin_services_v1_t s{};
    s.struct_size = sizeof s;
    s.log = fake_log;
    s.param_get = fake_param;
    return s;
}

// The least a plugin can be: no memory, no RMA, no no-copy sends.
struct minimal_plugin {
    static constexpr const char *name = "mini";
    struct config {
        size_t packet = 0;
    };
    static bool read_config(const core_services &core, config &out, std::string &reason) {
        return core.param_size("MAX_PACKET", "1k", "largest packet", 256, 4096, out.packet, reason);
    }
    static ccs_plugin_status_t query(const core_services &, const config &cfg, ccs_plugin_attr_v1_t &attr) {
        attr.am_max_packet = cfg.packet;
        return CCS_PLUGIN_OK;
    }
    static inline int live = 0;
    minimal_plugin(const ccs_plugin_services_v1_t &, const ccs_plugin_job_v1_t &, const config &) { ++live; }
    ~minimal_plugin() { --live; }
    ccs_plugin_status_t init() { return g_params.count("FAIL_INIT") ? CCS_PLUGIN_ERR_NO_DEVICE : CCS_PLUGIN_OK; }
    ccs_plugin_status_t address(void *, size_t *length) {
        *length = 0;
        return CCS_PLUGIN_OK;
    }
    ccs_plugin_status_t connect(const void *const *, const size_t *) { return CCS_PLUGIN_OK; }
    bool reachable(int32_t peer) const { return peer == 1; }
    ccs_plugin_status_t am_send(int32_t, const ccs_plugin_iov_v1_t *, size_t count) {
        return count == 1 ? CCS_PLUGIN_OK : CCS_PLUGIN_AGAIN;
    }
    int32_t progress() { return 7; }
};

constexpr ccs_plugin_v1_t minimal_table = ccs::plugin::make_table<minimal_plugin>();

TEST(PluginCommon, TableHasWhatTheClassHasAndLeavesTheRestNull) {
    EXPECT_EQ(minimal_table.struct_size, sizeof(ccs_plugin_v1_t));
    EXPECT_EQ(minimal_table.abi_version, CCS_PLUGIN_ABI_VERSION_1);
    EXPECT_STREQ(minimal_table.name, "mini");
    // The operations it has are called in the next test.
    EXPECT_EQ(minimal_table.wireup_complete, nullptr);
    EXPECT_EQ(minimal_table.mem_reg, nullptr);
    EXPECT_EQ(minimal_table.rkey_unpack, nullptr);
    EXPECT_EQ(minimal_table.put, nullptr);
    EXPECT_EQ(minimal_table.get, nullptr);
    EXPECT_EQ(minimal_table.am_send_nocopy, nullptr);
    EXPECT_EQ(minimal_table.rkey_ptr, nullptr);
}

TEST(PluginCommon, TableCallsReachTheInstance) {
    g_params.clear();
    const ccs_plugin_services_v1_t services = fake_services();
    ccs_plugin_attr_v1_t attr{};
    attr.struct_size = sizeof attr;
    ASSERT_EQ(minimal_table.query(&services, &attr), CCS_PLUGIN_OK);
    EXPECT_EQ(attr.am_max_packet, 1024u);
    ccs_plugin_job_v1_t job{};
    void *state = nullptr;
    ASSERT_EQ(minimal_table.init(&services, &job, &state), CCS_PLUGIN_OK);
    EXPECT_EQ(minimal_plugin::live, 1);
    size_t length = 16;
    EXPECT_EQ(minimal_table.address(state, nullptr, &length), CCS_PLUGIN_OK);
    EXPECT_EQ(length, 0u);
    EXPECT_EQ(minimal_table.connect(state, nullptr, nullptr), CCS_PLUGIN_OK);
    EXPECT_EQ(minimal_table.reachable(state, 1), 1);
    EXPECT_EQ(minimal_table.reachable(state, 0), 0);
    ccs_plugin_iov_v1_t iov{"x", 1};
    EXPECT_EQ(minimal_table.am_send(state, 1, &iov, 1), CCS_PLUGIN_OK);
    EXPECT_EQ(minimal_table.am_send(state, 1, &iov, 2), CCS_PLUGIN_AGAIN);
    EXPECT_EQ(minimal_table.progress(state), 7);
    minimal_table.finalize(state);
    EXPECT_EQ(minimal_plugin::live, 0);
}

TEST(PluginCommon, BadConfigurationFailsQueryAndInitWithTheVariableNamed) {
    g_params = {{"MAX_PACKET", "64"}};
    const ccs_plugin_services_v1_t services = fake_services();
    ccs_plugin_attr_v1_t attr{};
    attr.struct_size = sizeof attr;
    g_last_log.clear();
    EXPECT_EQ(minimal_table.query(&services, &attr), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(g_last_log, "CCS_MINI_MAX_PACKET='64' must be from 256 to 4096");
    ccs_plugin_job_v1_t job{};
    void *state = reinterpret_cast<void *>(1);
    EXPECT_EQ(minimal_table.init(&services, &job, &state), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(state, reinterpret_cast<void *>(1));  // untouched
    EXPECT_EQ(minimal_plugin::live, 0);
}

TEST(PluginCommon, FailedInitLeavesNoInstance) {
    g_params = {{"FAIL_INIT", "1"}};
    const ccs_plugin_services_v1_t services = fake_services();
    ccs_plugin_job_v1_t job{};
    void *state = nullptr;
    EXPECT_EQ(minimal_table.init(&services, &job, &state), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_EQ(state, nullptr);
    EXPECT_EQ(minimal_plugin::live, 0);
}

TEST(PluginCommon, SizeAndChoiceParameters) {
    const ccs_plugin_services_v1_t services = fake_services();
    const core_services core(services, "shm");
    std::string reason;
    size_t v = 0;
    g_params = {{"RING", "64k"}, {"MODE", "fast"}};
    EXPECT_TRUE(core.param_size("RING", "1k", "", 1, size_t{1} << 30, v, reason));
    EXPECT_EQ(v, 64u << 10);
    EXPECT_TRUE(core.param_size("UNSET", "2m", "", 1, size_t{1} << 30, v, reason));
    EXPECT_EQ(v, 2u << 20);
    for (const char *junk : {"-1", "12q", "", "1t", "99999999999999999999"}) {
        g_params["RING"] = junk;
        EXPECT_FALSE(core.param_size("RING", "1k", "", 1, size_t{1} << 30, v, reason, "a size")) << junk;
        EXPECT_EQ(reason, std::string("CCS_SHM_RING='") + junk + "' must be a size");
    }
    enum class mode { slow, fast, auto_ };
    mode m = mode::slow;
    EXPECT_TRUE(core.param_choice<mode>("MODE", "auto", "", {{"auto", mode::auto_}, {"fast", mode::fast}}, m, reason));
    EXPECT_EQ(m, mode::fast);
    g_params["MODE"] = "bogus";
    EXPECT_FALSE(core.param_choice<mode>("MODE", "auto", "",
                                         {{"auto", mode::auto_}, {"fast", mode::fast}, {"slow", mode::slow}}, m, reason));
    EXPECT_EQ(reason, "CCS_SHM_MODE='bogus' must be auto, fast or slow");
    EXPECT_EQ(m, mode::fast);  // unchanged on a bad value
}

TEST(PluginCommon, StructSizeProbesSeeOnlyWhatAnOlderStructHas) {
    ccs_plugin_services_v1_t services = fake_services();
    services.am_send_complete = [](void *, uint64_t, ccs_plugin_status_t) {};
    EXPECT_TRUE(CCS_PLUGIN_HAS(&services, am_send_complete));
    EXPECT_TRUE(core_services(services, "x").has_am_send_complete());
    // A core built before am_send_complete was appended.
    services.struct_size = offsetof(ccs_plugin_services_v1_t, am_send_complete);
    EXPECT_FALSE(CCS_PLUGIN_HAS(&services, am_send_complete));
    EXPECT_FALSE(core_services(services, "x").has_am_send_complete());
    EXPECT_TRUE(CCS_PLUGIN_HAS(&services, log));
    services.log = nullptr;
    EXPECT_FALSE(CCS_PLUGIN_HAS(&services, log));
    EXPECT_TRUE(CCS_PLUGIN_COVERS(&services, log));
    ccs_plugin_attr_v1_t attr{};
    attr.struct_size = offsetof(ccs_plugin_attr_v1_t, am_nocopy_min);
    EXPECT_FALSE(CCS_PLUGIN_COVERS(&attr, am_nocopy_min));
    attr.struct_size = sizeof attr;
    EXPECT_TRUE(CCS_PLUGIN_COVERS(&attr, am_nocopy_min));
}

TEST(PluginCommon, ProcessLiveness) {
    EXPECT_TRUE(ccs::plugin::process_exists(static_cast<int32_t>(::getpid())));
    EXPECT_FALSE(ccs::plugin::process_exists(0));
    EXPECT_FALSE(ccs::plugin::process_exists(-1));
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ASSERT_GT(child, 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: gone
    EXPECT_FALSE(ccs::plugin::process_exists(static_cast<int32_t>(child)));
}

TEST(PluginCommon, LivenessPacerLooksRarely) {
    ccs::plugin::liveness_pacer pacer;
    int due = 0;
    for (int i = 0; i < 4095; ++i) due += pacer.due();
    EXPECT_EQ(due, 0);  // the clock was not even read
    EXPECT_TRUE(pacer.due());  // first look
    for (int i = 0; i < 4096; ++i) due += pacer.due();
    EXPECT_EQ(due, 0);  // within 100 ms of the last
}

}  // namespace
