// RMA carried in active messages on the core's internal context: the
// fallback for transports without native put/get (and the forced mode the
// conformance suite also runs), and datadesc operations of small pieces,
// which travel with their remote layout for the target to unpack or pack
// (rma_engine::sends_layouts). The target checks every access against
// the registration the initiator's key names (its handle), so a stale key
// or a forged address touches nothing.
//
//   put request  args {token, handle}        payload {n, n x (addr, length), data}
//   get request  args {token, handle}        payload {n, n x (addr, length)}
//   put layout   args {token, addr, count, layout bytes, handle}   payload {layout, data}
//   get layout   args {token, addr, count, layout bytes, handle}   payload {layout}
//   reply        args {token, status}        payload: get's data
//   key request  args {token, addr, length}
//   key reply    args {token, status}        payload: packed key
//   key revoked  args {handle}               (the owner deregistered it)
#include "core/rma/rma_engine.hpp"
#include "core/rma/rma_wire.hpp"

#include "datadesc/layout_copy.hpp"
#include "datadesc/layout_wire.hpp"
#include "core/rma/segments.hpp"
#include "util/error.hpp"
#include "util/range.hpp"

#include <ccs/datadesc.h>

#include <cstring>

namespace ccs {

ccs_status_t rma_engine::install(internal_handlers &handlers, std::function<void()> wait_progress) {
    const ccs_status_t st = handlers.reserve("rma", handler_count, first_handler_);
    if (st != CCS_OK) return st;
    wait_progress_ = std::move(wait_progress);
    const auto set = [&](handler_offset at, ccs_am_handler_fn fn) {
        handlers.set(static_cast<uint16_t>(first_handler_ + at), fn, this);
    };
    set(put_request, &rma_engine::on_put_request);
    set(get_request, &rma_engine::on_get_request);
    set(reply_to, &rma_engine::on_reply);
    set(key_request, &rma_engine::on_key_request);
    set(key_reply, &rma_engine::on_key_reply);
    set(key_revoked, &rma_engine::on_key_revoked);
    set(put_layout, &rma_engine::on_put_layout);
    set(get_layout, &rma_engine::on_get_layout);
    set(atomic_request, &rma_engine::on_atomic_request);
    set(accumulate_request, &rma_engine::on_accumulate_request);
    set(accumulate_reply, &rma_engine::on_accumulate_reply);
    set(indexed_request, &rma_engine::on_indexed_request);
    set(indexed_reply, &rma_engine::on_indexed_reply);
    memory_.on_revoke = [this](int holder, uint64_t handle) { revoke(holder, handle); };
    return CCS_OK;
}

void rma_engine::reply(int to, uint16_t handler, uint64_t token, ccs_status_t status, const void *data, size_t length) {
    context &internal = *contexts_.by_id(context_table::internal_id);
    const uint64_t args[2] = {token, static_cast<uint64_t>(status)};
    // A refusal carries its reason: every refusing path here ends in
    // fail(), which left it as this thread's last error.
    const std::string why = status == CCS_OK ? std::string() : last_error();
    if (status != CCS_OK) {
        data = why.data();
        length = why.size();
    }
    // A failed reply means the requester died: nobody is left to tell.
    (void)am_.send(internal, to, static_cast<uint16_t>(first_handler_ + handler), args, 2, data, length, nullptr);
}

namespace {

// The reason a refusing reply carries (rma_engine::reply).
std::string refusal_text(const ccs_am_message_t *m) {
    return std::string(static_cast<const char *>(m->payload), m->payload_size);
}

}  // namespace

std::string rma_engine::refused(const request &r, const ccs_am_message_t *m) {
    return "rank " + std::to_string(r.op.target) + " refused it: " + refusal_text(m);
}

void rma_engine::issue_emulated(request &r) {
    ++stats_.emulated;
    r.at = stage::in_flight;
    const rma_operation &op = r.op;
    context &internal = *contexts_.by_id(context_table::internal_id);
    const uint64_t token = r.token;
    std::vector<uint8_t> payload =
        write_piece_list(op.remote.data(), op.remote.size(), op.writes_remote() ? op.local.bytes() : 0);
    if (op.writes_remote()) gather(op.local.data(), op.local.size(), payload.data() + 8 + 16 * op.remote.size());
    const auto handler = static_cast<uint16_t>(first_handler_ + (op.writes_remote() ? put_request : get_request));
    const uint64_t args[2] = {token, key_handle(r)};
    const ccs_status_t st = am_.send(internal, op.target, handler, args, 2, payload.data(), payload.size(), nullptr);
    if (st != CCS_OK) finish(r, st, last_error());
}

// Whether [addr, addr + length) may be reached through the key whose
// registration is `handle`: inside it, and it still live.
static ccs_status_t check_reach(const memory_registry &memory, uint64_t handle, uint64_t addr, uint64_t length) {
    if (length == 0) return CCS_OK;
    return memory.check_access(handle, addr, length);
}

// Reads and checks a request: its piece list well formed, followed by
// exactly their bytes (put) or nothing (get), every piece inside the
// registration the key names.
static ccs_status_t read_request(const ccs_am_message_t *m, bool with_data, const memory_registry &memory,
                                 piece_list &request) {
    if (m->nargs < 2 || !read_piece_list(static_cast<const uint8_t *>(m->payload), m->payload_size, request) ||
        request.data_length != (with_data ? request.total : 0))
        return fail(CCS_ERR_INTERNAL, "a malformed RMA request");
    for (const auto &seg : request.pieces)
        if (const ccs_status_t st = check_reach(memory, m->args[1], seg.address, seg.length); st != CCS_OK) return st;
    return CCS_OK;
}

void rma_engine::on_put_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    piece_list q;
    const ccs_status_t st = read_request(m, true, self->memory_, q);
    if (st == CCS_OK) scatter(q.data, q.pieces.data(), q.pieces.size());
    self->reply(m->source, reply_to, m->args[0], st, nullptr, 0);
}

