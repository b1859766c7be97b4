// An accepted payload the sender writes into the destination with its RMA
// engine: the target registers the destination and sends the key
// (`write_at`: message, transfer, address), the sender puts the payload from
// the caller's memory and says how that ended (`written`: transfer,
// status), and the target then ends the transfer as for pushed pieces.
#include "core/am/large_am.hpp"

#include "util/completion.hpp"
#include "util/error.hpp"

namespace ccs {

ccs_status_t large_am::ask_to_write(incoming &in, std::unique_ptr<transfer> t, const destination &to) {
    const std::vector<uint8_t> *key = nullptr;
    ccs_status_t st = registrations_.take(reinterpret_cast<uintptr_t>(to.base), in.size, t->mem, key);
    if (st != CCS_OK)
        return fail_message(in, st,
                            "registering the destination of a message from rank " + std::to_string(in.source) + ": " +
                                ccs_last_error());
    t->pushed = true;
    t->written = true;
    t->to = to;
    t->size = in.size;
    t->placing = 1;  // until the sender says its write ended
    const uint64_t args[3] = {in.op, t->id, reinterpret_cast<uintptr_t>(to.base)};
    const uint64_t id = t->id;
    const ccs_mem_t mem = t->mem;
    transfers_.emplace(id, std::move(t));
    st = am_.send(*contexts_.by_id(context_table::internal_id), in.source, answer_handler_ + write_at, args, 3,
                  am_engine::payload_source{key->data(), key->size(), nullptr, 0}, nullptr);
    if (st != CCS_OK) {
        registrations_.give_back(mem);
        transfers_.erase(id);
        return st;
    }
    ++stats_.fetched;
    ++stats_.written;
    return CCS_OK;
}

void large_am::on_write_at(const ccs_am_message_t *m, void *arg) {
    auto &self = *static_cast<large_am *>(arg);
    if (m->nargs != 3) return self.am_.drop_malformed(m->source, "large message write request without its three words");
    const uint64_t transfer_id = m->args[1];
    const auto it = self.sending_.find(m->args[0]);
    // The target asks once per message it accepted; anything else gets an
    // answer all the same, so its transfer does not wait for ever.
    if (it == self.sending_.end() || it->second.target != m->source || !it->second.payload)
        return self.report(
            m->source, written_at, transfer_id, CCS_ERR_INVALID_ARG,
            "no contiguous large message of rank " + std::to_string(self.rank_) + " waits for that write");
    sending &s = it->second;
    auto w = std::make_unique<outgoing_write>();
    w->self = &self;
    w->id = self.next_write_++;
    w->op = s.op;
    w->target = m->source;
    w->transfer = transfer_id;
    const auto *bytes = static_cast<const uint8_t *>(m->payload);
    ccs_status_t st = self.keys_.take(m->source, std::vector<uint8_t>(bytes, bytes + m->payload_size), w->key);
    if (st != CCS_OK)
        return self.report(
            m->source, written_at, transfer_id, st,
            "rank " + std::to_string(self.rank_) + " cannot use the destination's key: " + ccs_last_error());
    rma_request q;
    q.kind = rma_kind::put;
    q.target = m->source;
    q.local = {reinterpret_cast<uintptr_t>(s.payload), static_cast<size_t>(s.size), nullptr, 0};
    q.remote = {m->args[2], static_cast<size_t>(s.size), nullptr, 0};
    q.key = w->key;
    const ccs_completion_t done{&large_am::on_write_done, w.get(), nullptr};
    q.completion = &done;
    outgoing_write &kept = *w;
    self.writes_.emplace(kept.id, std::move(w));
    ++s.pieces_out;  // the payload stays the caller's until the write ends
    st = self.rma_.start(*self.contexts_.by_id(context_table::internal_id), q);
    if (st != CCS_OK) {
        const std::string why = ccs_last_error();
        --s.pieces_out;
        self.keys_.give_back(kept.key);
        self.writes_.erase(kept.id);
        self.report(m->source, written_at, transfer_id, st,
                    "rank " + std::to_string(self.rank_) + " could not write the payload: " + why);
    }
}

void large_am::on_write_done(ccs_status_t status, void *arg) {
    const outgoing_write w = *static_cast<outgoing_write *>(arg);
    large_am &self = *w.self;
    // Before anything else here can set the thread's last error.
    const std::string detail = status == CCS_OK
                                   ? std::string()
                                   : "rank " + std::to_string(self.rank_) + " writing the payload: " + ccs_last_error();
    self.writes_.erase(w.id);
    self.keys_.give_back(w.key);
    const auto it = self.sending_.find(w.op);
    if (it != self.sending_.end()) self.release_piece(it->second);
    self.report(w.target, written_at, w.transfer, status, detail);
}

void large_am::on_written(const ccs_am_message_t *m, void *arg) {
    auto &self = *static_cast<large_am *>(arg);
    if (m->nargs != 2) return self.am_.drop_malformed(m->source, "large message write report without its two words");
    const auto it = self.transfers_.find(m->args[0]);
    if (it == self.transfers_.end() || !it->second->written || it->second->source != m->source ||
        it->second->placing == 0)
        return self.am_.drop_malformed(m->source, "large message write report for no write of that rank");
    transfer &t = *it->second;
    t.placing = 0;
    auto status = static_cast<ccs_status_t>(m->args[1]);
    std::string detail(static_cast<const char *>(m->payload), status == CCS_OK ? 0 : m->payload_size);
    if (status == CCS_OK) t.received = t.size;
    if (t.ending) {  // the context went while the sender wrote
        status = t.end_status;
        detail = t.end_detail;
    }
    self.finish_push(t.id, status, detail);
}

}  // namespace ccs
