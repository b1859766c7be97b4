#include "transport.hpp"

#include "core/memory/shared_allocation.hpp"

#include "util/log.hpp"
#include "util/params.hpp"
#include "util/poll_gap.hpp"

#include <cctype>

namespace ccs {

ccs_status_t status_from_plugin(ccs_plugin_status_t status) {
    switch (status) {
    case CCS_PLUGIN_OK: return CCS_OK;
    case CCS_PLUGIN_ERR_NO_MEMORY: return CCS_ERR_NO_MEMORY;
    case CCS_PLUGIN_ERR_INVALID: return CCS_ERR_INVALID_ARG;
    case CCS_PLUGIN_ERR_UNSUPPORTED: return CCS_ERR_UNSUPPORTED;
    case CCS_PLUGIN_ERR_PEER_FAILED: return CCS_ERR_PEER_FAILED;
    case CCS_PLUGIN_ERR_ACCESS: return CCS_ERR_OUT_OF_RANGE;
    case CCS_PLUGIN_ERR_LIMIT: return CCS_ERR_NO_RESOURCES;
    default: return CCS_ERR_TRANSPORT;
    }
}

const char *plugin_status_name(ccs_plugin_status_t status) {
    switch (status) {
    case CCS_PLUGIN_OK: return "ok";
    case CCS_PLUGIN_AGAIN: return "try again";
    case CCS_PLUGIN_ERR_NO_DEVICE: return "no device";
    case CCS_PLUGIN_ERR_NO_MEMORY: return "out of memory";
    case CCS_PLUGIN_ERR_INVALID: return "invalid argument";
    case CCS_PLUGIN_ERR_UNSUPPORTED: return "operation not provided by the plugin";
    case CCS_PLUGIN_ERR_PEER_FAILED: return "peer failed";
    case CCS_PLUGIN_ERR_TRANSPORT: return "transport error";
    case CCS_PLUGIN_ERR_SYSTEM: return "system call failed";
    case CCS_PLUGIN_IN_PROGRESS: return "in progress";
    case CCS_PLUGIN_ERR_ACCESS: return "remote memory refused the access";
    case CCS_PLUGIN_ERR_LIMIT: return "registration limit reached";
    default: return "unknown plugin status";
    }
}

transport::transport(std::unique_ptr<loaded_plugin> library) : library_(std::move(library)) {
    services_.struct_size = sizeof services_;
    services_.core = this;
    services_.log = &transport::service_log;
    services_.param_get = &transport::service_param_get;
    services_.am_deliver = &transport::service_am_deliver;
    services_.peer_failed = &transport::service_peer_failed;
    services_.rma_complete = &transport::service_rma_complete;
    services_.mem_shareable = &transport::service_mem_shareable;
    services_.am_send_complete = &transport::service_am_send_complete;
    services_.am_place = &transport::service_am_place;
    services_.am_placed = &transport::service_am_placed;
    services_.peer_send_lock = &transport::service_peer_send_lock;
    services_.local_acquire = &transport::service_local_acquire;
    services_.local_release = &transport::service_local_release;
    services_.mem_unmapped = &transport::service_mem_unmapped;
    services_.am_deliver_parked = &transport::service_am_deliver_parked;
}

transport::~transport() {
    alive_.reset();  // the plugin's finalize ends the payloads it kept
    if (initialized_) table().finalize(state_);
}

std::string transport::describe(const char *what, ccs_plugin_status_t status) const {
    return "plugin '" + name() + "' (" + path() + "): " + what + " failed: " +
           plugin_status_name(status) + " (" + std::to_string(status) + ")";
}

ccs_status_t transport::query(std::string &reason) {
    attr_ = ccs_plugin_attr_v1_t{};
    attr_.struct_size = sizeof attr_;
    // What the plugin logs while it answers is why it is unusable.
    last_log_.clear();
    logging_into_reason_ = true;
    const ccs_plugin_status_t st = table().query(&services_, &attr_);
    logging_into_reason_ = false;
    attr_.description[sizeof attr_.description - 1] = '\0';
    if (st != CCS_PLUGIN_OK) {
        reason = describe("query", st) + (last_log_.empty() ? "" : ": " + last_log_);
        return CCS_ERR_PLUGIN_INIT;
    }
    if (!(attr_.caps & CCS_PLUGIN_CAP_AM) || attr_.am_max_packet < 256 ||
        (attr_.scope != CCS_PLUGIN_SCOPE_NODE && attr_.scope != CCS_PLUGIN_SCOPE_NETWORK)) {
        reason = "plugin '" + name() + "' (" + path() +
                 "): attributes unusable (needs AM capability, a scope, packets >= 256 bytes)";
        return CCS_ERR_PLUGIN_INIT;
    }
    return CCS_OK;
}

ccs_status_t transport::init(const ccs_plugin_job_v1_t &job, packet_sink *sink, std::string &reason) {
    sink_ = sink;
    const ccs_plugin_status_t st = table().init(&services_, &job, &state_);
    if (st != CCS_PLUGIN_OK) {
        reason = describe("init", st);
        return CCS_ERR_PLUGIN_INIT;
    }
    initialized_ = true;
    return CCS_OK;
}

ccs_status_t transport::address(blob &out, std::string &reason) {
    out.assign(4096, 0);
    size_t length = out.size();
    const ccs_plugin_status_t st = table().address(state_, out.data(), &length);
    if (st != CCS_PLUGIN_OK || length > out.size()) {
        reason = describe("address", st == CCS_PLUGIN_OK ? CCS_PLUGIN_ERR_INVALID : st);
        return CCS_ERR_PLUGIN_INIT;
    }
    out.resize(length);
    return CCS_OK;
}

ccs_status_t transport::connect(const std::vector<blob> &all, const std::vector<bool> &present,
                                std::string &reason) {
    std::vector<const void *> addresses(all.size(), nullptr);
    std::vector<size_t> lengths(all.size(), 0);
    for (size_t r = 0; r < all.size(); ++r) {
        if (!present[r]) continue;
        addresses[r] = all[r].data();
        lengths[r] = all[r].size();
    }
    const ccs_plugin_status_t st = table().connect(state_, addresses.data(), lengths.data());
    if (st != CCS_PLUGIN_OK) {
        reason = describe("connect", st);
        return CCS_ERR_PLUGIN_INIT;
    }
    return CCS_OK;
}

ccs_status_t transport::wireup_complete(std::string &reason) {
    const ccs_plugin_status_t st = table().wireup_complete(state_);
    if (st != CCS_PLUGIN_OK) {
        reason = describe("wireup_complete", st);
        return CCS_ERR_PLUGIN_INIT;
    }
    return CCS_OK;
}

void transport::service_log(void *core, int32_t level, const char *message) {
    auto *self = static_cast<transport *>(core);
    if (self->logging_into_reason_ && message) self->last_log_ = message;
    const int clamped = level < 1 ? 1 : (level > 4 ? 4 : level);
    log_message(static_cast<log_level>(clamped), self->name() + ": " + (message ? message : ""));
}

const char *transport::service_param_get(void *core, const char *name, const char *default_value,
                                         const char *description) {
    auto *self = static_cast<transport *>(core);
    std::string var = "CCS_";
    for (char c : self->name()) var.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    var += "_";
    var += name ? name : "";
    const std::string value =
        param_get(var, default_value ? default_value : "", description ? description : "");
    auto &slot = self->param_values_[var];
    if (slot != value) slot = value;  // keep earlier pointers valid when unchanged
    return slot.c_str();
}

void transport::service_am_deliver(void *core, int32_t source, const void *packet, size_t length) {
    auto *self = static_cast<transport *>(core);
    if (self->sink_) self->sink_->deliver(source, packet, length);
}

void transport::service_peer_failed(void *core, int32_t peer, const char *reason) {
    auto *self = static_cast<transport *>(core);
    if (self->sink_) self->sink_->peer_failed(peer, "plugin '" + self->name() + "': " + (reason ? reason : "peer failed"));
}

void transport::service_rma_complete(void *core, uint64_t token, ccs_plugin_status_t status) {
    auto *self = static_cast<transport *>(core);
    if (self->rma_sink_) self->rma_sink_->rma_complete(token, status);
}

void transport::service_am_send_complete(void *core, uint64_t token, ccs_plugin_status_t status) {
    auto *self = static_cast<transport *>(core);
    if (self->sink_) self->sink_->send_complete(token, status);
}

void *transport::service_am_place(void *core, int32_t source, const void *head, size_t head_length, size_t length,
                                  uint64_t *placement) {
    auto *self = static_cast<transport *>(core);
    if (!self->sink_ || !head || !placement) return nullptr;
    return self->sink_->place(source, head, head_length, length, *placement);
}

void transport::service_am_placed(void *core, uint64_t placement, ccs_plugin_status_t status) {
    auto *self = static_cast<transport *>(core);
    if (self->sink_) self->sink_->placed(placement, status);
}

int32_t transport::service_am_deliver_parked(void *core, int32_t source, const void *head, size_t head_length,
                                             size_t length, uint64_t parked) {
    auto *self = static_cast<transport *>(core);
    // Only from a plugin that can fetch or let go what it offers, and not
    // once this transport is going (its finalize may still deliver).
    if (!self->sink_ || !head || parked == 0 || !self->parks_payloads() || !self->alive_) return 0;
    return self->sink_->deliver_parked(source, head, head_length, length, self->handle(), parked) ? 1 : 0;
}

void transport::service_peer_send_lock(void *core, int32_t peer, int32_t take) {
    auto *self = static_cast<transport *>(core);
    if (self->sink_) self->sink_->peer_send_lock(peer, take != 0);
}

void transport::set_lender(local_memory_lender *lender) {
    lender_.store(lender);
    if (!lender)
        while (in_hooks_.load() != 0) cpu_pause();
}

void *transport::service_local_acquire(void *core, const void *addr, size_t length, void **hold) {
    auto *self = static_cast<transport *>(core);
    local_memory_lender *lender = self->lender_.load(std::memory_order_relaxed);
    if (!lender || !addr || length == 0 || !hold) return nullptr;
    return lender->lend(*self, addr, length, *hold);
}

void transport::service_local_release(void *core, void *hold) {
    auto *self = static_cast<transport *>(core);
    local_memory_lender *lender = self->lender_.load(std::memory_order_relaxed);
    if (lender && hold) lender->take_back(hold);
}

void transport::service_mem_unmapped(void *core, const void *addr, size_t length) {
    auto *self = static_cast<transport *>(core);
    // Counted in before the lender is read: set_lender(nullptr) then waits.
    self->in_hooks_.fetch_add(1);
    if (local_memory_lender *lender = self->lender_.load(); lender && length > 0) lender->unmapped(addr, length);
    self->in_hooks_.fetch_sub(1);
}

int32_t transport::service_mem_shareable(void *, const void *addr, size_t length, int32_t *fd, uint64_t *offset,
                                         uint64_t *id) {
    const shared_allocation *a = shared_allocation_find(reinterpret_cast<uintptr_t>(addr), length);
    if (!a || !fd || !offset || !id) return 0;
    *fd = a->fd;
    *offset = reinterpret_cast<uintptr_t>(addr) - a->addr;
    *id = a->id;
    return 1;
}

}  // namespace ccs
