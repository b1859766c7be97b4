// Tables grow append-only: a plugin built against an older, smaller table
// gets typed stubs for what it does not have, and the core never reads past
// the size the plugin declared.
#include "core/plugin/plugin_table.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>

using namespace ccs;

namespace {
ccs_plugin_status_t fake_query(const ccs_plugin_services_v1_t *, ccs_plugin_attr_v1_t *) { return CCS_PLUGIN_OK; }
}  // namespace

TEST(PluginTable, OpsBeyondTheDeclaredSizeBecomeStubs) {
    // The declared size stops after `query`; every later slot is garbage
    // that must never be called.
    ccs_plugin_v1_t full{};
    std::memset(&full, 0xFF, sizeof full);  // garbage in every op slot
    full.struct_size = offsetof(ccs_plugin_v1_t, query) + sizeof full.query;
    full.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    full.name = "short";
    full.query = fake_query;
    plugin_table t;
    std::string why;
    ASSERT_TRUE(plugin_table_from_v1(full, t, why)) << why;
    EXPECT_EQ(t.query, &fake_query);
    // Every later op is a working stub, not the garbage.
    void *state = nullptr;
    EXPECT_EQ(t.init(nullptr, nullptr, &state), CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(t.am_send(nullptr, 0, nullptr, 0), CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(t.progress(nullptr), 0);
    EXPECT_EQ(t.reachable(nullptr, 1), 0);
    size_t len = 99;
    EXPECT_EQ(t.address(nullptr, nullptr, &len), CCS_PLUGIN_OK);
    EXPECT_EQ(len, 0u);
}

namespace {

// The table of a plugin built before the member at offset `end` was
// appended: its declared size ends there, and what lies beyond is garbage.
// `nocopy`: its am_send_nocopy, if the size covers it.
plugin_table built_before(size_t end, decltype(ccs_plugin_v1_t::am_send_nocopy) nocopy = nullptr) {
    ccs_plugin_v1_t older{};
    std::memset(&older, 0xFF, sizeof older);
    older.struct_size = end;
    older.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    older.name = "older";
    if (nocopy) older.am_send_nocopy = nocopy;
    plugin_table t;
    std::string why;
    EXPECT_TRUE(plugin_table_from_v1(older, t, why)) << why;
    return t;
}

}  // namespace

TEST(PluginTable, APluginBuiltBeforeRkeyPtrKeepsPutAndGetInThePlugin) {
    const plugin_table t = built_before(offsetof(ccs_plugin_v1_t, rkey_ptr));
    int anything = 0;
    void *local = &anything;
    EXPECT_EQ(t.rkey_ptr(nullptr, nullptr, 0, 8, &local), CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(local, nullptr);  // not mapped: the core calls put and get
}

TEST(PluginTable, APluginBuiltBeforeAtomicsLeavesThemToTheCore) {
    const plugin_table t = built_before(offsetof(ccs_plugin_v1_t, atomic));
    uint64_t old = 7;
    EXPECT_EQ(t.atomic(nullptr, 1, CCS_PLUGIN_ATOMIC_ADD, 8, 0, 1, 0, &old, nullptr, 0), CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(old, 7u);
}

namespace {
ccs_plugin_status_t fake_nocopy(void *, int32_t, const ccs_plugin_iov_v1_t *, size_t, uint64_t) {
    return CCS_PLUGIN_IN_PROGRESS;
}
}  // namespace

TEST(PluginTable, APluginBuiltBeforePlacementSendsPlaceablePacketsWithoutACopy) {
    const plugin_table t = built_before(offsetof(ccs_plugin_v1_t, am_send_placeable), fake_nocopy);
    // Its own no-copy send, not a stub: the target delivers the packet as usual.
    EXPECT_EQ(t.am_send_placeable, &fake_nocopy);
    // And one without either copies.
    const plugin_table none = built_before(offsetof(ccs_plugin_v1_t, am_send_nocopy));
    EXPECT_EQ(none.am_send_placeable(nullptr, 1, nullptr, 0, 0), CCS_PLUGIN_ERR_UNSUPPORTED);
}

namespace {
ccs_plugin_status_t fake_parked_fetch(void *, uint64_t, void *, size_t, uint64_t) { return CCS_PLUGIN_OK; }
void fake_parked_release(void *, uint64_t) {}
}  // namespace

TEST(PluginTable, APluginBuiltBeforeKeptPayloadsIsNeverOfferedOne) {
    const plugin_table t = built_before(offsetof(ccs_plugin_v1_t, am_parked_fetch));
    EXPECT_FALSE(t.parks_payloads);
    int byte = 0;
    EXPECT_EQ(t.am_parked_fetch(nullptr, 1, &byte, 1, 1), CCS_PLUGIN_ERR_INVALID);
    t.am_parked_release(nullptr, 1);  // a stub: nothing to let go
    // One that has only half of the pair keeps nothing either.
    ccs_plugin_v1_t half{};
    half.struct_size = sizeof half;
    half.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    half.name = "half";
    half.am_parked_fetch = fake_parked_fetch;
    plugin_table h;
    std::string why;
    ASSERT_TRUE(plugin_table_from_v1(half, h, why)) << why;
    EXPECT_FALSE(h.parks_payloads);
    half.am_parked_release = fake_parked_release;
    ASSERT_TRUE(plugin_table_from_v1(half, h, why)) << why;
    EXPECT_TRUE(h.parks_payloads);
    EXPECT_EQ(h.am_parked_fetch, &fake_parked_fetch);
}

TEST(PluginTable, NullOpsBecomeStubs) {
    ccs_plugin_v1_t v{};
    v.struct_size = sizeof v;
    v.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    v.name = "nulls";
    plugin_table t;
    std::string why;
    ASSERT_TRUE(plugin_table_from_v1(v, t, why));
    EXPECT_EQ(t.query(nullptr, nullptr), CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(t.wireup_complete(nullptr), CCS_PLUGIN_OK);
}

TEST(PluginTable, WrongVersionOrTinyTableIsRefusedWithReason) {
    ccs_plugin_v1_t v{};
    v.struct_size = sizeof v;
    v.abi_version = 99;
    v.name = "future";
    plugin_table t;
    std::string why;
    EXPECT_FALSE(plugin_table_from_v1(v, t, why));
    EXPECT_NE(why.find("ABI version 99"), std::string::npos) << why;
    v.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    v.struct_size = 4;
    EXPECT_FALSE(plugin_table_from_v1(v, t, why));
    EXPECT_NE(why.find("smaller than the v1 header"), std::string::npos) << why;
}
