// The exported ccs_plugin_v1 table, built from a plugin's C++ class, so no
// plugin writes the C wrappers by hand:
//
//     extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 =
//         ccs::plugin::make_table<ccs::shm::shm_plugin>();
//
// What the class must have (names as in the ABI; see ccs_plugin_v1.h):
//   static constexpr const char *name = "...";  // as in the file name
//   using config = ...;
//   static bool read_config(const core_services &, config &, std::string &reason);
//   static ccs_plugin_status_t query(const core_services &, const config &, ccs_plugin_attr_v1_t &);
//   Plugin(const ccs_plugin_services_v1_t &, const ccs_plugin_job_v1_t &, const config &);
//   ccs_plugin_status_t init();   // undone by the destructor (finalize deletes)
//   address, connect, reachable, am_send, progress
// and, where the plugin provides them, any of wireup_complete, mem_reg,
// mem_dereg, rkey_pack, rkey_unpack, rkey_release, put, get,
// am_send_nocopy, rkey_ptr, atomic, wakeup_fd with wakeup_arm, am_send_placeable,
// am_send_concurrent, rma_concurrent, am_parked_fetch with am_parked_release. An operation the class
// lacks is left NULL, and the core gives it the typed stub (CCS_PLUGIN_ERR_UNSUPPORTED) or its fallback.
#pragma once

#include "core_services.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <new>
#include <string>

