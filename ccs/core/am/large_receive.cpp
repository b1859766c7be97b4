// Receiving a large message: the header handler runs, then accept copies an
// eager payload, has the RMA engine read it from the sender, or asks the
// sender to write it (large_write.cpp) or to push it (pieces placed by the
// transport or copied here); refuse answers at once, and a message neither
// decided waits under its token.
#include "core/am/large_am.hpp"

#include "datadesc/copy_kernels.hpp"
#include "datadesc/layout_wire.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/log.hpp"

#include <cstring>

namespace ccs {

void large_am::on_header(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                         const uint8_t *payload, size_t length, bool large, parked_payload *parked) {
    incoming in;
    in.ctx = ctx.id();
    in.source = source;
    in.eager = true;
    in.size = length;
    in.data = payload;
    if (large) {
        wire::large_view v;
        std::string why;
        if (!wire::read_large(payload, length, v, why, parked ? parked->length() : 0)) {
            am_.drop_malformed(source, ("large message: " + why).c_str());
            return;
        }
        in.op = v.header.op;
        in.size = v.header.size;
        in.eager = v.header.mode == static_cast<uint8_t>(wire::large_mode::eager);
        in.push = v.header.mode == static_cast<uint8_t>(wire::large_mode::push);
        in.data = v.data;
        if (parked) in.parked = std::move(*parked);
        if (!in.eager && !in.push) {
            in.address = v.header.address;
            in.count = v.header.count;
            in.key.assign(v.key, v.key + v.header.key_length);
            if (v.layout) in.layout.assign(v.layout, v.layout + v.header.layout_length);
        }
    }
    const context::handler_slot slot = handler < CCS_AM_MAX_HANDLERS ? ctx.handler(handler) : context::handler_slot{};
    if (!slot.header_fn) {  // a large message to an ordinary handler, or to none
        const std::string what = "no header handler under id " + std::to_string(handler) + " in context '" +
                                 ctx.name() + "' on rank " + std::to_string(rank_);
        ctx.report_error(CCS_ERR_UNKNOWN_HANDLER, source,
                         "large message from rank " + std::to_string(source) + " dropped: " + what);
        answer(source, in.op, CCS_ERR_UNKNOWN_HANDLER, what);
        return;
    }
    const uint64_t token = next_token_++;
    ++stats_.received;
    const uint64_t size = in.size;
    const uint8_t *eager_data = in.eager ? in.data : nullptr;
    waiting_.emplace(token, std::move(in));
    const ccs_am_header_t h{ctx.handle(), source, handler, nargs, args, size, eager_data, {token}};
    slot.header_fn(&h, slot.arg);
    const auto it = waiting_.find(token);
    if (it == waiting_.end()) return;  // decided in the handler
    ++stats_.deferred;
    incoming &later = it->second;
    if (later.eager && later.size > 0 && !later.parked.held()) {  // the packet goes away
        later.kept.assign(later.data, later.data + later.size);
        later.data = later.kept.data();
    }
}

ccs_status_t large_am::accept(const char *call, uint64_t token, const destination &to,
                              const ccs_completion_t *completion) {
    const auto it = waiting_.find(token);
    if (it == waiting_.end())
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": token " + std::to_string(token) +
                                             " names no undecided message (accepted or refused already, never "
                                             "handed out, or its context was destroyed)");
    incoming in = std::move(it->second);
    waiting_.erase(it);
    const std::string prefix = std::string(call) + ": ";
    if (to.dd) {
        int64_t bytes = 0;
        if (__builtin_mul_overflow(to.count, to.dd->size, &bytes) || static_cast<uint64_t>(bytes) != in.size)
            return fail_message(in, CCS_ERR_INVALID_ARG,
                                prefix + "the destination's datadesc holds " +
                                    (bytes < 0 ? std::string("too many") : std::to_string(bytes)) +
                                    " bytes, the message carries " + std::to_string(in.size));
    } else if (to.length < in.size) {
        return fail_message(in, CCS_ERR_INVALID_ARG,
                            prefix + "the destination of " + std::to_string(to.length) +
                                " bytes is smaller than the message's " + std::to_string(in.size));
    }
    if (am_.peer_has_failed(in.source))
        return fail(CCS_ERR_PEER_FAILED, prefix + "rank " + std::to_string(in.source) + ", the sender, has failed");
    if (in.parked.held()) return accept_parked(in, to, completion);
    return in.eager ? accept_eager(in, to, completion) : accept_fetch(call, in, to, completion);
}

