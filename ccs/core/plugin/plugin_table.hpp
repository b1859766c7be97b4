// The plugin table as the core uses it: every operation is callable. Built
// from whatever ABI version a plugin exports; operations the plugin's table
// does not cover (older, smaller struct) or leaves NULL are typed stubs.
#pragma once

#include <ccs/plugin/ccs_plugin_v1.h>

#include <string>

namespace ccs {

struct plugin_table {
    std::string name;
    uint32_t abi_version = 0;
    decltype(ccs_plugin_v1_t::query) query = nullptr;
    decltype(ccs_plugin_v1_t::init) init = nullptr;
    decltype(ccs_plugin_v1_t::address) address = nullptr;
    decltype(ccs_plugin_v1_t::connect) connect = nullptr;
    decltype(ccs_plugin_v1_t::reachable) reachable = nullptr;
    decltype(ccs_plugin_v1_t::wireup_complete) wireup_complete = nullptr;
    decltype(ccs_plugin_v1_t::finalize) finalize = nullptr;
    decltype(ccs_plugin_v1_t::am_send) am_send = nullptr;
    decltype(ccs_plugin_v1_t::progress) progress = nullptr;
    decltype(ccs_plugin_v1_t::mem_reg) mem_reg = nullptr;
    decltype(ccs_plugin_v1_t::mem_dereg) mem_dereg = nullptr;
    decltype(ccs_plugin_v1_t::rkey_pack) rkey_pack = nullptr;
    decltype(ccs_plugin_v1_t::rkey_unpack) rkey_unpack = nullptr;
    decltype(ccs_plugin_v1_t::rkey_release) rkey_release = nullptr;
    decltype(ccs_plugin_v1_t::put) put = nullptr;
    decltype(ccs_plugin_v1_t::get) get = nullptr;
    decltype(ccs_plugin_v1_t::am_send_nocopy) am_send_nocopy = nullptr;
    decltype(ccs_plugin_v1_t::rkey_ptr) rkey_ptr = nullptr;
    decltype(ccs_plugin_v1_t::atomic) atomic = nullptr;
    decltype(ccs_plugin_v1_t::wakeup_fd) wakeup_fd = nullptr;
    decltype(ccs_plugin_v1_t::wakeup_arm) wakeup_arm = nullptr;
    decltype(ccs_plugin_v1_t::am_send_placeable) am_send_placeable = nullptr;
    decltype(ccs_plugin_v1_t::am_send_concurrent) am_send_concurrent = nullptr;
    decltype(ccs_plugin_v1_t::rma_concurrent) rma_concurrent = nullptr;
    decltype(ccs_plugin_v1_t::am_parked_fetch) am_parked_fetch = nullptr;
    decltype(ccs_plugin_v1_t::am_parked_release) am_parked_release = nullptr;
    // Both of the above are the plugin's own: it keeps payloads for the
    // core (services->am_deliver_parked).
    bool parks_payloads = false;
};

// Adapts a v1 table whose plugin declared `declared_size` bytes. Returns
// false (with reason) when the table is too small to be a plugin at all.
bool plugin_table_from_v1(const ccs_plugin_v1_t &v1, plugin_table &out, std::string &reason);

}  // namespace ccs
