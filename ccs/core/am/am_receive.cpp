// Receive side of the AM engine: packet validation, reassembly of
// fragments, reorder by sequence number, handler dispatch, self delivery.
#include "core/am/am_engine.hpp"

#include "util/log.hpp"

#include <cstring>

namespace ccs {
void am_engine::drop_malformed(int source, const char *why) {
    ++stats_.dropped_malformed;
    log_message(log_level::warn,
                "dropped a malformed packet from rank " + std::to_string(source) + ": " + why);
}

void am_engine::deliver(int source, const void *packet, size_t length) try {
    // Called from a plugin's progress (C frames): nothing may throw past here.
    const auto *bytes = static_cast<const uint8_t *>(packet);
    if (source < 0 || static_cast<size_t>(source) >= peers_.size() || length < sizeof(wire::header))
        return drop_malformed(source, "too short or bad source");
    wire::header h;
    std::memcpy(&h, bytes, sizeof h);
    if (h.nargs > CCS_AM_MAX_ARGS) return drop_malformed(source, "too many arguments");
    const bool fragmented = (h.flags & wire::fragment) != 0;
    const size_t args_bytes = h.nargs * sizeof(uint64_t);
    const size_t head = sizeof h + args_bytes + (fragmented ? sizeof(wire::fragment_header) : 0);
    if (head > length || h.length > length - head) return drop_malformed(source, "length mismatch");
    uint64_t args[CCS_AM_MAX_ARGS];
    std::memcpy(args, bytes + sizeof h, args_bytes);

    context *ctx = contexts_.by_id(h.context);
    if (!ctx) {
        if (!contexts_.was_created(h.context)) return drop_malformed(source, "unknown context id");
        ++stats_.dropped_destroyed_context;
        return;
    }
    if (!fragmented) return on_message(source, *ctx, h, args, bytes + head, h.length);

    wire::fragment_header f;
    std::memcpy(&f, bytes + sizeof h + args_bytes, sizeof f);
    if (f.total == 0 || f.total > wire::max_message_bytes || f.offset > f.total || h.length > f.total - f.offset)
        return drop_malformed(source, "fragment outside its message");
    if (h.flags & wire::abandoned) return drop_abandoned(source, *ctx, h, f);
    const uint64_t key = static_cast<uint64_t>(source) << 32 | f.message;
    auto it = partial_.find(key);
    if (it != partial_.end() && it->second.abandoned) {  // a fragment that went before the refusal
        partial_message &pm = it->second;
        pm.received += h.length;
        ++stats_.fragments_received;
        if (pm.received >= pm.abandoned_after) partial_.erase(it);
        return;
    }
    if (it == partial_.end()) {
        partial_message pm;
        pm.header = h;
        std::memcpy(pm.args.data(), args, args_bytes);
        pm.data = buffers_.take(f.total);
        it = partial_.emplace(key, std::move(pm)).first;
    } else if (it->second.data.size() != f.total) {
        return drop_malformed(source, "fragment disagrees with its message's size");
    }
    partial_message &pm = it->second;
    std::memcpy(pm.data.data() + f.offset, bytes + head, h.length);
    pm.received += h.length;
    ++stats_.fragments_received;
    if (pm.received < f.total) return;
    partial_message whole = std::move(pm);
    partial_.erase(it);
    whole.header.length = 0;  // the reassembled size is whole.data.size()
    on_message(source, *ctx, whole.header, whole.args.data(), whole.data.data(), whole.data.size(), &whole.data);
    buffers_.give_back(std::move(whole.data));  // unless a reorder buffer took it
} catch (const std::exception &e) {
    ++stats_.dropped_malformed;
    log_message(log_level::error, std::string("dropped a message: ") + e.what());
}

void am_engine::context_destroyed(uint16_t id) {
    for (auto it = partial_.begin(); it != partial_.end();)
        it = it->second.header.context == id ? partial_.erase(it) : std::next(it);
}

void am_engine::drop_abandoned(int source, context &ctx, const wire::header &h, const wire::fragment_header &f) {
    if (h.length != 0 || f.offset == 0)
        return drop_malformed(source, "notice of an abandoned message with payload or nothing sent");
    const uint64_t key = static_cast<uint64_t>(source) << 32 | f.message;
    // Without an entry none of its fragments arrived yet (a transport that
    // does not order): the entry then waits for them.
    partial_message &pm = partial_[key];
    if (pm.abandoned) return drop_malformed(source, "message abandoned twice");
    pm.header.context = h.context;  // released with its context
    pm.abandoned = true;
    pm.abandoned_after = f.offset;
    buffers_.give_back(std::move(pm.data));
    if (pm.received >= pm.abandoned_after) partial_.erase(key);
    if (!(h.flags & wire::sequenced)) return;
    switch (ctx.receive_order(source).skip(h.seq)) {
    case reorder_buffer<stored_message>::verdict::deliver:
        return deliver_held(ctx, source);
    case reorder_buffer<stored_message>::verdict::early:
        return;
    case reorder_buffer<stored_message>::verdict::duplicate:
        return drop_malformed(source, "abandoned message's sequence number already used");
    }
}

void am_engine::deliver_held(context &ctx, int source) {
    auto &order = ctx.receive_order(source);
    while (auto next = order.next()) {
        dispatch(ctx, source, next->handler, next->args.data(), next->nargs, next->payload.data(), next->payload.size(),
                 next->large, next->parked.held() ? &next->parked : nullptr);
        buffers_.give_back(std::move(next->payload));
    }
}

void am_engine::on_message(int source, context &ctx, const wire::header &h, const uint64_t *args,
                           const uint8_t *payload, size_t length, byte_buffer *owned, parked_payload *parked) {
    const bool large = (h.flags & wire::large) != 0;
    if (!(h.flags & wire::sequenced))
        return dispatch(ctx, source, h.handler, args, h.nargs, payload, length, large, parked);
    auto &order = ctx.receive_order(source);
    switch (order.classify(h.seq)) {
    case reorder_buffer<stored_message>::verdict::deliver:
        dispatch(ctx, source, h.handler, args, h.nargs, payload, length, large, parked);
        if (order.waiting()) deliver_held(ctx, source);
        return;
    case reorder_buffer<stored_message>::verdict::early: {
        stored_message m;
        m.context = ctx.id();
        m.handler = h.handler;
        m.nargs = h.nargs;
        m.large = large;
        std::memcpy(m.args.data(), args, h.nargs * sizeof(uint64_t));
        m.payload = owned ? std::move(*owned) : buffers_.copy_of(payload, length);
        if (parked) m.parked = std::move(*parked);
        order.hold(h.seq, std::move(m));
        ++stats_.reordered;
        return;
    }
    case reorder_buffer<stored_message>::verdict::duplicate:
        return drop_malformed(source, "duplicate sequence number");
    }
}

void am_engine::dispatch(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                         const void *payload, size_t length, bool large, parked_payload *parked) {
    // Behind messages already waiting for the application's thread too,
    // so the context's order holds.
    if ((deferring_ || ctx.deferred > 0) && !ctx.handlers_on_progress_thread()) [[unlikely]] {
        stored_message m;
        m.context = ctx.id();
        m.handler = handler;
        m.nargs = static_cast<uint8_t>(nargs);
        m.large = large;
        std::memcpy(m.args.data(), args, nargs * sizeof(uint64_t));
        m.payload = buffers_.copy_of(static_cast<const uint8_t *>(payload), length);
        if (parked) m.parked = std::move(*parked);
        deferred_bytes_ += length;
        deferred_.push_back({source, std::move(m)});
        ++ctx.deferred;
        return;
    }
    dispatch_now(ctx, source, handler, args, nargs, payload, length, large, parked);
}

int am_engine::run_deferred() {
    int events = complete_all(deferred_completions_);
    // Only what waits now: a handler's own sends to self come later.
    size_t count = deferred_.size();
    while (count-- > 0) {
        deferred_message d = std::move(deferred_.front());
        deferred_.pop_front();
        deferred_bytes_ -= d.message.payload.size();
        ++events;
        context *ctx = contexts_.by_id(d.message.context);
        if (!ctx) {
            ++stats_.dropped_destroyed_context;
        } else {
            --ctx->deferred;
            dispatch_now(*ctx, d.source, d.message.handler, d.message.args.data(), d.message.nargs,
                         d.message.payload.data(), d.message.payload.size(), d.message.large,
                         d.message.parked.held() ? &d.message.parked : nullptr);
        }
        buffers_.give_back(std::move(d.message.payload));
    }
    return events;
}

void am_engine::dispatch_now(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                             const void *payload, size_t length, bool large, parked_payload *parked) {
    ++depth_;
    // A large message's header, and any message to a header handler: the
    // header sink decides (and answers a large one's sender).
    if ((large || (handler < CCS_AM_MAX_HANDLERS && ctx.handler(handler).header_fn)) && header_sink_) [[unlikely]] {
        header_sink_->on_header(ctx, source, handler, args, nargs, static_cast<const uint8_t *>(payload), length, large,
                                parked);
    } else if (handler >= CCS_AM_MAX_HANDLERS || !ctx.handler(handler).fn) {
        ++stats_.unknown_handler;
        ctx.report_error(CCS_ERR_UNKNOWN_HANDLER, source,
                         "message from rank " + std::to_string(source) +
                             " dropped: no handler registered under id " + std::to_string(handler));
    } else {
        const context::handler_slot slot = ctx.handler(handler);
        const ccs_am_message_t m{ctx.handle(), source, handler, nargs, args, payload, length};
        ++stats_.received;
        slot.fn(&m, slot.arg);
    }
    --depth_;
}

int am_engine::deliver_self() {
    // Only what is queued now: handlers may send to self again.
    size_t count = self_queue_.size();
    int events = 0;
    while (count-- > 0) {
        stored_message m = std::move(self_queue_.front());
        self_queue_.pop_front();
        ++events;
        context *ctx = contexts_.by_id(m.context);
        if (!ctx) {
            ++stats_.dropped_destroyed_context;
            continue;
        }
        dispatch(*ctx, rank_, m.handler, m.args.data(), m.nargs, m.payload.data(), m.payload.size(), m.large);
        buffers_.give_back(std::move(m.payload));
    }
    return events;
}

}  // namespace ccs
