// Sending a large message: the payload with the header where it is small
// (eager); else its size alone where it will be pushed once accepted
// (push), or the payload registered and its key and layout announced
// (fetch); the operation kept until the target answers.
#include "core/am/large_am.hpp"

#include "datadesc/layout_wire.hpp"
#include "util/completion.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cstring>

namespace ccs {

large_am::large_am(context_table &contexts, am_engine &am, rma_engine &rma, memory_registry &memory, int rank,
                   size_t eager_limit, size_t window)
    : contexts_(contexts), am_(am), rma_(rma), rank_(rank), eager_limit_(eager_limit), window_(window),
      memory_(memory), registrations_(memory), keys_(rma) {}

// The caches end what they hold.
large_am::~large_am() {
    if (answer_handler_) am_.set_placer(answer_handler_ + piece_at, nullptr);
}

ccs_status_t large_am::install(internal_handlers &handlers) {
    const ccs_status_t st = handlers.reserve("large messages", handler_count, answer_handler_);
    if (st != CCS_OK) return st;
    handlers.set(answer_handler_ + answer_at, &large_am::on_answer, this);
    handlers.set(answer_handler_ + pull_at, &large_am::on_pull, this);
    handlers.set(answer_handler_ + piece_at, &large_am::on_piece, this);
    handlers.set(answer_handler_ + write_at, &large_am::on_write_at, this);
    handlers.set(answer_handler_ + written_at, &large_am::on_written, this);
    am_.set_placer(answer_handler_ + piece_at, this);
    return CCS_OK;
}

// Eager only where the whole message fits one packet of the route, so the
// payload is never fragmented and reassembled on top of being copied.
size_t large_am::eager_limit_to(int target, size_t nargs) const {
    const size_t packet = am_.packet_limit(target);
    if (packet == 0) return eager_limit_;  // to self
    const size_t head = sizeof(wire::header) + nargs * sizeof(uint64_t) + sizeof(wire::large_header);
    return packet > head ? std::min(eager_limit_, packet - head) : 0;
}

ccs_status_t large_am::send_now(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                const sender_payload &data, const ccs_completion_t &completion) {
    wire::large_header h{};
    h.op = next_op_++;
    h.size = data.size;
    ccs_mem_t mem{0};
    const bool eager = data.size <= eager_limit_to(target, nargs);
    // A contiguous payload is pushed where the route cannot read this
    // memory itself, or lands it in place in one piece: one rendezvous
    // costs the round trips of a fetch, and needs no registration or key
    // here. Larger ones are read in one go where the route has a get.
    const bool push = !eager && !data.dd && target != rank_ &&
                      (!rma_.native(target, false) ||
                       (am_.receives_in_place(target) && data.size <= am_.placeable_limit(target, 2)));
    if (push) {
        // Nothing registers a pushed payload, so nothing else would find
        // memory that is not mapped before a transport faults on it.
        const ccs_status_t mapped = memory_.check_mapped(data.base, data.size);
        if (mapped != CCS_OK) return mapped;
        if (am_.parks_payloads(target)) {
            bool sent = false;
            const ccs_status_t st = send_parkable(ctx, target, handler, args, nargs, data, completion, sent);
            if (st != CCS_OK || sent) return st;
        }
    }
    const ccs_status_t st = eager  ? send_eager(ctx, target, handler, args, nargs, data, h)
                            : push ? send_push(ctx, target, handler, args, nargs, h)
                                   : send_fetch(ctx, target, handler, args, nargs, data, h, mem);
    if (st != CCS_OK) {
        if (mem.id) registrations_.give_back(mem);
        return st;
    }
    sending &s = sending_[h.op];
    s = sending{target, ctx.id(), completion, mem, data.dd ? nullptr : data.base, data.size};
    s.owner = this;
    s.op = h.op;
    ++stats_.sent;
    if (eager) ++stats_.sent_eager;
    return CCS_OK;
}

ccs_status_t large_am::send_eager(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                  const sender_payload &data, wire::large_header &h) {
    h.mode = static_cast<uint8_t>(wire::large_mode::eager);
    // Without a completion: the engine copies what has to wait, so the
    // header may live on this stack.
    am_engine::payload_source out;
    std::vector<uint8_t> joined;
    if (data.dd) {
        out = {data.base, sizeof h + data.size, data.dd->compiled, data.count,
               reinterpret_cast<const uint8_t *>(&h), sizeof h};
    } else {
        joined.resize(sizeof h + data.size);
        std::memcpy(joined.data(), &h, sizeof h);
        if (data.size) std::memcpy(joined.data() + sizeof h, data.base, data.size);
        out = {joined.data(), joined.size(), nullptr, 0};
    }
    return am_.send(ctx, target, handler, args, nargs, out, nullptr, wire::large);
}

ccs_status_t large_am::send_fetch(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                  const sender_payload &data, wire::large_header &h, ccs_mem_t &mem) {
    h.mode = static_cast<uint8_t>(wire::large_mode::fetch);
    h.address = reinterpret_cast<uintptr_t>(data.base);
    // The memory the target reads: the payload, or the hull of its layout.
    uint64_t first = h.address, span = data.size;
    std::vector<uint8_t> layout;
    if (data.dd) {
        if (place_layout(*data.dd, data.count, h.address, first, span) != layout_fit::fits)
            return fail(CCS_ERR_OUT_OF_RANGE, "the payload's layout reaches beyond the address space");
        dd::layout_to_bytes(*data.dd, layout);
        h.count = data.count;
        h.layout_length = static_cast<uint32_t>(layout.size());
    }
    const std::vector<uint8_t> *key = nullptr;
    const ccs_status_t st = registrations_.take(first, span, mem, key);
    if (st != CCS_OK) return st;
    h.key_length = static_cast<uint16_t>(key->size());
    std::vector<uint8_t> packet(sizeof h + key->size() + layout.size());
    std::memcpy(packet.data(), &h, sizeof h);
    std::memcpy(packet.data() + sizeof h, key->data(), key->size());
    if (!layout.empty()) std::memcpy(packet.data() + sizeof h + key->size(), layout.data(), layout.size());
    const am_engine::payload_source out{packet.data(), packet.size(), nullptr, 0};
    return am_.send(ctx, target, handler, args, nargs, out, nullptr, wire::large);
}

ccs_status_t large_am::send_push(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                 wire::large_header &h) {
    h.mode = static_cast<uint8_t>(wire::large_mode::push);
    const am_engine::payload_source out{reinterpret_cast<const uint8_t *>(&h), sizeof h, nullptr, 0};
    return am_.send(ctx, target, handler, args, nargs, out, nullptr, wire::large);
}

ccs_status_t large_am::send_parkable(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                     const sender_payload &data, const ccs_completion_t &completion, bool &sent) {
    sent = false;
    if (data.size > am_.placeable_limit(target, nargs)) return CCS_OK;
    wire::large_header h{};
    h.op = next_op_++;
    h.size = data.size;
    h.mode = static_cast<uint8_t>(wire::large_mode::eager);
    // Kept from before the send: the transport's completion names it.
    sending &s = sending_[h.op];
    s = sending{target, ctx.id(), completion, ccs_mem_t{0}, data.base, data.size};
    s.owner = this;
    s.op = h.op;
    const ccs_status_t st =
        am_.send_parkable(ctx, target, handler, args, nargs, reinterpret_cast<const uint8_t *>(&h), sizeof h, data.base,
                          data.size, {&large_am::on_piece_sent, &s, nullptr}, sent);
    if (st != CCS_OK || !sent) {
        sending_.erase(h.op);
        return st;
    }
    ++s.pieces_out;  // the transport reads the payload until its completion
    ++stats_.sent;
    ++stats_.sent_parkable;
    return CCS_OK;
}

void large_am::on_answer(const ccs_am_message_t *m, void *arg) {
    auto &self = *static_cast<large_am *>(arg);
    if (m->nargs != 2) return;
    const auto it = self.sending_.find(m->args[0]);
    if (it == self.sending_.end() || it->second.target != m->source || it->second.ended) return;
    const auto stream = self.streams_.find({it->second.ctx, it->second.target});
    const auto status = static_cast<ccs_status_t>(m->args[1]);
    ++self.stats_.answered;
    std::string detail;
    if (status != CCS_OK) detail.assign(static_cast<const char *>(m->payload), m->payload_size);
    self.end_sending(it, status, std::move(detail));
    if (stream != self.streams_.end() && stream->second.unanswered > 0) {
        --stream->second.unanswered;
        self.drain(stream->first);
    }
}

void large_am::end_sending(std::unordered_map<uint64_t, sending>::iterator it, ccs_status_t status,
                           std::string detail, bool later) {
    sending &s = it->second;
    if (s.pieces_out > 0) {
        s.ended = true;
        s.payload = nullptr;  // nothing more is pushed from it
        s.end_status = status;
        s.end_detail = std::move(detail);
        return;
    }
    const sending done = std::move(s);
    sending_.erase(it);
    if (done.mem.id) registrations_.give_back(done.mem);
    pending_completion c{done.completion, status, std::move(detail), done.ctx};
    if (later) am_.add_completion(std::move(c));
    else am_.complete_or_defer(std::move(c));
}

void large_am::on_piece_sent(ccs_status_t, void *arg) {
    auto &s = *static_cast<sending *>(arg);
    s.owner->release_piece(s);
}

void large_am::release_piece(sending &s) {
    if (--s.pieces_out > 0 || !s.ended) return;
    end_sending(sending_.find(s.op), s.end_status, s.end_detail);
}

// The target accepted and asks for the payload: pieces of one packet, sent
// from the payload, each of which the target can receive straight into
// the destination where the transport fetches payloads after their head.
void large_am::on_pull(const ccs_am_message_t *m, void *arg) {
    auto &self = *static_cast<large_am *>(arg);
    if (m->nargs != 2) return;
    const auto it = self.sending_.find(m->args[0]);
    if (it == self.sending_.end() || it->second.target != m->source || !it->second.payload) return;
    sending &s = it->second;
    context *internal = self.contexts_.by_id(context_table::internal_id);
    const size_t piece = std::max<size_t>(self.am_.placeable_limit(m->source, 2), 4096);
    for (uint64_t offset = 0; offset < s.size; offset += piece) {
        const uint64_t args[2] = {m->args[1], offset};
        const size_t n = static_cast<size_t>(std::min<uint64_t>(piece, s.size - offset));
        // Each piece's completion says the transport no longer reads it:
        // until the last, the sender's completion waits (end_sending).
        if (self.am_.send_placeable(*internal, m->source, self.answer_handler_ + piece_at, args, 2,
                                    s.payload + offset, n, {&large_am::on_piece_sent, &s, nullptr}) != CCS_OK)
            return;  // the peer failed: both ends hear of that
        ++s.pieces_out;
    }
}

void large_am::answer(int to, uint64_t op, ccs_status_t status, const std::string &detail) {
    if (op != 0) report(to, answer_at, op, status, detail);
}

void large_am::report(int to, handler_offset at, uint64_t id, ccs_status_t status, const std::string &detail) {
    if (am_.peer_has_failed(to)) return;
    const uint64_t args[2] = {id, static_cast<uint64_t>(status)};
    // A refusal by the transport is the peer's failure, which it hears of
    // on its own.
    const am_engine::payload_source why{reinterpret_cast<const uint8_t *>(detail.data()),
                                        status == CCS_OK ? 0 : detail.size(), nullptr, 0};
    (void)am_.send(*contexts_.by_id(context_table::internal_id), to, answer_handler_ + at, args, 2, why, nullptr);
}

}  // namespace ccs
