// RMA carried in active messages on the core's internal context: the
// fallback for transports without native put/get (and the forced mode the
// conformance suite also runs). The target checks every access against
// what it registered, so a stale or forged address touches nothing.
//
//   put request  args {token}                payload {addr, length, data}
//   get request  args {token, addr, length}
//   reply        args {token, status}        payload: get's data
//   key request  args {token, addr, length}
//   key reply    args {token, status}        payload: packed key
#include "rma/rma_engine.hpp"

#include "util/error.hpp"

#include <cstring>

namespace ccs {
namespace {

enum handler_offset : uint16_t { put_request = 0, get_request = 1, reply_to = 2, key_request = 3, key_reply = 4 };

}  // namespace

void rma_engine::install(context &internal, uint16_t first_handler, std::function<void()> wait_progress) {
    first_handler_ = first_handler;
    wait_progress_ = std::move(wait_progress);
    internal.handler(first_handler + put_request) = {&rma_engine::on_put_request, this};
    internal.handler(first_handler + get_request) = {&rma_engine::on_get_request, this};
    internal.handler(first_handler + reply_to) = {&rma_engine::on_reply, this};
    internal.handler(first_handler + key_request) = {&rma_engine::on_key_request, this};
    internal.handler(first_handler + key_reply) = {&rma_engine::on_key_reply, this};
}

void rma_engine::reply(int to, uint16_t handler, uint64_t token, ccs_status_t status, const void *data, size_t length) {
    context &internal = *contexts_.by_id(context_table::internal_id);
    const uint64_t args[2] = {token, static_cast<uint64_t>(status)};
    // A failed reply means the requester died: nobody is left to tell.
    (void)am_.send(internal, to, static_cast<uint16_t>(first_handler_ + handler), args, 2, data, length, nullptr);
}

void rma_engine::issue_emulated(request &r) {
    ++stats_.emulated;
    r.at = stage::in_flight;
    context &internal = *contexts_.by_id(context_table::internal_id);
    const uint64_t token = r.token;
    ccs_status_t st;
    if (r.is_put) {
        std::vector<uint8_t> payload(16 + r.length);
        const uint64_t head[2] = {r.remote, r.length};
        std::memcpy(payload.data(), head, sizeof head);
        std::memcpy(payload.data() + 16, r.local, r.length);
        st = am_.send(internal, r.target, static_cast<uint16_t>(first_handler_ + put_request), &token, 1,
                      payload.data(), payload.size(), nullptr);
    } else {
        const uint64_t args[3] = {token, r.remote, r.length};
        st = am_.send(internal, r.target, static_cast<uint16_t>(first_handler_ + get_request), args, 3, nullptr, 0,
                      nullptr);
    }
    if (st != CCS_OK) finish(token, st);
}

void rma_engine::on_put_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    uint64_t head[2] = {0, 0};
    ccs_status_t st = CCS_OK;
    if (m->payload_size < sizeof head) {
        st = CCS_ERR_INTERNAL;
    } else {
        std::memcpy(head, m->payload, sizeof head);
        if (head[1] != m->payload_size - sizeof head) st = CCS_ERR_INTERNAL;
        else if (head[1] > 0 && !self->memory_.covering(head[0], head[1]) && !self->memory_.expose_all)
            st = CCS_ERR_NOT_REGISTERED;
    }
    if (st == CCS_OK && head[1] > 0)
        std::memmove(reinterpret_cast<void *>(head[0]), static_cast<const uint8_t *>(m->payload) + sizeof head, head[1]);
    self->reply(m->source, reply_to, m->args[0], st, nullptr, 0);
}

void rma_engine::on_get_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 3) return;
    const uint64_t addr = m->args[1], length = m->args[2];
    if (length > 0 && !self->memory_.covering(addr, length) && !self->memory_.expose_all)
        return self->reply(m->source, reply_to, m->args[0], CCS_ERR_NOT_REGISTERED, nullptr, 0);
    self->reply(m->source, reply_to, m->args[0], CCS_OK, reinterpret_cast<const void *>(addr), length);
}

void rma_engine::on_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 2) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;  // failed already (peer death raced the reply)
    request &r = it->second;
    auto st = static_cast<ccs_status_t>(m->args[1]);
    if (st == CCS_OK && !r.is_put) {
        if (m->payload_size != r.length) st = CCS_ERR_INTERNAL;
        else std::memcpy(r.local, m->payload, r.length);
    }
    self->finish(r, st);
}

void rma_engine::on_key_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 3) return;
    std::vector<uint8_t> key;
    const ccs_status_t st = self->memory_.key_for_range(m->args[1], m->args[2], self->memory_.expose_all, key);
    self->reply(m->source, key_reply, m->args[0], st, key.data(), key.size());
}

void rma_engine::on_key_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 2) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;
    request &r = it->second;
    auto st = static_cast<ccs_status_t>(m->args[1]);
    if (st != CCS_OK) return self->finish(r, st);
    key_contents c;
    remote_key k;
    k.owner = r.target;
    k.implicit = true;
    k.t = self->route_[static_cast<size_t>(r.target)];
    if (!ccs::unpack_key(m->payload, m->payload_size, c) ||
        key_from_contents(c, r.target, self->rank_, k.t, k.plugin_key) != CCS_OK)
        return self->finish(r, CCS_ERR_INVALID_KEY);
    k.base = c.base;
    k.length = c.length;
    const uint64_t id = self->add_key(k);
    self->implicit_[r.target].push_back(id);
    r.key_id = id;
    r.at = stage::ready;
    self->issue(r);
}

}  // namespace ccs
