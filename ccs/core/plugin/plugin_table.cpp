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
ccs_plugin_status_t atomic(void *, int32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint64_t, void *, void *,
                           uint64_t) {
    return CCS_PLUGIN_ERR_UNSUPPORTED;  // the core's atomics only
}
// Without a wake-up the core never sleeps long on this plugin's behalf.
int32_t wakeup_fd(void *) { return -1; }
ccs_plugin_status_t wakeup_arm(void *) { return CCS_PLUGIN_ERR_UNSUPPORTED; }
// Sends stay under the core's lock.
ccs_plugin_status_t am_send_concurrent(void *) { return CCS_PLUGIN_ERR_UNSUPPORTED; }
// Puts and gets likewise.
ccs_plugin_status_t rma_concurrent(void *) { return CCS_PLUGIN_ERR_UNSUPPORTED; }
// It keeps no payloads, so none is named.
ccs_plugin_status_t am_parked_fetch(void *, uint64_t, void *, size_t, uint64_t) { return CCS_PLUGIN_ERR_INVALID; }
void am_parked_release(void *, uint64_t) {}
}  // namespace stub

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
    // Each operation the plugin's table reaches and sets, else its stub.
#define CCS_OP_OR_STUB(op) out.op = CCS_PLUGIN_HAS(&v1, op) ? v1.op : stub::op
    CCS_OP_OR_STUB(query);
    CCS_OP_OR_STUB(init);
    CCS_OP_OR_STUB(address);
    CCS_OP_OR_STUB(connect);
    CCS_OP_OR_STUB(reachable);
    CCS_OP_OR_STUB(wireup_complete);
    CCS_OP_OR_STUB(finalize);
    CCS_OP_OR_STUB(am_send);
    CCS_OP_OR_STUB(progress);
    CCS_OP_OR_STUB(mem_reg);
    CCS_OP_OR_STUB(mem_dereg);
    CCS_OP_OR_STUB(rkey_pack);
    CCS_OP_OR_STUB(rkey_unpack);
    CCS_OP_OR_STUB(rkey_release);
    CCS_OP_OR_STUB(put);
    CCS_OP_OR_STUB(get);
    CCS_OP_OR_STUB(am_send_nocopy);
    CCS_OP_OR_STUB(rkey_ptr);
    CCS_OP_OR_STUB(atomic);
    CCS_OP_OR_STUB(wakeup_fd);
    CCS_OP_OR_STUB(wakeup_arm);
    CCS_OP_OR_STUB(am_send_concurrent);
    CCS_OP_OR_STUB(rma_concurrent);
    CCS_OP_OR_STUB(am_parked_fetch);
    CCS_OP_OR_STUB(am_parked_release);
#undef CCS_OP_OR_STUB
    out.parks_payloads = CCS_PLUGIN_HAS(&v1, am_parked_fetch) && CCS_PLUGIN_HAS(&v1, am_parked_release);
    // Without its own, a placeable packet is an ordinary no-copy one.
    out.am_send_placeable = CCS_PLUGIN_HAS(&v1, am_send_placeable) ? v1.am_send_placeable : out.am_send_nocopy;
    return true;
}

}  // namespace ccs
