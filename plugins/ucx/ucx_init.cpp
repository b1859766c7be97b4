// The UCX plugin's exported table and its life cycle entry points.
#include "ucx_callbacks.hpp"

#include <cstddef>
#include <cstdio>
#include <new>

namespace {

using ccs::ucx::state;

state *self(void *p) { return static_cast<state *>(p); }

ccs_plugin_status_t ucx_query(const ccs_plugin_services_v1_t *services, ccs_plugin_attr_v1_t *attr) {
    ccs::ucx::config cfg;
    std::string reason;
    if (!ccs::ucx::read_config(*services, cfg, reason)) {
        services->log(services->core, CCS_PLUGIN_LOG_ERROR, reason.c_str());
        return CCS_PLUGIN_ERR_INVALID;
    }
    ucp_config_t *ucx_config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &ucx_config);
    if (st != UCS_OK) {
        const std::string why = std::string("cannot read the UCX configuration: ") + ucs_status_string(st);
        services->log(services->core, CCS_PLUGIN_LOG_ERROR, why.c_str());
        return CCS_PLUGIN_ERR_INVALID;
    }
    const ccs::ucx::transports tls = ccs::ucx::configured_transports(ucx_config);
    ucp_config_release(ucx_config);
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    const bool rma = cfg.rma == ccs::ucx::rma_mode::native ||
                     (cfg.rma == ccs::ucx::rma_mode::automatic && tls.native_rma);
    // Without CAP_PUT/GET the core carries RMA in active messages for every
    // peer; with them, a peer whose lanes turn out to be software-emulated
    // is switched over when its endpoint is made.
    attr->caps = CCS_PLUGIN_CAP_AM | (rma ? CCS_PLUGIN_CAP_PUT | CCS_PLUGIN_CAP_GET : 0);
    attr->scope = CCS_PLUGIN_SCOPE_NETWORK;
    attr->priority = 50;
    attr->am_max_packet = cfg.max_packet;
    if (attr->struct_size >= offsetof(ccs_plugin_attr_v1_t, am_nocopy_min) + sizeof attr->am_nocopy_min)
        attr->am_nocopy_min = ccs::ucx::nocopy_min;
    std::snprintf(attr->description, sizeof attr->description, "UCX %u.%u.%u UCP, UCX_TLS=%s; put/get %s", major,
                  minor, release, tls.names.c_str(),
                  !rma ? "by the core's active messages"
                       : cfg.rma == ccs::ucx::rma_mode::native ? "by UCX (forced)"
                                                               : "by UCX where its lanes do RMA natively");
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t ucx_init(const ccs_plugin_services_v1_t *services, const ccs_plugin_job_v1_t *job,
                             void **out) {
    ccs::ucx::config cfg;
    std::string reason;
    if (!ccs::ucx::read_config(*services, cfg, reason)) {
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

ccs_plugin_status_t ucx_address(void *p, void *buffer, size_t *length) { return self(p)->address(buffer, length); }
ccs_plugin_status_t ucx_connect(void *p, const void *const *addresses, const size_t *lengths) {
    return self(p)->connect(addresses, lengths);
}
int32_t ucx_reachable(void *p, int32_t peer) { return self(p)->reachable(peer) ? 1 : 0; }
ccs_plugin_status_t ucx_wireup_complete(void *) { return CCS_PLUGIN_OK; }
void ucx_finalize(void *p) { delete self(p); }
ccs_plugin_status_t ucx_am_send(void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
    return self(p)->send(peer, iov, count);
}
int32_t ucx_progress(void *p) { return self(p)->progress(); }

ccs_plugin_status_t ucx_mem_reg(void *p, void *addr, size_t length, void **memh) {
    return self(p)->mem_reg(addr, length, memh);
}
void ucx_mem_dereg(void *p, void *memh) { self(p)->mem_dereg(memh); }
ccs_plugin_status_t ucx_rkey_pack(void *p, void *memh, void *buffer, size_t *length) {
    return self(p)->rkey_pack(memh, buffer, length);
}
ccs_plugin_status_t ucx_rkey_unpack(void *p, int32_t peer, const void *buffer, size_t length, void **rkey) {
    return self(p)->rkey_unpack(peer, buffer, length, rkey);
}
void ucx_rkey_release(void *p, void *rkey) { self(p)->rkey_release(rkey); }
ccs_plugin_status_t ucx_put(void *p, int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
    return self(p)->put(peer, local, nlocal, remote, nremote, rkey, token);
}
ccs_plugin_status_t ucx_am_send_nocopy(void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count,
                                       uint64_t token) {
    return self(p)->send_nocopy(peer, iov, count, token);
}
ccs_plugin_status_t ucx_get(void *p, int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
    return self(p)->get(peer, local, nlocal, remote, nremote, rkey, token);
}

}  // namespace

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {
    .struct_size = sizeof(ccs_plugin_v1_t),
    .abi_version = CCS_PLUGIN_ABI_VERSION_1,
    .name = "ucx",
    .query = ucx_query,
    .init = ucx_init,
    .address = ucx_address,
    .connect = ucx_connect,
    .reachable = ucx_reachable,
    .wireup_complete = ucx_wireup_complete,
    .finalize = ucx_finalize,
    .am_send = ucx_am_send,
    .progress = ucx_progress,
    .mem_reg = ucx_mem_reg,
    .mem_dereg = ucx_mem_dereg,
    .rkey_pack = ucx_rkey_pack,
    .rkey_unpack = ucx_rkey_unpack,
    .rkey_release = ucx_rkey_release,
    .put = ucx_put,
    .get = ucx_get,
    .am_send_nocopy = ucx_am_send_nocopy,
};
