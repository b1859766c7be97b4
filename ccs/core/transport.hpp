// One plugin as used by this process: the loaded library, its attributes,
// its state after init, and the services the core hands it.
#pragma once

#include "core/bootstrap/bootstrap.hpp"
#include "core/plugin/plugin_loader.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccs {

class transport;

// Receives the packets a transport delivers (the AM engine).
class packet_sink {
public:
    virtual void deliver(int source, const void *packet, size_t length) = 0;
    virtual void peer_failed(int peer, const std::string &reason) = 0;
    // An am_send_nocopy that answered IN_PROGRESS finished.
    virtual void send_complete(uint64_t token, ccs_plugin_status_t status) = 0;
    // Where the payload of a placeable packet goes, or null (ccs_plugin_v1.h:
    // am_place); then placed() with the same `placement`.
    virtual void *place(int source, const void *head, size_t head_length, size_t length, uint64_t &placement) = 0;
    virtual void placed(uint64_t placement, ccs_plugin_status_t status) = 0;
    // A placeable packet whose payload `route` keeps as `parked`
    // (ccs_plugin_v1.h: am_deliver_parked): true if taken, then fetched or
    // let go through `route` later; false: nothing delivered.
    virtual bool deliver_parked(int source, const void *head, size_t head_length, size_t length,
                                std::weak_ptr<transport> route, uint64_t parked) = 0;
    // The lock around sends to `peer` (ccs_plugin_v1.h: peer_send_lock).
    virtual void peer_send_lock(int peer, bool take) = 0;

protected:
    ~packet_sink() = default;
};

// Receives the completions of puts and gets that finished later (the RMA
// engine).
class rma_sink {
public:
    virtual void rma_complete(uint64_t token, ccs_plugin_status_t status) = 0;

protected:
    ~rma_sink() = default;
};

// Lends local memory registered with every transport, for a transport's
// DMA (ccs_plugin_v1.h: local_acquire): the memory registry.
class local_memory_lender {
public:
    // `t`'s handle for a region holding [addr, addr + length), or null;
    // `hold` is given back to take_back.
    virtual void *lend(const transport &t, const void *addr, size_t length, void *&hold) = 0;
    virtual void take_back(void *hold) = 0;
    // [addr, addr + length) is about to be unmapped; from any thread.
    virtual void unmapped(const void *addr, size_t length) = 0;

protected:
    ~local_memory_lender() = default;
};

ccs_status_t status_from_plugin(ccs_plugin_status_t status);
const char *plugin_status_name(ccs_plugin_status_t status);

class transport {
public:
    explicit transport(std::unique_ptr<loaded_plugin> library);
    ~transport();
    transport(const transport &) = delete;
    transport &operator=(const transport &) = delete;

    const std::string &name() const { return library_->file().name; }
    const std::string &path() const { return library_->file().path; }
    const ccs_plugin_attr_v1_t &attr() const { return attr_; }
    bool ordered() const { return (attr_.caps & CCS_PLUGIN_CAP_AM_ORDERED) != 0; }
    bool node_scope() const { return attr_.scope == CCS_PLUGIN_SCOPE_NODE; }

    // Each returns a status and, on failure, a reason naming the plugin.
    ccs_status_t query(std::string &reason);
    ccs_status_t init(const ccs_plugin_job_v1_t &job, packet_sink *sink, std::string &reason);
    ccs_status_t address(blob &out, std::string &reason);
    // all[r] is rank r's address, present[r] false where rank r has none.
    ccs_status_t connect(const std::vector<blob> &all, const std::vector<bool> &present,
                         std::string &reason);
    bool reachable(int peer) const { return table().reachable(state_, peer) != 0; }
    ccs_status_t wireup_complete(std::string &reason);

    ccs_plugin_status_t send(int peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
        return table().am_send(state_, peer, iov, count);
    }
    // The packet's bytes stay untouched until send_complete(token) when this
    // answers IN_PROGRESS (see ccs_plugin_v1.h).
    ccs_plugin_status_t send_nocopy(int peer, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
        return table().am_send_nocopy(state_, peer, iov, count, token);
    }
    // A no-copy packet whose target places the payload itself.
    ccs_plugin_status_t send_placeable(int peer, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
        return table().am_send_placeable(state_, peer, iov, count, token);
    }
    int progress() { return table().progress(state_); }
    // Payloads kept for the core's decision (ccs_plugin_v1.h:
    // am_deliver_parked, am_parked_fetch, am_parked_release).
    bool parks_payloads() const { return table().parks_payloads; }
    // Expires when this transport goes, before its plugin's finalize.
    std::weak_ptr<transport> handle() const { return alive_; }
    ccs_plugin_status_t parked_fetch(uint64_t parked, void *to, size_t length, uint64_t placement) {
        return table().am_parked_fetch(state_, parked, to, length, placement);
    }
    void parked_release(uint64_t parked) { table().am_parked_release(state_, parked); }

