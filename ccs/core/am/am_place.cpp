// Payloads received in place: a transport that fetches a packet's payload
// after its head arrived (a rendezvous) asks where it goes; the handler's
// placer answers, and hears when the bytes are there. A large message's
// header whose payload the transport keeps is delivered in its turn; the
// payload is fetched once its header handler accepted it.
#include "core/am/am_engine.hpp"

#include "util/error.hpp"
#include "util/log.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace ccs {

void am_engine::set_placer(uint16_t handler, packet_placer *placer) {
    if (placer) {
        placers_[handler] = placer;
        return;
    }
    // Its fetches still running are forgotten: it is going away.
    const auto gone = placers_.find(handler);
    if (gone == placers_.end()) return;
    for (auto it = placing_.begin(); it != placing_.end();)
        it = it->second.placer == gone->second ? placing_.erase(it) : std::next(it);
    placers_.erase(gone);
}

bool am_engine::read_rendezvous_head(int source, const void *head, size_t head_length, size_t length, wire::header &h,
                                     size_t &inline_length) const {
    if (source < 0 || static_cast<size_t>(source) >= peers_.size() || head_length < sizeof(wire::header) ||
        length == 0)
        return false;
    std::memcpy(&h, head, sizeof h);
    const size_t args_bytes = h.nargs * sizeof(uint64_t);
    if (h.nargs > CCS_AM_MAX_ARGS || head_length < sizeof h + args_bytes) return false;
    inline_length = head_length - sizeof h - args_bytes;
    return h.length == inline_length + length;
}

void *am_engine::place(int source, const void *head, size_t head_length, size_t length, uint64_t &placement_id) try {
    wire::header h;
    size_t inline_length = 0;
    // Only whole, unsequenced packets of the internal context, the payload
    // all after the args: anything else needs the engine's own handling on
    // delivery.
    if (!read_rendezvous_head(source, head, head_length, length, h, inline_length) || inline_length != 0 ||
        h.flags != 0 || h.context != context_table::internal_id)
        return nullptr;
    const auto found = placers_.find(h.handler);
    if (found == placers_.end()) return nullptr;
    placement p;
    p.placer = found->second;
    p.source = source;
    p.nargs = h.nargs;
    p.length = length;
    std::memcpy(p.args.data(), static_cast<const uint8_t *>(head) + sizeof h, h.nargs * sizeof(uint64_t));
    uint8_t *at = p.placer->place(source, p.args.data(), p.nargs, length);
    if (!at) return nullptr;
    placement_id = next_placement_++;
    placing_.emplace(placement_id, p);
    return at;
} catch (const std::exception &e) {
    log_message(log_level::error, std::string("could not place a payload: ") + e.what());
    return nullptr;
}

bool am_engine::deliver_parked(int source, const void *head, size_t head_length, size_t length,
                               std::weak_ptr<transport> route, uint64_t parked) try {
    // Only a large message's header, whole, to a context that exists: the
    // header sink decides on it. Anything else is fetched and delivered
    // as usual, and checked there.
    wire::header h;
    size_t inline_length = 0;
    if (!header_sink_ || !read_rendezvous_head(source, head, head_length, length, h, inline_length) ||
        !(h.flags & wire::large) || (h.flags & (wire::fragment | wire::abandoned)))
        return false;
    const size_t args_bytes = h.nargs * sizeof(uint64_t);
    context *ctx = contexts_.by_id(h.context);
    if (!ctx) return false;
    uint64_t args[CCS_AM_MAX_ARGS];
    const auto *bytes = static_cast<const uint8_t *>(head);
    std::memcpy(args, bytes + sizeof h, args_bytes);
    parked_payload rest(std::move(route), parked, length);
    ++stats_.parked;
    on_message(source, *ctx, h, args, bytes + sizeof h + args_bytes, inline_length, nullptr, &rest);
    return true;
} catch (const std::exception &e) {
    log_message(log_level::error, std::string("could not take a kept payload's message: ") + e.what());
    return false;
}

ccs_status_t am_engine::fetch_parked(parked_payload &payload, uint8_t *to, packet_placer *placer, int source,
                                     const uint64_t *args, size_t nargs) {
    placement p;
    p.placer = placer;
    p.source = source;
    p.nargs = static_cast<uint8_t>(nargs);
    p.length = payload.length();
    std::copy_n(args, nargs, p.args.begin());
    const uint64_t id = next_placement_++;
    placing_.emplace(id, p);
    const ccs_plugin_status_t st = payload.fetch(to, id);
    if (st == CCS_PLUGIN_OK) return CCS_OK;
    placing_.erase(id);
    return fail(status_from_plugin(st),
                std::string("fetching a payload the transport kept: ") + plugin_status_name(st));
}

void am_engine::placed(uint64_t placement_id, ccs_plugin_status_t status) {
    const auto it = placing_.find(placement_id);
    if (it == placing_.end()) {
        // Unknown: its placer went away (finalize), or the plugin is wrong.
        log_message(log_level::debug, "a transport reported a payload placed that nobody waits for");
        return;
    }
    const placement p = it->second;
    placing_.erase(it);
    if (status == CCS_PLUGIN_OK) ++stats_.placed;
    ++depth_;
    p.placer->placed(p.source, p.args.data(), p.nargs, p.length, status);
    --depth_;
}

}  // namespace ccs
