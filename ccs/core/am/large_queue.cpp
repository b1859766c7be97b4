// Back-pressure for large messages: at most `window` unanswered per
// (context, target). More wait here, their payloads not copied, and while
// any waits the context's later messages to that target wait behind it,
// so the target's header handlers still see the context's order.
#include "core/am/large_am.hpp"

#include "datadesc/copy_kernels.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace ccs {

ccs_status_t large_am::send(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                            const sender_payload &data, const ccs_completion_t &completion) {
    stream &s = streams_[{ctx.id(), target}];
    if (s.unanswered < window_ && s.queue.empty()) {
        const ccs_status_t st = send_now(ctx, target, handler, args, nargs, data, completion);
        if (st == CCS_OK) ++s.unanswered;
        return st;
    }
    queued_send q;
    q.large = true;
    q.handler = handler;
    q.nargs = static_cast<uint8_t>(nargs);
    std::copy_n(args, nargs, q.args.begin());
    q.large_data = data;
    q.completion = completion;
    q.has_completion = true;
    s.queue.push_back(std::move(q));
    queued_send &kept = s.queue.back();
    if (data.dd) {
        kept.layout = *data.dd;  // the caller may free its datadesc on return
        kept.large_data.dd = &kept.layout;
    }
    if (ctx.ordered()) am_.set_holding(ctx, target, true);
    return CCS_OK;
}

ccs_status_t large_am::send_behind(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                   const am_engine::payload_source &data, const ccs_completion_t *completion) {
    const auto it = streams_.find({ctx.id(), target});
    if (it == streams_.end() || it->second.queue.empty()) {  // not holding after all
        am_.set_holding(ctx, target, false);
        return am_.send(ctx, target, handler, args, nargs, data, completion);
    }
    queued_send q;
    q.handler = handler;
    q.nargs = static_cast<uint8_t>(nargs);
    std::copy_n(args, nargs, q.args.begin());
    q.data = data;
    q.has_completion = wants_completion(completion);
    if (q.has_completion) {
        q.completion = *completion;
    } else if (data.length > 0) {  // reusable on return: copied
        q.copy.resize(data.length);
        if (data.layout)
            dd::transfer<dd::direction::pack>(*data.layout, data.count, const_cast<uint8_t *>(data.data), 0,
                                              q.copy.data(), static_cast<int64_t>(data.length));
        else
            std::copy_n(data.data, data.length, q.copy.data());
    }
    it->second.queue.push_back(std::move(q));
    queued_send &kept = it->second.queue.back();
    if (!kept.has_completion) kept.data = {kept.copy.data(), kept.copy.size(), nullptr, 0};
    return CCS_OK;
}

void large_am::drain(stream_key key) {
    const auto it = streams_.find(key);
    if (it == streams_.end()) return;
    stream &s = it->second;
    context *ctx = contexts_.by_id(key.first);
    const int target = key.second;
    while (!s.queue.empty() && ctx) {
        queued_send &q = s.queue.front();
        if (q.large && s.unanswered >= window_) break;
        ccs_status_t st = CCS_OK;
        if (q.large) {
            if ((st = send_now(*ctx, target, q.handler, q.args.data(), q.nargs, q.large_data, q.completion)) == CCS_OK)
                ++s.unanswered;
        } else {
            st = am_.send(*ctx, target, q.handler, q.args.data(), q.nargs, q.data,
                          q.has_completion ? &q.completion : nullptr);
        }
        if (st != CCS_OK) fail_queued(ctx, target, q, st, ccs_last_error());
        s.queue.pop_front();
    }
    if (s.queue.empty() && ctx) am_.set_holding(*ctx, target, false);
}

void large_am::fail_queued(context *ctx, int target, queued_send &q, ccs_status_t status, const std::string &detail) {
    const std::string what = "message to rank " + std::to_string(target) + ", queued behind large ones: " + detail;
    if (q.has_completion)
        am_.add_completion({q.completion, status, what, ctx ? ctx->id() : uint16_t{0}});
    else if (ctx)
        ctx->report_error(status, target, what);
}

void large_am::peer_failed(int peer) {
    keys_.forget(peer);
    // A dead sender writes no more: nothing to wait for before its
    // transfers end.
    for (auto &kv : transfers_)
        if (kv.second->written && kv.second->source == peer) kv.second->placing = 0;
    end_pushed([peer](const transfer &t) { return t.source == peer; }, CCS_ERR_PEER_FAILED,
               "rank " + std::to_string(peer) + ", the sender, failed during the transfer");
    for (auto it = sending_.begin(); it != sending_.end();) {
        if (it->second.target != peer) {
            ++it;
            continue;
        }
        const auto ending = it++;  // end_sending may erase it
        if (!ending->second.ended)
            end_sending(ending, CCS_ERR_PEER_FAILED, "large message to rank " + std::to_string(peer) + ": the rank failed",
                        true);
    }
    for (auto it = streams_.begin(); it != streams_.end();) {
        if (it->first.second != peer) {
            ++it;
            continue;
        }
        context *ctx = contexts_.by_id(it->first.first);
        for (queued_send &q : it->second.queue)
            fail_queued(ctx, peer, q, CCS_ERR_PEER_FAILED, "rank " + std::to_string(peer) + " failed");
        if (ctx) am_.set_holding(*ctx, peer, false);
        it = streams_.erase(it);
    }
}

void large_am::cancel_queued(uint16_t ctx_id) {
    for (auto it = streams_.begin(); it != streams_.end();) {
        if (it->first.first != ctx_id) {
            ++it;
            continue;
        }
        context *ctx = contexts_.by_id(ctx_id);
        for (queued_send &q : it->second.queue)
            fail_queued(ctx, it->first.second, q, CCS_ERR_CANCELED, "the context was destroyed before it could go");
        it = streams_.erase(it);
    }
}

}  // namespace ccs