    // Memory and one-sided operations (see ccs_plugin_v1.h).
    bool native_put() const { return (attr_.caps & CCS_PLUGIN_CAP_PUT) != 0; }
    bool native_get() const { return (attr_.caps & CCS_PLUGIN_CAP_GET) != 0; }
    void set_rma_sink(rma_sink *sink) { rma_sink_ = sink; }
    // Null: the plugin is told no memory can be lent (at teardown); then
    // returns once no memory hook of the plugin is still inside the lender.
    void set_lender(local_memory_lender *lender);
    ccs_plugin_status_t mem_reg(void *addr, size_t length, void **memh) {
        return table().mem_reg(state_, addr, length, memh);
    }
    void mem_dereg(void *memh) { table().mem_dereg(state_, memh); }
    ccs_plugin_status_t rkey_pack(void *memh, void *buffer, size_t *length) {
        return table().rkey_pack(state_, memh, buffer, length);
    }
    ccs_plugin_status_t rkey_unpack(int peer, const void *buffer, size_t length, void **rkey) {
        return table().rkey_unpack(state_, peer, buffer, length, rkey);
    }
    void rkey_release(void *rkey) { table().rkey_release(state_, rkey); }
    // Where the owner's [remote, remote + length) is mapped here, or null.
    void *rkey_ptr(void *rkey, uint64_t remote, size_t length) {
        void *local = nullptr;
        return table().rkey_ptr(state_, rkey, remote, length, &local) == CCS_PLUGIN_OK ? local : nullptr;
    }
    ccs_plugin_status_t put(int peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
        return table().put(state_, peer, local, nlocal, remote, nremote, rkey, token);
    }
    ccs_plugin_status_t get(int peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
        return table().get(state_, peer, local, nlocal, remote, nremote, rkey, token);
    }
    // Atomics the plugin carries out itself (ccs_plugin_v1.h: atomic).
    bool native_atomics() const { return (attr_.caps & CCS_PLUGIN_CAP_ATOMIC) != 0; }
    ccs_plugin_status_t atomic(int peer, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                               uint64_t compare, void *result, void *rkey, uint64_t token) {
        return table().atomic(state_, peer, op, width, remote, operand, compare, result, rkey, token);
    }

    // Sleeping until it has something (ccs_plugin_v1.h: wakeup_fd, wakeup_arm).
    int wakeup_fd() { return table().wakeup_fd(state_); }
    ccs_plugin_status_t wakeup_arm() { return table().wakeup_arm(state_); }
    // Whether sends to different peers may run at once from now on
    // (ccs_plugin_v1.h: am_send_concurrent); asked once, remembered.
    bool sends_concurrently() {
        if (!concurrent_asked_) {
            concurrent_ = table().am_send_concurrent(state_) == CCS_PLUGIN_OK;
            concurrent_asked_ = true;
        }
        return concurrent_;
    }
    // Whether puts and gets may run from several threads beside the
    // plugin's other calls (ccs_plugin_v1.h: rma_concurrent); likewise.
    bool rma_concurrently() {
        if (!rma_concurrent_asked_) {
            rma_concurrent_ = table().rma_concurrent(state_) == CCS_PLUGIN_OK;
            rma_concurrent_asked_ = true;
        }
        return rma_concurrent_;
    }

private:
    const plugin_table &table() const { return library_->table(); }
    std::string describe(const char *what, ccs_plugin_status_t status) const;

    static void service_log(void *core, int32_t level, const char *message);
    static const char *service_param_get(void *core, const char *name, const char *default_value,
                                         const char *description);
    static void service_am_deliver(void *core, int32_t source, const void *packet, size_t length);
    static void service_peer_failed(void *core, int32_t peer, const char *reason);
    static void service_rma_complete(void *core, uint64_t token, ccs_plugin_status_t status);
    static void service_am_send_complete(void *core, uint64_t token, ccs_plugin_status_t status);
    static void *service_am_place(void *core, int32_t source, const void *head, size_t head_length, size_t length,
                                  uint64_t *placement);
    static void service_am_placed(void *core, uint64_t placement, ccs_plugin_status_t status);
    static int32_t service_am_deliver_parked(void *core, int32_t source, const void *head, size_t head_length,
                                             size_t length, uint64_t parked);
    static void service_peer_send_lock(void *core, int32_t peer, int32_t take);
    static void *service_local_acquire(void *core, const void *addr, size_t length, void **hold);
    static void service_local_release(void *core, void *hold);
    static void service_mem_unmapped(void *core, const void *addr, size_t length);
    static int32_t service_mem_shareable(void *core, const void *addr, size_t length, int32_t *fd, uint64_t *offset,
                                         uint64_t *id);

    std::unique_ptr<loaded_plugin> library_;
    ccs_plugin_services_v1_t services_{};
    ccs_plugin_attr_v1_t attr_{};
    void *state_ = nullptr;
    // Owns nothing: its weak handles (parked payloads) learn that this
    // transport is gone.
    std::shared_ptr<transport> alive_{this, [](transport *) {}};
    bool initialized_ = false;
    bool concurrent_asked_ = false;
    bool concurrent_ = false;
    bool rma_concurrent_asked_ = false;
    bool rma_concurrent_ = false;
    packet_sink *sink_ = nullptr;
    rma_sink *rma_sink_ = nullptr;
    // Read by memory hooks on any thread; in_hooks_ counts those inside.
    std::atomic<local_memory_lender *> lender_{nullptr};
    std::atomic<int> in_hooks_{0};
    bool logging_into_reason_ = false;  // during query: keep the last line logged
    std::string last_log_;
    std::map<std::string, std::string> param_values_;  // keeps returned strings alive
};

}  // namespace ccs