namespace ccs::plugin {

namespace table_detail {

template <typename Plugin>
Plugin *self(void *state) {
    return static_cast<Plugin *>(state);
}

// A configuration it cannot read fails query and init alike, logged.
template <typename Plugin>
bool configure(const core_services &core, typename Plugin::config &cfg) {
    std::string reason;
    if (Plugin::read_config(core, cfg, reason)) return true;
    core.log(CCS_PLUGIN_LOG_ERROR, reason);
    return false;
}

template <typename Plugin>
ccs_plugin_status_t query(const ccs_plugin_services_v1_t *services, ccs_plugin_attr_v1_t *attr) {
    const core_services core(*services, Plugin::name);
    typename Plugin::config cfg;
    if (!configure<Plugin>(core, cfg)) return CCS_PLUGIN_ERR_INVALID;
    return Plugin::query(core, cfg, *attr);
}

template <typename Plugin>
ccs_plugin_status_t init(const ccs_plugin_services_v1_t *services, const ccs_plugin_job_v1_t *job, void **out) {
    typename Plugin::config cfg;
    if (!configure<Plugin>(core_services(*services, Plugin::name), cfg)) return CCS_PLUGIN_ERR_INVALID;
    auto *p = new (std::nothrow) Plugin(*services, *job, cfg);
    if (!p) return CCS_PLUGIN_ERR_NO_MEMORY;
    const ccs_plugin_status_t st = p->init();
    if (st != CCS_PLUGIN_OK) {
        delete p;
        return st;
    }
    *out = p;
    return CCS_PLUGIN_OK;
}

}  // namespace table_detail

template <typename Plugin>
constexpr ccs_plugin_v1_t make_table() {
    using table_detail::self;
    ccs_plugin_v1_t t{};
    t.struct_size = sizeof(ccs_plugin_v1_t);
    t.abi_version = CCS_PLUGIN_ABI_VERSION_1;
    t.name = Plugin::name;
    t.query = table_detail::query<Plugin>;
    t.init = table_detail::init<Plugin>;
    t.finalize = [](void *p) { delete self<Plugin>(p); };
    t.address = [](void *p, void *buffer, size_t *length) { return self<Plugin>(p)->address(buffer, length); };
    t.connect = [](void *p, const void *const *addresses, const size_t *lengths) {
        return self<Plugin>(p)->connect(addresses, lengths);
    };
    t.reachable = [](void *p, int32_t peer) -> int32_t { return self<Plugin>(p)->reachable(peer) ? 1 : 0; };
    t.am_send = [](void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
        return self<Plugin>(p)->am_send(peer, iov, count);
    };
    t.progress = [](void *p) -> int32_t { return self<Plugin>(p)->progress(); };
    if constexpr (requires(Plugin &p) { p.wireup_complete(); })
        t.wireup_complete = [](void *p) { return self<Plugin>(p)->wireup_complete(); };
    if constexpr (requires(Plugin &p, void *a, size_t n, void **h) { p.mem_reg(a, n, h); }) {
        t.mem_reg = [](void *p, void *addr, size_t length, void **memh) {
            return self<Plugin>(p)->mem_reg(addr, length, memh);
        };
        t.mem_dereg = [](void *p, void *memh) { self<Plugin>(p)->mem_dereg(memh); };
        t.rkey_pack = [](void *p, void *memh, void *buffer, size_t *length) {
            return self<Plugin>(p)->rkey_pack(memh, buffer, length);
        };
        t.rkey_unpack = [](void *p, int32_t peer, const void *buffer, size_t length, void **rkey) {
            return self<Plugin>(p)->rkey_unpack(peer, buffer, length, rkey);
        };
        t.rkey_release = [](void *p, void *rkey) { self<Plugin>(p)->rkey_release(rkey); };
    }
    if constexpr (requires(Plugin &p, const ccs_plugin_iov_v1_t *l, const ccs_plugin_remote_v1_t *r) {
                      p.put(0, l, size_t{}, r, size_t{}, nullptr, uint64_t{});
                  })
        t.put = [](void *p, int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                   const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
            return self<Plugin>(p)->put(peer, local, nlocal, remote, nremote, rkey, token);
        };
    if constexpr (requires(Plugin &p, const ccs_plugin_buffer_v1_t *l, const ccs_plugin_remote_v1_t *r) {
                      p.get(0, l, size_t{}, r, size_t{}, nullptr, uint64_t{});
                  })
        t.get = [](void *p, int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                   const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
            return self<Plugin>(p)->get(peer, local, nlocal, remote, nremote, rkey, token);
        };
    if constexpr (requires(Plugin &p, const ccs_plugin_iov_v1_t *iov) { p.am_send_nocopy(0, iov, size_t{}, uint64_t{}); })
        t.am_send_nocopy = [](void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
            return self<Plugin>(p)->am_send_nocopy(peer, iov, count, token);
        };
    if constexpr (requires(Plugin &p, void **local) { p.rkey_ptr(nullptr, uint64_t{}, size_t{}, local); })
        t.rkey_ptr = [](void *p, void *rkey, uint64_t remote, size_t length, void **local) {
            return self<Plugin>(p)->rkey_ptr(rkey, remote, length, local);
        };
    if constexpr (requires(Plugin &p) { p.atomic(0, 0u, 0u, uint64_t{}, uint64_t{}, uint64_t{}, nullptr, nullptr, uint64_t{}); })
        t.atomic = [](void *p, int32_t peer, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                      uint64_t compare, void *result, void *rkey, uint64_t token) {
            return self<Plugin>(p)->atomic(peer, op, width, remote, operand, compare, result, rkey, token);
        };
    if constexpr (requires(Plugin &p, const ccs_plugin_iov_v1_t *iov) { p.am_send_placeable(0, iov, size_t{}, uint64_t{}); })
        t.am_send_placeable = [](void *p, int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
            return self<Plugin>(p)->am_send_placeable(peer, iov, count, token);
        };
    if constexpr (requires(Plugin &p) { p.am_send_concurrent(); })
        t.am_send_concurrent = [](void *p) { return self<Plugin>(p)->am_send_concurrent(); };
    if constexpr (requires(Plugin &p) { p.rma_concurrent(); })
        t.rma_concurrent = [](void *p) { return self<Plugin>(p)->rma_concurrent(); };
    if constexpr (requires(Plugin & p) { p.am_parked_release(uint64_t{}); }) {
        t.am_parked_fetch = [](void *p, uint64_t parked, void *to, size_t length, uint64_t placement) {
            return self<Plugin>(p)->am_parked_fetch(parked, to, length, placement);
        };
        t.am_parked_release = [](void *p, uint64_t parked) { self<Plugin>(p)->am_parked_release(parked); };
    }
    if constexpr (requires(Plugin &p) { p.wakeup_arm(); }) {
        t.wakeup_fd = [](void *p) -> int32_t { return self<Plugin>(p)->wakeup_fd(); };
        t.wakeup_arm = [](void *p) { return self<Plugin>(p)->wakeup_arm(); };
    }
    return t;
}

}  // namespace ccs::plugin
