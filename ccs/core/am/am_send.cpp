// Send side of the AM engine: fast path straight into the transport, a FIFO
// queue per peer when the transport pushes back, fragmentation of payloads
// larger than the transport's packet.
#include "core/am/am_engine.hpp"

#include "datadesc/copy_kernels.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"
#include "util/log.hpp"

#include <algorithm>
#include <cstring>

namespace ccs {

am_engine::am_engine(context_table &contexts, int rank, int size, size_t queue_limit, size_t buffer_cache)
    : contexts_(contexts), rank_(rank), queue_limit_(queue_limit), buffers_(buffer_cache),
      peers_(static_cast<size_t>(size)) {}

void am_engine::set_route(int peer, transport *route) {
    peer_state &p = peers_[static_cast<size_t>(peer)];
    p.route = route;
    p.max_packet = route->attr().am_max_packet;
    p.nocopy_min = route->attr().am_nocopy_min;
    p.placeable_max = route->attr().am_placeable_max;
    p.sequenced = !route->ordered();
}

void am_engine::pack_payload(const dd::program &layout, int64_t count, const uint8_t *data, const uint8_t *head,
                             size_t head_length, size_t offset, uint8_t *to, size_t length) {
    if (offset < head_length) {
        const size_t n = std::min(length, head_length - offset);
        std::memcpy(to, head + offset, n);
        to += n;
        offset += n;
        length -= n;
    }
    if (length > 0)
        dd::transfer<dd::direction::pack>(layout, count, const_cast<uint8_t *>(data),
                                          static_cast<int64_t>(offset - head_length), to, static_cast<int64_t>(length));
}

byte_buffer am_engine::copy_payload(const payload_source &data) {
    if (!data.layout) return buffers_.copy_of(data.data, data.length);
    byte_buffer out = buffers_.take(data.length);
    pack_payload(*data.layout, data.count, data.data, data.head, data.head_length, 0, out.data(), data.length);
    return out;
}

// Four ways out, tried in this order: to self (queued for the next
// progress), the latency path (one packet from the stack), without a copy
// (one large packet read from the caller's memory until it completes),
// packet by packet with a queue behind when the transport pushes back.
ccs_status_t am_engine::send(context &ctx, int target, uint16_t handler, const uint64_t *args,
                             size_t nargs, const payload_source &data, const ccs_completion_t *completion,
                             uint8_t flags) {
    if (target == rank_) return send_to_self(ctx, handler, args, nargs, data, completion, (flags & wire::large) != 0);
    peer_state &p = peers_[static_cast<size_t>(target)];
    const send_lock::hold hold(p.lock, p.beside);
    if (!p.route) [[unlikely]]
        return fail(CCS_ERR_NO_TRANSPORT, "no transport reaches rank " + std::to_string(target));
    if (p.failed) [[unlikely]]
        return fail(CCS_ERR_PEER_FAILED, "rank " + std::to_string(target) + " has failed: " + failure_);

    wire::header header{};
    header.context = ctx.id();
    header.handler = handler;
    header.nargs = static_cast<uint8_t>(nargs);
    header.flags = flags;
    const bool sequenced = ctx.ordered() && p.sequenced;
    if (sequenced) {
        header.flags |= wire::sequenced;
        header.seq = ctx.next_send_seq(target);  // taken once a packet is accepted
    }
    const size_t packet_bytes = sizeof(wire::header) + nargs * sizeof(uint64_t) + data.length;
    const bool one_packet = packet_bytes <= p.max_packet && !data.layout;
    const bool has_completion = wants_completion(completion);
    // With a completion the payload stays untouched until it runs, so a
    // large contiguous message can go from it: no copy on this side.
    const bool nocopy = one_packet && has_completion && p.nocopy_min && packet_bytes >= p.nocopy_min;

    // The latency path: one packet of contiguous bytes, nothing queued
    // before it. Sent from the stack; only when the transport has no room
    // does it become an `outgoing`.
    if (one_packet && !nocopy && p.queue.empty()) {
        alignas(8) uint8_t head[sizeof(wire::header) + CCS_AM_MAX_ARGS * sizeof(uint64_t)];
        const ccs_plugin_iov_v1_t iov[2] = {{head, write_packet_head(header, args, data.length, head)},
                                            {data.data, data.length}};
        const ccs_plugin_status_t st = p.route->send(target, iov, data.length ? 2 : 1);
        if (st == CCS_PLUGIN_OK) {
            if (sequenced) ctx.take_send_seq(target);
            ++stats_.sent;
            if (has_completion) completions_.push_back({*completion, CCS_OK, {}, ctx.id()});
            return CCS_OK;
        }
        if (st != CCS_PLUGIN_AGAIN) return send_failed(target, p, st);
    }

    outgoing o;
    o.header = header;
    std::copy_n(args, nargs, o.args.begin());
    o.data = data.data;
    o.total = data.length;
    o.layout = data.layout;
    o.layout_count = data.count;
    o.head = data.head;
    o.head_length = data.head_length;
    o.has_completion = has_completion;
    if (has_completion) o.completion = *completion;
    o.fragmented = packet_bytes > p.max_packet;
    if (o.fragmented) {
        o.header.flags |= wire::fragment;
        o.message = p.next_message++;
    }
    if (nocopy && p.queue.empty()) {
        const ccs_plugin_status_t st = send_nocopy(target, p, o);
        if (st == CCS_PLUGIN_OK) {
            if (sequenced) ctx.take_send_seq(target);
            return CCS_OK;
        }
        if (st != CCS_PLUGIN_AGAIN) return send_failed(target, p, st);
    }
    return send_or_queue(target, p, std::move(o), data);
}

bool am_engine::try_send_beside(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                const void *bytes, size_t length, const ccs_completion_t *completion,
                                fast_path::thread_counts &counts) {
    if (target == rank_ || (completion && completion->callback)) return false;
    peer_state &p = peers_[static_cast<size_t>(target)];
    if (!p.beside || sizeof(wire::header) + nargs * sizeof(uint64_t) + length > p.max_packet) return false;
    if (!p.lock.try_take_fast()) return false;
    if (p.failed || !p.queue.empty() || ctx.holding(target)) {
        p.lock.give_fast();
        return false;
    }
    wire::header header{};
    header.context = ctx.id();
    header.handler = handler;
    header.nargs = static_cast<uint8_t>(nargs);
    const bool sequenced = ctx.ordered() && p.sequenced;
    if (sequenced) {
        header.flags |= wire::sequenced;
        header.seq = ctx.next_send_seq(target);
    }
    alignas(8) uint8_t head[sizeof(wire::header) + CCS_AM_MAX_ARGS * sizeof(uint64_t)];
    const ccs_plugin_iov_v1_t iov[2] = {{head, write_packet_head(header, args, length, head)}, {bytes, length}};
    const ccs_plugin_status_t st = p.route->send(target, iov, length ? 2 : 1);
    if (st == CCS_PLUGIN_OK && sequenced) ctx.take_send_seq(target);
    p.lock.give_fast();
    if (st != CCS_PLUGIN_OK) return false;  // the locked path queues it or says why
    fast_path::bump(counts.am_sent);
    if (completion && completion->counter) counter_add(*completion->counter);
    return true;
}

ccs_status_t am_engine::send_placeable(context &internal, int target, uint16_t handler, const uint64_t *args,
                                      size_t nargs, const uint8_t *data, size_t length,
                                      const ccs_completion_t &completion) {
    const payload_source bytes{data, length, nullptr, 0};
    if (target == rank_) return send(internal, target, handler, args, nargs, bytes, &completion);
    peer_state &p = peers_[static_cast<size_t>(target)];
    const send_lock::hold hold(p.lock, p.beside);
    const size_t packet_bytes = sizeof(wire::header) + nargs * sizeof(uint64_t) + length;
    if (!p.route || p.failed || !p.queue.empty() || !p.nocopy_min || packet_bytes < p.nocopy_min ||
        length > placeable_limit(target, nargs))
        return send(internal, target, handler, args, nargs, bytes, &completion);
    outgoing o;
    o.header.context = internal.id();
    o.header.handler = handler;
    o.header.nargs = static_cast<uint8_t>(nargs);
    std::copy_n(args, nargs, o.args.begin());
    o.data = data;
    o.total = length;
    o.has_completion = true;
    o.completion = completion;
    const ccs_plugin_status_t st = send_nocopy(target, p, o, true);
    if (st == CCS_PLUGIN_OK) return CCS_OK;
    if (st != CCS_PLUGIN_AGAIN) return send_failed(target, p, st);
    return send(internal, target, handler, args, nargs, bytes, &completion);
}

ccs_status_t am_engine::send_parkable(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                      const uint8_t *head, size_t head_length, const uint8_t *data, size_t length,
                                      const ccs_completion_t &completion, bool &sent) {
    sent = false;
    if (target == rank_ || length == 0) return CCS_OK;
    peer_state &p = peers_[static_cast<size_t>(target)];
    const send_lock::hold hold(p.lock, p.beside);
    if (!p.route || p.failed || !p.queue.empty() || !p.nocopy_min || !p.route->parks_payloads() ||
        length > placeable_limit(target, nargs))
        return CCS_OK;
    outgoing o;
    o.header.context = ctx.id();
    o.header.handler = handler;
    o.header.nargs = static_cast<uint8_t>(nargs);
    o.header.flags = wire::large;
    const bool sequenced = ctx.ordered() && p.sequenced;
    if (sequenced) {
        o.header.flags |= wire::sequenced;
        o.header.seq = ctx.next_send_seq(target);  // taken once the transport accepts
    }
    std::copy_n(args, nargs, o.args.begin());
    o.data = data;
    o.total = length;
    o.has_completion = true;
    o.completion = completion;
    const ccs_plugin_status_t st = send_nocopy(target, p, o, true, head, head_length);
    if (st == CCS_PLUGIN_AGAIN) return CCS_OK;
    if (st != CCS_PLUGIN_OK) return send_failed(target, p, st);
    if (sequenced) ctx.take_send_seq(target);
    sent = true;
    return CCS_OK;
}

ccs_status_t am_engine::send_to_self(context &ctx, uint16_t handler, const uint64_t *args, size_t nargs,
                                     const payload_source &data, const ccs_completion_t *completion, bool large) {
    // Delivered from the next ccs_progress, never inline, so a handler
    // never runs inside ccs_am_send.
    stored_message m;
    m.context = ctx.id();
    m.handler = handler;
    m.nargs = static_cast<uint8_t>(nargs);
    m.large = large;
    std::copy_n(args, nargs, m.args.begin());
    m.payload = copy_payload(data);
    self_queue_.push_back(std::move(m));
    ++stats_.sent;
    if (wants_completion(completion)) completions_.push_back({*completion, CCS_OK, {}, ctx.id()});
    return CCS_OK;
}

ccs_status_t am_engine::send_or_queue(int target, peer_state &p, outgoing &&o, const payload_source &data) {
    if (p.queue.empty()) {
        for (;;) {
            const ccs_plugin_status_t st = send_packet(target, p, o);
            if (st == CCS_PLUGIN_AGAIN) break;
            if (st != CCS_PLUGIN_OK) {
                // Refused part-way: still this call's error; the target is
                // told to drop the part that went (by the next progress,
                // where a refused notice may call the error handler).
                if (o.started) abandon(target, p, o, st);
                return send_failed(target, p, st);
            }
            if (done(o)) {
                ++stats_.sent;
                finish(o, CCS_OK);
                return CCS_OK;
            }
        }
    }
    // The transport has no room: queue. Without a completion the caller may
    // reuse the buffer at once, so copy; a small message is copied anyway,
    // and a head, which lives only during the send call.
    if (!o.has_completion || !o.fragmented || o.head) {
        o.owned = copy_payload(data);
        o.data = o.owned.data();
        o.layout = nullptr;
        o.head = nullptr;
        o.head_length = 0;
        stats_.queue_bytes += o.owned.size();
        stats_.queue_bytes_peak = std::max(stats_.queue_bytes_peak, stats_.queue_bytes);
    }
    enqueue(target, p, std::move(o));
    return CCS_OK;
}

ccs_status_t am_engine::send_failed(int target, const peer_state &p, ccs_plugin_status_t st) {
    ++stats_.send_errors;
    return fail(status_from_plugin(st), "sending to rank " + std::to_string(target) + " through plugin '" +
                                            p.route->name() + "': " + plugin_status_name(st));
}

size_t am_engine::write_packet_head(wire::header h, const uint64_t *args, size_t chunk, uint8_t *head) {
    const size_t args_bytes = h.nargs * sizeof(uint64_t);
    h.length = static_cast<uint32_t>(chunk);
    std::memcpy(head, &h, sizeof h);
    if (args_bytes) std::memcpy(head + sizeof h, args, args_bytes);
    return sizeof h + args_bytes;
}

size_t am_engine::write_head(const outgoing &o, size_t chunk, uint8_t *head) {
    size_t head_bytes = write_packet_head(o.header, o.args.data(), chunk, head);
    if (o.fragmented) {
        const wire::fragment_header f{o.message, 0, o.total, o.offset};
        std::memcpy(head + head_bytes, &f, sizeof f);
        head_bytes += sizeof f;
    }
    return head_bytes;
}

ccs_plugin_status_t am_engine::send_nocopy(int target, peer_state &p, const outgoing &o, bool placeable,
                                           const uint8_t *inline_head, size_t inline_length) {
    nocopy_send pending;
    pending.head.resize(sizeof(wire::header) + CCS_AM_MAX_ARGS * sizeof(uint64_t) + inline_length);
    const size_t head_bytes = write_head(o, inline_length + o.total, pending.head.data());
    if (inline_length) std::memcpy(pending.head.data() + head_bytes, inline_head, inline_length);
    pending.head.resize(head_bytes + inline_length);
    pending.completion = o.completion;
    pending.target = target;
    pending.context = o.header.context;
    const uint64_t token = next_nocopy_token_++;
    const ccs_plugin_iov_v1_t iov[2] = {{pending.head.data(), pending.head.size()}, {o.data, o.total}};
    const ccs_plugin_status_t st =
        placeable ? p.route->send_placeable(target, iov, 2, token) : p.route->send_nocopy(target, iov, 2, token);
    if (st == CCS_PLUGIN_ERR_UNSUPPORTED) {
        p.nocopy_min = 0;  // not for this peer
        return CCS_PLUGIN_AGAIN;
    }
    if (st != CCS_PLUGIN_IN_PROGRESS && st != CCS_PLUGIN_OK) return st;
    ++stats_.sent;
    ++stats_.sent_nocopy;
    // Moving the vector keeps its bytes where the plugin saw them.
    if (st == CCS_PLUGIN_IN_PROGRESS) nocopy_.emplace(token, std::move(pending));
    else completions_.push_back({o.completion, CCS_OK, {}, o.header.context});
    return CCS_PLUGIN_OK;
}

void am_engine::send_complete(uint64_t token, ccs_plugin_status_t status) {
    auto it = nocopy_.find(token);
    if (it == nocopy_.end()) return;
    if (status != CCS_PLUGIN_OK) ++stats_.send_errors;
    if (status == CCS_PLUGIN_OK) completions_.push_back({it->second.completion, CCS_OK, {}, it->second.context});
    else
        completions_.push_back({it->second.completion, status_from_plugin(status),
                                "message to rank " + std::to_string(it->second.target) + " refused by its plugin: " +
                                    plugin_status_name(status),
                                it->second.context});
    nocopy_.erase(it);
}

ccs_plugin_status_t am_engine::send_packet(int target, peer_state &p, outgoing &o) {
    // A sequenced message is numbered by its first packet the transport
    // accepts (messages to one target leave in queue order, so in order).
    // A notice of an abandoned message carries that message's number.
    context *numbered = nullptr;
    if (!o.started && (o.header.flags & wire::sequenced) && !abandon_notice(o)) {
        numbered = contexts_.by_id(o.header.context);
        if (numbered) o.header.seq = numbered->next_send_seq(target);
    }
    // header | args | [fragment header] assembled on the stack, payload by iov.
    alignas(8) uint8_t head[sizeof(wire::header) + CCS_AM_MAX_ARGS * sizeof(uint64_t) +
                            sizeof(wire::fragment_header)];
    const size_t head_only = o.header.nargs * sizeof(uint64_t) + sizeof(wire::header);
    const size_t chunk =
        o.fragmented ? std::min(o.total - o.offset, p.max_packet - head_only - sizeof(wire::fragment_header)) : o.total;
    const size_t head_bytes = write_head(o, chunk, head);

    const uint8_t *bytes = chunk ? o.data + o.offset : nullptr;  // a notice has no data
    if (o.layout) {  // this packet's share of a noncontiguous payload
        if (scratch_.size() < chunk) scratch_.resize(p.max_packet);
        pack_payload(*o.layout, o.layout_count, o.data, o.head, o.head_length, o.offset, scratch_.data(), chunk);
        bytes = scratch_.data();
    }
    ccs_plugin_iov_v1_t iov[2] = {{head, head_bytes}, {bytes, chunk}};
    const ccs_plugin_status_t st = p.route->send(target, iov, chunk ? 2 : 1);
    if (st == CCS_PLUGIN_OK) {
        if (numbered) numbered->take_send_seq(target);
        o.offset += chunk;
        o.started = true;
        if (o.fragmented && !abandon_notice(o)) ++stats_.fragments_sent;
    }
    return st;
}

void am_engine::finish(outgoing &o, ccs_status_t status, std::string detail) {
    stats_.queue_bytes -= o.owned.size();
    buffers_.give_back(std::move(o.owned));
    if (o.queued) {
        if (context *ctx = contexts_.by_id(o.header.context)) --ctx->queued_sends;
    }
    if (o.has_completion) completions_.push_back({o.completion, status, std::move(detail), o.header.context});
}

void am_engine::queued_send_refused(int target, const peer_state &p, outgoing &o, ccs_plugin_status_t st) {
    ++stats_.send_errors;
    const ccs_status_t status = status_from_plugin(st);
    std::string what = "message to rank " + std::to_string(target) + " (handler " + std::to_string(o.header.handler) +
                       ") refused by plugin '" + p.route->name() + "': " + plugin_status_name(st) +
                       (o.started ? " after part of it was sent" : "");
    if (!o.has_completion) {
        if (context *ctx = contexts_.by_id(o.header.context)) {
            ++depth_;  // error handlers run like callbacks
            ctx->report_error(status, target, what);
            --depth_;
        }
    }
    finish(o, status, std::move(what));
}

void am_engine::abandon(int target, peer_state &p, const outgoing &o, ccs_plugin_status_t why) {
    ++stats_.abandoned;
    if (p.failed || why == CCS_PLUGIN_ERR_PEER_FAILED) return;  // nobody left to tell
    outgoing notice;
    notice.header = o.header;  // its context, and its sequence number if it has one
    notice.header.nargs = 0;
    notice.header.flags |= wire::fragment | wire::abandoned;
    notice.fragmented = true;
    notice.message = o.message;
    // The bytes that went before the refusal, as its offset; as its total
    // too, so it is one packet without payload.
    notice.total = o.offset;
    notice.offset = o.offset;
    // First: a message after it may be waiting for its sequence number.
    p.queue.push_front(std::move(notice));
    if (!p.backlogged) {
        p.backlogged = true;
        backlog_.push_back(target);
    }
}

void am_engine::abandon_notice_refused(int target, const peer_state &p, const outgoing &o, ccs_plugin_status_t st) {
    ++stats_.send_errors;
    if (st == CCS_PLUGIN_ERR_PEER_FAILED) return;  // the peer's failure is reported on its own
    std::string what = "rank " + std::to_string(target) + " was not told to drop the part of a message (handler " +
                       std::to_string(o.header.handler) + ") sent before plugin '" + p.route->name() +
                       "' refused the rest; the notice was refused too (" + plugin_status_name(st) +
                       "): it keeps that part";
    if (o.header.flags & wire::sequenced) what += " and holds back this context's later messages from this rank";
    log_message(log_level::error, what);
    if (context *ctx = contexts_.by_id(o.header.context)) {
        ++depth_;  // error handlers run like callbacks
        ctx->report_error(status_from_plugin(st), target, what);
        --depth_;
    }
}

void am_engine::enqueue(int target, peer_state &p, outgoing &&o) {
    o.queued = true;
    if (context *ctx = contexts_.by_id(o.header.context)) ++ctx->queued_sends;
    ++stats_.queued;
    p.queue.push_back(std::move(o));
    if (!p.backlogged) {
        p.backlogged = true;
        backlog_.push_back(target);
    }
}

int am_engine::push_queue(int target) {
    peer_state &p = peers_[static_cast<size_t>(target)];
    const send_lock::hold hold(p.lock, p.beside);
    int events = 0;
    while (!p.queue.empty()) {
        outgoing &o = p.queue.front();
        const ccs_plugin_status_t st = send_packet(target, p, o);
        if (st == CCS_PLUGIN_AGAIN) break;
        ++events;
        if (st != CCS_PLUGIN_OK) {
            outgoing refused = std::move(o);
            p.queue.pop_front();
            if (abandon_notice(refused)) {
                abandon_notice_refused(target, p, refused, st);
                continue;
            }
            if (refused.started) abandon(target, p, refused, st);
            queued_send_refused(target, p, refused, st);
            continue;
        }
        if (done(o)) {
            if (!abandon_notice(o)) ++stats_.sent;
            finish(o, CCS_OK);
            p.queue.pop_front();
        }
    }
    return events;
}

int am_engine::push_queues() {
    if (backlog_.empty()) return 0;
    int events = 0;
    for (size_t i = 0; i < backlog_.size();) {
        const int target = backlog_[i];
        events += push_queue(target);
        peer_state &p = peers_[static_cast<size_t>(target)];
        if (p.queue.empty()) {
            p.backlogged = false;
            backlog_[i] = backlog_.back();
            backlog_.pop_back();
        } else {
            ++i;
        }
    }
    return events;
}

int am_engine::run_completions() { return complete_all(completions_); }

int am_engine::complete_all(std::vector<pending_completion> &list) {
    if (list.empty()) return 0;
    std::vector<pending_completion> batch;
    batch.swap(list);  // callbacks may send and queue new completions
    ++depth_;
    for (auto &c : batch) complete_or_defer(std::move(c));
    --depth_;
    return static_cast<int>(batch.size());
}

void am_engine::peer_failed(int peer, const std::string &reason) {
    if (peer < 0 || static_cast<size_t>(peer) >= peers_.size()) return;
    peer_state &p = peers_[static_cast<size_t>(peer)];
    const send_lock::hold hold(p.lock, p.beside);
    if (p.failed) return;
    p.failed = true;
    ++stats_.peers_failed;
    const std::string what = "rank " + std::to_string(peer) + " failed: " + reason;
    if (failure_.empty()) failure_ = what;
    log_message(log_level::error, what);
    while (!p.queue.empty()) {
        finish(p.queue.front(), CCS_ERR_PEER_FAILED, what);
        p.queue.pop_front();
    }
    // Sends the transport reads from the caller's memory: a dead peer may
    // never let them finish (UCX's shm lanes cannot report it).
    for (auto it = nocopy_.begin(); it != nocopy_.end();) {
        if (it->second.target != peer) {
            ++it;
            continue;
        }
        completions_.push_back({it->second.completion, CCS_ERR_PEER_FAILED, what, it->second.context});
        it = nocopy_.erase(it);
    }
    // Messages half received from it will never complete.
    for (auto it = partial_.begin(); it != partial_.end();)
        it = (it->first >> 32) == static_cast<uint64_t>(peer) ? partial_.erase(it) : std::next(it);
    if (on_peer_failed_) on_peer_failed_(peer);
    ++depth_;  // error handlers run like callbacks
    contexts_.for_each([&](context &ctx) {
        if (ctx.id() != context_table::internal_id) ctx.report_error(CCS_ERR_PEER_FAILED, peer, what);
    });
    --depth_;
}

}  // namespace ccs