std::unique_ptr<large_am::transfer> large_am::new_transfer(const incoming &in, const ccs_completion_t *completion) {
    auto t = std::make_unique<transfer>();
    t->self = this;
    t->id = next_transfer_++;
    t->ctx = in.ctx;
    t->source = in.source;
    t->op = in.op;
    if (wants_completion(completion)) t->completion = *completion;
    return t;
}

ccs_status_t large_am::accept_parked(incoming &in, const destination &to, const ccs_completion_t *completion) {
    std::unique_ptr<transfer> t = new_transfer(in, completion);
    if (to.dd) {  // unpacked from pushed pieces as they come, the sender's send let go
        in.parked.release();
        return ask_for_push(in, std::move(t), to);
    }
    t->pushed = true;
    t->to = to;
    t->size = in.size;
    t->placing = 1;
    t->placing_bytes = in.size;
    const uint64_t id = t->id;
    transfers_.emplace(id, std::move(t));
    const uint64_t args[2] = {id, 0};
    const ccs_status_t st = am_.fetch_parked(in.parked, to.base, this, in.source, args, 2);
    if (st != CCS_OK) {
        transfers_.erase(id);
        return fail_message(in, st,
                            "fetching the payload from rank " + std::to_string(in.source) + ": " + ccs_last_error());
    }
    ++stats_.fetched;
    return CCS_OK;
}

ccs_status_t large_am::accept_eager(incoming &in, const destination &to, const ccs_completion_t *completion) {
    if (in.size > 0) {
        if (to.dd)
            dd::transfer<dd::direction::unpack>(*to.dd->compiled, to.count, to.base, 0, const_cast<uint8_t *>(in.data),
                                                static_cast<int64_t>(in.size));
        else
            std::memcpy(to.base, in.data, in.size);
    }
    if (wants_completion(completion)) am_.add_completion({*completion, CCS_OK, {}, in.ctx});
    answer(in.source, in.op, CCS_OK, {});
    return CCS_OK;
}

ccs_status_t large_am::accept_fetch(const char *call, incoming &in, const destination &to,
                                    const ccs_completion_t *completion) {
    const std::string from = std::string(call) + ": reading the payload from rank " + std::to_string(in.source);
    std::unique_ptr<transfer> t = new_transfer(in, completion);
    if (in.push || (in.layout.empty() && in.source != rank_ && !rma_.native(in.source, false)))
        return ask_for_push(in, std::move(t), to);
    ccs_status_t st = keys_.take(in.source, in.key, t->key);
    if (st != CCS_OK) return fail_message(in, st, from + ": " + ccs_last_error());
    if (in.layout.empty() && !to.dd && rma_.node_route(in.source) && rma_.native(in.source, true) &&
        !rma_.maps(in.source, t->key, in.address, in.size)) {
        keys_.give_back(t->key);
        t->key = {};
        return ask_to_write(in, std::move(t), to);
    }
    if (!in.layout.empty()) {
        t->remote_dd = std::make_unique<ccs_datadesc_s>();
        int64_t bytes = 0;
        st = dd::layout_from_bytes(in.layout.data(), in.layout.size(), *t->remote_dd);
        if (st == CCS_OK && (__builtin_mul_overflow(in.count, t->remote_dd->size, &bytes) ||
                             static_cast<uint64_t>(bytes) != in.size))
            st = fail(CCS_ERR_INVALID_ARG, "the sender's layout does not hold the message's size");
        if (st != CCS_OK) {
            keys_.give_back(t->key);
            return fail_message(in, st, from + ": " + ccs_last_error());
        }
    }
    // The engine walks both sides as layouts when either is one.
    const bool layouts = to.dd || t->remote_dd;
    const auto size = static_cast<size_t>(in.size);
    const auto bytes = static_cast<int64_t>(in.size);
    rma_request q;
    q.kind = rma_kind::get;
    q.target = in.source;
    q.local = {reinterpret_cast<uintptr_t>(to.base), size, to.dd ? to.dd : (layouts ? &ccs_datadesc_byte_ : nullptr),
               to.dd ? to.count : (layouts ? bytes : 0)};
    q.remote = {in.address, size, t->remote_dd ? t->remote_dd.get() : (layouts ? &ccs_datadesc_byte_ : nullptr),
                t->remote_dd ? in.count : (layouts ? bytes : 0)};
    q.key = t->key;
    const ccs_completion_t done{&large_am::on_fetched, t.get(), nullptr};
    q.completion = &done;
    transfer &kept = *t;
    transfers_.emplace(kept.id, std::move(t));
    st = rma_.start(*contexts_.by_id(in.ctx), q);
    if (st != CCS_OK) {
        const std::string why = ccs_last_error();
        keys_.give_back(kept.key);
        transfers_.erase(kept.id);
        return fail_message(in, st, from + ": " + why);
    }
    ++stats_.fetched;
    return CCS_OK;
}

