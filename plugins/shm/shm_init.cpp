// The shm plugin's exported table and its life cycle entry points.
#include "shm_state.hpp"

#include <cstdio>
#include <new>

#include <unistd.h>

namespace {

using ccs::shm::state;

state *self(void *p) { return static_cast<state *>(p); }

ccs_plugin_status_t shm_query(const ccs_plugin_services_v1_t *services, ccs_plugin_attr_v1_t *attr) {
    ccs::shm::config cfg;
    std::string reason;
    if (!ccs::shm::read_config(*services, cfg, reason)) {
        services->log(services->core, CCS_PLUGIN_LOG_ERROR, reason.c_str());
        return CCS_PLUGIN_ERR_INVALID;
    }
    if (::access("/dev/shm", W_OK) != 0) {
        services->log(services->core, CCS_PLUGIN_LOG_INFO, "/dev/shm is not writable");
        return CCS_PLUGIN_ERR_NO_DEVICE;
    }
    attr->caps = CCS_PLUGIN_CAP_AM | CCS_PLUGIN_CAP_PUT | CCS_PLUGIN_CAP_GET |
                 (cfg.shuffle ? 0 : CCS_PLUGIN_CAP_AM_ORDERED);
    attr->scope = CCS_PLUGIN_SCOPE_NODE;
    attr->priority = 100;
    attr->am_max_packet = cfg.max_packet;
    std::snprintf(attr->description, sizeof attr->description,
                  "POSIX shm: SPSC rings of %zu KiB per process pair; put/get by cross-memory attach%s%s%s",
                  cfg.ring_capacity >> 10, cfg.shuffle ? " (TEST_SHUFFLE)" : "",
                  cfg.deny_cma ? " (TEST_DENY_CMA)" : "", cfg.refuse_marked ? " (TEST_REFUSE_MARKED)" : "");
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t shm_init(const ccs_plugin_services_v1_t *services, const ccs_plugin_job_v1_t *job,
                             void **out) {
    ccs::shm::config cfg;
    std::string reason;
    if (!ccs::shm::read_config(*services, cfg, reason)) {
        services->log(services->core, CCS_PLUGIN_LOG_ERROR, reason.c_str());
        return CCS_PLUGIN_ERR_INVALID;
    }
    auto *s = new (std::nothrow) state(*services, *job, cfg);
    if (!s) return CCS_PLUGIN_ERR_NO_MEMORY;
    const ccs_plugin_status_t st = s->init();
    if (st != CCS_PLUGIN_OK) {
        delete s;
        return st;
    }
    *out = s;
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t shm_address(void *p, void *buffer, size_t *length) { return self(p)->address(buffer, length); }
ccs_plugin_status_t shm_connect(void *p, const void *const *addresses, const size_t *lengths) {
    return self(p)->connect(addresses, lengths);
}
int32_t shm_reachable(void *p, int32_t peer) { return self(p)->reachable(peer) ? 1 : 0; }
ccs_plugin_status_t shm_wireup_complete(void *p) { return self(p)->wireup_complete(); }
void shm_finalize(void *p) { delete self(p); }
ccs_plugin_status_t shm_am_send(void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
    return self(p)->send(peer, iov, count);
}
int32_t shm_progress(void *p) { return self(p)->progress(); }

ccs_plugin_status_t shm_mem_reg(void *p, void *addr, size_t length, void **memh) {
    return self(p)->mem_reg(addr, length, memh);
}
void shm_mem_dereg(void *p, void *memh) { self(p)->mem_dereg(memh); }
ccs_plugin_status_t shm_rkey_pack(void *p, void *memh, void *buffer, size_t *length) {
    return self(p)->rkey_pack(memh, buffer, length);
}
ccs_plugin_status_t shm_rkey_unpack(void *p, int32_t peer, const void *buffer, size_t length, void **rkey) {
    return self(p)->rkey_unpack(peer, buffer, length, rkey);
}
void shm_rkey_release(void *p, void *rkey) { self(p)->rkey_release(rkey); }
ccs_plugin_status_t shm_rkey_ptr(void *p, void *rkey, uint64_t remote, size_t length, void **local) {
    return self(p)->rkey_ptr(rkey, remote, length, local);
}
ccs_plugin_status_t shm_put(void *p, int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t) {
    return self(p)->put(peer, local, nlocal, remote, nremote, rkey);
}
ccs_plugin_status_t shm_get(void *p, int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t) {
    return self(p)->get(peer, local, nlocal, remote, nremote, rkey);
}

}  // namespace

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {
    .struct_size = sizeof(ccs_plugin_v1_t),
    .abi_version = CCS_PLUGIN_ABI_VERSION_1,
    .name = "shm",
    .query = shm_query,
    .init = shm_init,
    .address = shm_address,
    .connect = shm_connect,
    .reachable = shm_reachable,
    .wireup_complete = shm_wireup_complete,
    .finalize = shm_finalize,
    .am_send = shm_am_send,
    .progress = shm_progress,
    .mem_reg = shm_mem_reg,
    .mem_dereg = shm_mem_dereg,
    .rkey_pack = shm_rkey_pack,
    .rkey_unpack = shm_rkey_unpack,
    .rkey_release = shm_rkey_release,
    .put = shm_put,
    .get = shm_get,
    .rkey_ptr = shm_rkey_ptr,
};