void rma_engine::on_get_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    piece_list q;
    const ccs_status_t st = read_request(m, false, self->memory_, q);
    if (st != CCS_OK) return self->reply(m->source, reply_to, m->args[0], st, nullptr, 0);
    if (q.pieces.size() == 1)  // straight from memory
        return self->reply(m->source, reply_to, m->args[0], CCS_OK,
                           reinterpret_cast<const void *>(q.pieces[0].address), q.pieces[0].length);
    std::vector<uint8_t> gathered(q.total);
    gather(q.pieces.data(), q.pieces.size(), gathered.data());
    self->reply(m->source, reply_to, m->args[0], CCS_OK, gathered.data(), gathered.size());
}

// A datadesc operation whole: the remote layout written out, a put's data
// packed behind it packet by packet by the AM engine; the target does the
// rest (on_put_layout, on_get_layout).
void rma_engine::issue_layouts(request &r) {
    ++stats_.emulated;
    ++stats_.by_layout;
    r.at = stage::in_flight;
    const rma_layouts &w = *r.op.whole;
    std::vector<uint8_t> layout;
    dd::layout_to_bytes(w.remote_dd, layout);
    am_engine::payload_source payload{layout.data(), layout.size(), nullptr, 0};
    if (r.op.writes_remote() && w.bytes() > 0)
        payload = {w.local, layout.size() + w.bytes(), w.local_dd.compiled, w.local_count, layout.data(), layout.size()};
    const uint64_t args[5] = {r.token, w.remote, static_cast<uint64_t>(w.remote_count), layout.size(), key_handle(r)};
    context &internal = *contexts_.by_id(context_table::internal_id);
    const auto handler = static_cast<uint16_t>(first_handler_ + (r.op.writes_remote() ? put_layout : get_layout));
    const ccs_status_t st = am_.send(internal, r.op.target, handler, args, 5, payload, nullptr);
    if (st != CCS_OK) finish(r, st, last_error());
}

// A layout request as read: the layout, where it lies here, how many
// elements (`bytes` in all), and what follows the layout in the payload.
struct layout_request {
    ccs_datadesc_s dd;
    uint8_t *at = nullptr;
    int64_t count = 0, bytes = 0;
    const uint8_t *data = nullptr;
    size_t length = 0;
};