void large_am::on_fetched(ccs_status_t status, void *arg) {
    auto *t = static_cast<transfer *>(arg);
    large_am &self = *t->self;
    const std::string detail =
        status == CCS_OK ? std::string() : "reading the payload from rank " + std::to_string(t->source) + ": " + ccs_last_error();
    self.keys_.give_back(t->key);
    self.answer(t->source, t->op, status, self.who() + ": " + detail);
    self.am_.complete_or_defer({t->completion, status, detail, t->ctx});
    self.transfers_.erase(t->id);
}

ccs_status_t large_am::ask_for_push(incoming &in, std::unique_ptr<transfer> t, const destination &to) {
    t->pushed = true;
    t->to = to;
    t->size = in.size;
    const uint64_t args[2] = {in.op, t->id};
    const uint64_t id = t->id;
    transfers_.emplace(id, std::move(t));
    const ccs_status_t st = am_.send(*contexts_.by_id(context_table::internal_id), in.source,
                                     answer_handler_ + pull_at, args, 2, am_engine::payload_source{}, nullptr);
    if (st != CCS_OK) {
        transfers_.erase(id);
        return st;
    }
    ++stats_.fetched;
    return CCS_OK;
}

bool large_am::piece_fits(const transfer &t, int source, uint64_t offset, uint64_t length) {
    return t.pushed && !t.written && t.source == source && offset <= t.size && length <= t.size - offset &&
           length <= t.size - t.received - t.placing_bytes;
}

void large_am::on_piece(const ccs_am_message_t *m, void *arg) {
    auto &self = *static_cast<large_am *>(arg);
    if (m->nargs != 2) return self.am_.drop_malformed(m->source, "large message piece without its two words");
    const auto it = self.transfers_.find(m->args[0]);
    // Ended: its context went, or the sender failed.
    if (it == self.transfers_.end() || it->second->ending) return;
    transfer &t = *it->second;
    const uint64_t offset = m->args[1];
    if (!piece_fits(t, m->source, offset, m->payload_size))
        return self.am_.drop_malformed(m->source, "large message piece outside its message");
    auto *from = static_cast<uint8_t *>(const_cast<void *>(m->payload));
    if (t.to.dd)
        dd::transfer<dd::direction::unpack>(*t.to.dd->compiled, t.to.count, t.to.base, static_cast<int64_t>(offset),
                                            from, static_cast<int64_t>(m->payload_size));
    else if (m->payload_size > 0)
        std::memcpy(t.to.base + offset, from, m->payload_size);
    t.received += m->payload_size;
    if (t.received == t.size) self.finish_push(t.id, CCS_OK, {});
}

