#include "core/plugin/plugin_table.hpp"

#include <cstddef>

namespace ccs {
namespace {

// Typed stubs for operations a plugin does not provide.
namespace stub {
ccs_plugin_status_t query(const ccs_plugin_services_v1_t *, ccs_plugin_attr_v1_t *) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
ccs_plugin_status_t init(const ccs_plugin_services_v1_t *, const ccs_plugin_job_v1_t *, void **) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
ccs_plugin_status_t address(void *, void *, size_t *length) {
    *length = 0;  // an empty address is valid: nothing to exchange
    return CCS_PLUGIN_OK;
}
ccs_plugin_status_t connect(void *, const void *const *, const size_t *) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
int32_t reachable(void *, int32_t) { return 0; }
ccs_plugin_status_t wireup_complete(void *) { return CCS_PLUGIN_OK; }
void finalize(void *) {}
ccs_plugin_status_t am_send(void *, int32_t, const ccs_plugin_iov_v1_t *, size_t) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
int32_t progress(void *) { return 0; }
// Without memory operations a plugin registers nothing and its peers reach
// memory through the core's active-message RMA.
ccs_plugin_status_t mem_reg(void *, void *, size_t, void **memh) {
    *memh = nullptr;
    return CCS_PLUGIN_OK;
}
void mem_dereg(void *, void *) {}
ccs_plugin_status_t rkey_pack(void *, void *, void *, size_t *length) {
    *length = 0;
    return CCS_PLUGIN_OK;
}
ccs_plugin_status_t rkey_unpack(void *, int32_t, const void *, size_t, void **rkey) {
    *rkey = nullptr;
    return CCS_PLUGIN_OK;
}
void rkey_release(void *, void *) {}
ccs_plugin_status_t put(void *, int32_t, const ccs_plugin_iov_v1_t *, size_t, const ccs_plugin_remote_v1_t *, size_t,
                        void *, uint64_t) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
ccs_plugin_status_t get(void *, int32_t, const ccs_plugin_buffer_v1_t *, size_t, const ccs_plugin_remote_v1_t *, size_t,
                        void *, uint64_t) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;
}
ccs_plugin_status_t am_send_nocopy(void *, int32_t, const ccs_plugin_iov_v1_t *, size_t, uint64_t) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;  // the core copies through am_send
}
ccs_plugin_status_t rkey_ptr(void *, void *, uint64_t, size_t, void **local) {
    *local = nullptr;
    return CCS_PLUGIN_ERR_UNSUPPORTED;  // put and get go through the plugin
}
}  // namespace stub

// The operation at `offset` if the plugin's table reaches that far and set
// it, else the stub. Checks the size before reading the field.
template <typename Fn>
Fn op_or_stub(const ccs_plugin_v1_t &t, size_t offset, Fn ccs_plugin_v1_t::*member, Fn fallback) {
    if (offset + sizeof(Fn) > t.struct_size) return fallback;
    const Fn fn = t.*member;
    return fn ? fn : fallback;
}

}  // namespace

bool plugin_table_from_v1(const ccs_plugin_v1_t &v1, plugin_table &out, std::string &reason) {
    // The fixed head (size, version, name) must be there to say anything.
    constexpr size_t head = offsetof(ccs_plugin_v1_t, name) + sizeof(const char *);
    if (v1.struct_size < head) {
        reason = "table size " + std::to_string(v1.struct_size) + " is smaller than the v1 header (" +
                 std::to_string(head) + ")";
        return false;
    }
    if (v1.abi_version != CCS_PLUGIN_ABI_VERSION_1) {
        reason = "ABI version " + std::to_string(v1.abi_version) + " in symbol " +
                 CCS_PLUGIN_SYMBOL_V1 + " (this core reads version " +
                 std::to_string(CCS_PLUGIN_ABI_VERSION_1) + ")";
        return false;
    }
    out.name = v1.name ? v1.name : "";
    out.abi_version = v1.abi_version;
    out.query = op_or_stub(v1, offsetof(ccs_plugin_v1_t, query), &ccs_plugin_v1_t::query, stub::query);
    out.init = op_or_stub(v1, offsetof(ccs_plugin_v1_t, init), &ccs_plugin_v1_t::init, stub::init);
    out.address = op_or_stub(v1, offsetof(ccs_plugin_v1_t, address), &ccs_plugin_v1_t::address, stub::address);
    out.connect = op_or_stub(v1, offsetof(ccs_plugin_v1_t, connect), &ccs_plugin_v1_t::connect, stub::connect);
    out.reachable =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, reachable), &ccs_plugin_v1_t::reachable, stub::reachable);
    out.wireup_complete = op_or_stub(v1, offsetof(ccs_plugin_v1_t, wireup_complete),
                                     &ccs_plugin_v1_t::wireup_complete, stub::wireup_complete);
    out.finalize =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, finalize), &ccs_plugin_v1_t::finalize, stub::finalize);
    out.am_send = op_or_stub(v1, offsetof(ccs_plugin_v1_t, am_send), &ccs_plugin_v1_t::am_send, stub::am_send);
    out.progress =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, progress), &ccs_plugin_v1_t::progress, stub::progress);
    out.mem_reg = op_or_stub(v1, offsetof(ccs_plugin_v1_t, mem_reg), &ccs_plugin_v1_t::mem_reg, stub::mem_reg);
    out.mem_dereg =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, mem_dereg), &ccs_plugin_v1_t::mem_dereg, stub::mem_dereg);
    out.rkey_pack =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, rkey_pack), &ccs_plugin_v1_t::rkey_pack, stub::rkey_pack);
    out.rkey_unpack =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, rkey_unpack), &ccs_plugin_v1_t::rkey_unpack, stub::rkey_unpack);
    out.rkey_release =
        op_or_stub(v1, offsetof(ccs_plugin_v1_t, rkey_release), &ccs_plugin_v1_t::rkey_release, stub::rkey_release);
    out.put = op_or_stub(v1, offsetof(ccs_plugin_v1_t, put), &ccs_plugin_v1_t::put, stub::put);
    out.get = op_or_stub(v1, offsetof(ccs_plugin_v1_t, get), &ccs_plugin_v1_t::get, stub::get);
    out.am_send_nocopy = op_or_stub(v1, offsetof(ccs_plugin_v1_t, am_send_nocopy), &ccs_plugin_v1_t::am_send_nocopy,
                                    stub::am_send_nocopy);
    out.rkey_ptr = op_or_stub(v1, offsetof(ccs_plugin_v1_t, rkey_ptr), &ccs_plugin_v1_t::rkey_ptr, stub::rkey_ptr);
    return true;
}

}  // namespace ccs