// Reads a layout request, checked as carefully as a segment list: every
// byte the layout touches inside the registration the key names.
static ccs_status_t read_layout_request(const ccs_am_message_t *m, const memory_registry &memory, layout_request &q) {
    if (m->nargs < 5 || m->args[3] > m->payload_size || m->args[2] > static_cast<uint64_t>(INT64_MAX))
        return fail(CCS_ERR_INTERNAL, "a malformed RMA layout request");
    const auto *p = static_cast<const uint8_t *>(m->payload);
    if (dd::layout_from_bytes(p, m->args[3], q.dd) != CCS_OK)
        return fail(CCS_ERR_INTERNAL, "an RMA layout request with a malformed layout");
    q.count = static_cast<int64_t>(m->args[2]);
    if (__builtin_mul_overflow(q.count, q.dd.size, &q.bytes))
        return fail(CCS_ERR_INTERNAL, "an RMA layout request whose size overflows");
    uint64_t first = 0, span = 0;
    switch (place_layout(q.dd, q.count, m->args[1], first, span)) {
    case layout_fit::too_wide: return fail(CCS_ERR_INTERNAL, "an RMA layout request wider than 64 bits");
    case layout_fit::outside: return fail(CCS_ERR_NOT_REGISTERED, "an RMA layout that reaches beyond the address space");
    case layout_fit::fits: break;
    }
    if (const ccs_status_t st = check_reach(memory, m->args[4], first, span); st != CCS_OK) return st;
    q.at = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(m->args[1]));
    q.data = p + m->args[3];
    q.length = m->payload_size - m->args[3];
    return CCS_OK;
}

void rma_engine::on_put_layout(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    layout_request q;
    ccs_status_t st = read_layout_request(m, self->memory_, q);
    if (st == CCS_OK && q.length != static_cast<uint64_t>(q.bytes))
        st = fail(CCS_ERR_INTERNAL, "an RMA layout put whose data is not the layout's size");
    if (st == CCS_OK) dd::copy_layouts(q.at, q.count, q.dd, q.data, q.bytes, ccs_datadesc_byte_);
    self->reply(m->source, reply_to, m->args[0], st, nullptr, 0);
}

void rma_engine::on_get_layout(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    layout_request q;
    ccs_status_t st = read_layout_request(m, self->memory_, q);
    if (st == CCS_OK && q.length != 0) st = fail(CCS_ERR_INTERNAL, "an RMA layout get that carries data");
    if (st != CCS_OK) return self->reply(m->source, reply_to, m->args[0], st, nullptr, 0);
    std::vector<uint8_t> packed(static_cast<size_t>(q.bytes));
    dd::copy_layouts(packed.data(), q.bytes, ccs_datadesc_byte_, q.at, q.count, q.dd);
    self->reply(m->source, reply_to, m->args[0], CCS_OK, packed.data(), packed.size());
}

void rma_engine::on_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 2) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;  // failed already (peer death raced the reply)
    request &r = it->second;
    auto st = static_cast<ccs_status_t>(m->args[1]);
    std::string why;
    if (st != CCS_OK) why = refused(r, m);
    if (st == CCS_OK && !r.op.writes_remote()) {
        if (m->payload_size != r.op.bytes()) {
            st = CCS_ERR_INTERNAL;
            why = "the reply holds " + std::to_string(m->payload_size) + " bytes";
        } else if (const auto &w = r.op.whole) {
            dd::copy_layouts(w->local, w->local_count, w->local_dd, static_cast<const uint8_t *>(m->payload),
                             static_cast<int64_t>(m->payload_size), ccs_datadesc_byte_);
        } else {
            scatter(static_cast<const uint8_t *>(m->payload), r.op.local.data(), r.op.local.size());
        }
    }
    self->finish(r, st, why);
    self->requests_.erase(it);
}

void rma_engine::on_key_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 3) return;
    std::vector<uint8_t> key;
    const ccs_status_t st =
        self->memory_.key_for_range(m->source, m->args[1], m->args[2], self->memory_.expose_all, key);
    self->reply(m->source, key_reply, m->args[0], st, key.data(), key.size());
}

void rma_engine::on_key_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 2) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end()) return;
    request &r = it->second;
    auto st = static_cast<ccs_status_t>(m->args[1]);
    if (st != CCS_OK)
        return self->finish(m->args[0], st, "rank " + std::to_string(r.op.target) + " gave no key: " + refusal_text(m));
    uint64_t id = 0;
    if ((st = self->keys_.adopt_implicit(r.op.target, m->payload, m->payload_size, r.lo, r.hi, id)) != CCS_OK)
        return self->finish(m->args[0], st, last_error());
    r.key_id = id;
    r.at = stage::ready;
    self->issue(r);
    if (r.at == stage::done) self->requests_.erase(it);
}

void rma_engine::revoke(int holder, uint64_t handle) {
    if (holder == rank_ || am_.peer_has_failed(holder)) return;
    context &internal = *contexts_.by_id(context_table::internal_id);
    (void)am_.send(internal, holder, static_cast<uint16_t>(first_handler_ + key_revoked), &handle, 1, nullptr, 0,
                   nullptr);
}

void rma_engine::on_key_revoked(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    self->stats_.keys_revoked += self->keys_.revoke(m->source, m->args[0]);
}

}  // namespace ccs