uint8_t *large_am::place(int source, const uint64_t *args, size_t nargs, size_t length) {
    if (nargs != 2) return nullptr;
    const auto it = transfers_.find(args[0]);
    if (it == transfers_.end()) return nullptr;
    transfer &t = *it->second;
    const uint64_t offset = args[1];
    // A datadesc destination is unpacked from the delivered piece; anything
    // out of bounds is delivered too, and dropped there as malformed.
    if (t.ending || t.to.dd || !piece_fits(t, source, offset, length)) return nullptr;
    ++t.placing;
    t.placing_bytes += length;
    return t.to.base + offset;
}

void large_am::placed(int source, const uint64_t *args, size_t, size_t length, ccs_plugin_status_t status) {
    const auto it = transfers_.find(args[0]);
    if (it == transfers_.end()) return;
    transfer &t = *it->second;
    --t.placing;
    t.placing_bytes -= length;
    if (status == CCS_PLUGIN_OK) {
        t.received += length;
    } else if (!t.ending) {
        t.ending = true;
        t.end_status = status_from_plugin(status);
        t.end_detail = "a piece of the payload from rank " + std::to_string(source) +
                       " was lost: " + plugin_status_name(status);
    }
    if (t.ending) {
        if (t.placing == 0) finish_push(t.id, t.end_status, t.end_detail);
    } else if (t.received == t.size) {
        finish_push(t.id, CCS_OK, {});
    }
}

size_t large_am::placing(uint16_t ctx) const {
    size_t n = 0;
    for (const auto &kv : transfers_)
        if (kv.second->ctx == ctx) n += kv.second->placing;
    return n;
}

void large_am::finish_push(uint64_t id, ccs_status_t status, const std::string &detail) {
    const auto it = transfers_.find(id);
    if (it == transfers_.end()) return;
    if (it->second->placing > 0) {  // the transport still writes into the destination
        transfer &t = *it->second;
        if (!t.ending) {
            t.ending = true;
            t.end_status = status;
            t.end_detail = detail;
        }
        return;
    }
    const std::unique_ptr<transfer> t = std::move(it->second);
    transfers_.erase(it);
    if (t->mem.id) registrations_.give_back(t->mem);
    answer(t->source, t->op, status, who() + ": " + detail);
    am_.add_completion({t->completion, status, detail, t->ctx});
}

void large_am::end_pushed(const std::function<bool(const transfer &)> &which, ccs_status_t status,
                          const std::string &detail) {
    std::vector<uint64_t> ending;  // finish_push erases from transfers_
    for (const auto &kv : transfers_)
        if (kv.second->pushed && which(*kv.second)) ending.push_back(kv.first);
    for (const uint64_t id : ending) finish_push(id, status, detail);
}

ccs_status_t large_am::refuse(uint64_t token) {
    const auto it = waiting_.find(token);
    if (it == waiting_.end())
        return fail(CCS_ERR_INVALID_ARG, "ccs_am_refuse: token " + std::to_string(token) +
                                             " names no undecided message (accepted or refused already, never "
                                             "handed out, or its context was destroyed)");
    const incoming in = std::move(it->second);
    waiting_.erase(it);
    ++stats_.refused;
    answer(in.source, in.op, CCS_ERR_REFUSED, who() + "'s header handler refused it");
    return CCS_OK;
}

ccs_status_t large_am::fail_message(incoming &in, ccs_status_t here, const std::string &detail) {
    ++stats_.refused;
    answer(in.source, in.op, CCS_ERR_REFUSED, who() + " could not take it: " + detail);
    return fail(here, detail);
}

void large_am::context_destroyed(uint16_t ctx) {
    cancel_queued(ctx);
    keys_.release_unused();
    end_pushed([ctx](const transfer &t) { return t.ctx == ctx; }, CCS_ERR_CANCELED,
               "the context was destroyed while its payload came");
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->second.ctx != ctx) {
            ++it;
            continue;
        }
        answer(it->second.source, it->second.op, CCS_ERR_CANCELED,
               who() + " destroyed the context before it accepted or refused the message");
        it = waiting_.erase(it);
    }
}

}  // namespace ccs
