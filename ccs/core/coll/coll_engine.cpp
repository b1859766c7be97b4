#include "core/coll/coll_engine.hpp"

#include "core/coll/signature.hpp"
#include "util/error.hpp"

#include <climits>
#include <cstring>

namespace ccs::coll {

namespace {

std::string team_rank_text(const team_view &t, int team_rank) {
    return "team rank " + std::to_string(team_rank) + " (rank " + std::to_string(t.job_rank(team_rank)) + ")";
}

}  // namespace

ccs_status_t coll_engine::install(internal_handlers &handlers) {
    const ccs_status_t st = handlers.reserve("collectives", 1, handler_);
    if (st != CCS_OK) return st;
    handlers.set(handler_, &coll_engine::on_message, this);
    internal_ = &handlers.internal();
    return CCS_OK;
}

// args: team wire id, collective number, round tag | failure status << 32,
// signature.
void coll_engine::on_message(const ccs_am_message_t *m, void *self) {
    auto &e = *static_cast<coll_engine *>(self);
    if (m->nargs != 4) return;
    const uint64_t team = m->args[0], seq = m->args[1];
    if (e.abandoned_.count({team, seq})) return;
    arrival a;
    a.signature = m->args[3];
    const uint64_t failed = m->args[2] >> 32;
    a.failed = failed < CCS_STATUS_COUNT_ ? static_cast<ccs_status_t>(failed) : CCS_ERR_INTERNAL;
    const auto *bytes = static_cast<const uint8_t *>(m->payload);
    a.bytes.assign(bytes, bytes + m->payload_size);
    e.mailbox_[{team, seq, static_cast<uint32_t>(m->args[2]), m->source}] = std::move(a);
}

void coll_engine::start(const team_view &t, uint64_t seq, schedule &&s, const ccs_completion_t &completion,
                        ccs_status_t failed) {
    operation &op = running_.emplace_back();
    op.team = t;
    op.seq = seq;
    op.plan = std::move(s);
    op.completion = completion;
    op.status = failed;
    op.counted_in = t.levels ? &counts_.two_levels
                    : op.plan.in_node_memory ? &counts_.in_node_memory
                                             : &counts_.by_messages;
    if (node_area *memory = t.memory()) {
        // Said before anything else this member writes for it, also when it
        // goes by messages: a member waiting in node memory for one that
        // called something else sees it.
        node_area &a = *memory;
        a.mine().started[seq % 2].value.store(node_area::started_word(seq, op.plan.signature),
                                              std::memory_order_release);
        if (failed != CCS_OK && op.plan.in_node_memory) {
            a.fail(seq, failed);
            a.arrive(seq, node_area::refused_word(seq));
            op.plan.in_node_memory = false;  // it waits for nothing more
        }
    }
    // Its first messages go now; it ends (and completes) in progress.
    advance(op);
}

ccs_status_t coll_engine::run(const team_view &t, uint64_t seq, schedule &&s, const std::function<void()> &progress) {
    struct outcome {
        bool done = false;
        ccs_status_t status = CCS_OK;
        std::string detail;
    } out;
    ccs_completion_t c{};
    c.arg = &out;
    c.callback = [](ccs_status_t status, void *arg) {
        auto &o = *static_cast<outcome *>(arg);
        o.done = true;
        o.status = status;
        if (status != CCS_OK) o.detail = last_error();
    };
    start(t, seq, std::move(s), c);
    while (!out.done) progress();
    return out.status == CCS_OK ? CCS_OK : fail(out.status, out.detail);
}

int coll_engine::progress() {
    int moved = 0;
    for (auto it = running_.begin(); it != running_.end();) {
        const size_t round = it->round;
        if (!advance(*it)) {
            moved += it->round != round;
            ++it;
            continue;
        }
        ++moved;
        finish(*it);
        it = running_.erase(it);
    }
    return moved;
}

// Once it failed here, it waits for nothing more: every message it has
// left to send goes at once, carrying the failure, so each member after
// it ends too (and the same way), whatever it waited for.
bool coll_engine::advance(operation &op) {
    while (op.round < op.plan.rounds.size()) {
        if (!op.round_started) start_round(op);
        const schedule::round &r = op.plan.rounds[op.round];
        bool all = true;
        for (size_t i = 0; i < r.receives.size() && op.status == CCS_OK; ++i)
            if (!op.received[i]) {
                if (take(op, i)) op.received[i] = true;
                else all = false;
            }
        // A member of a team with node memory that called something here
        // that waits in that memory sends nothing: its started word says so.
        if (op.status == CCS_OK && !all && op.team.memory() && ++op.idle_checks % 64 == 0) node_mismatch(op, false);
        if (op.status == CCS_OK && !all) return false;
        if ((op.status == CCS_OK || op.plan.in_node_memory) && r.ready) {
            const int ready = r.ready();
            if (ready < 0) node_disagreement(op, -1 - ready);
            else if (ready == 0 && !node_trouble(op)) return false;
        }
        if ((op.status == CCS_OK || op.plan.in_node_memory) && r.step) {
            r.step();
            for (const auto &f : op.plan.step_failures)
                if (f->status != CCS_OK) set_failure(op, f->status, f->detail);
        }
        ++op.round;
        op.round_started = false;
    }
    return true;
}

void coll_engine::start_round(operation &op) {
    const schedule::round &r = op.plan.rounds[op.round];
    op.round_started = true;
    op.received.assign(r.receives.size(), false);
    for (const schedule::send &s : r.sends) {
        const uint64_t args[4] = {op.team.wire_id, op.seq, r.tag | (static_cast<uint64_t>(op.status) << 32),
                                  op.plan.signature};
        // A failed collective's messages carry the failure, not its data.
        const bool data = op.status == CCS_OK;
        const ccs_status_t st = am_.send(*internal_, op.team.job_rank(s.peer), handler_, args, 4,
                                         data ? s.data : nullptr, data ? s.length : 0, nullptr);
        if (st == CCS_ERR_PEER_FAILED)
            set_failure(op, st, team_rank_text(op.team, s.peer) + " failed: " + am_.failure());
        else if (st != CCS_OK)
            set_failure(op, st, "sending to " + team_rank_text(op.team, s.peer) + ": " + last_error());
    }
}

bool coll_engine::take(operation &op, size_t i) {
    const schedule::round &r = op.plan.rounds[op.round];
    const schedule::receive &rc = r.receives[i];
    const int source = op.team.job_rank(rc.peer);
    const auto it = mailbox_.find({op.team.wire_id, op.seq, r.tag, source});
    if (it != mailbox_.end()) {
        const arrival &a = it->second;
        const uint64_t mine = op.plan.signature >> 56, theirs = a.signature >> 56;
        if (a.failed != CCS_OK)
            set_failure(op, a.failed, "the collective failed at " + team_rank_text(op.team, rc.peer));
        else if (a.signature != op.plan.signature)
            set_failure(op, CCS_ERR_INVALID_ARG,
                        std::string(kind_name(mine)) + " here, but " + team_rank_text(op.team, rc.peer) + " called " +
                            kind_name(theirs) +
                            (mine == theirs ? " with another root, size, type or op" : " at this point"));
        else if (a.bytes.size() != rc.length)
            set_failure(op, CCS_ERR_INVALID_ARG,
                        team_rank_text(op.team, rc.peer) + " sent " + std::to_string(a.bytes.size()) +
                            " bytes where this process expects " + std::to_string(rc.length));
        else if (op.status == CCS_OK && rc.length)
            std::memcpy(rc.into, a.bytes.data(), rc.length);
        mailbox_.erase(it);
        return true;
    }
    if (am_.peer_has_failed(source)) {
        set_failure(op, CCS_ERR_PEER_FAILED, team_rank_text(op.team, rc.peer) + " failed: " + am_.failure());
        return true;
    }
    if (am_.any_peer_failed() && failed_member(op.team) >= 0) {
        const auto now = std::chrono::steady_clock::now();
        if (!op.give_up_at) op.give_up_at = now + am_engine::failure_grace;
        if (now >= *op.give_up_at) {
            set_failure(op, CCS_ERR_PEER_FAILED,
                        team_rank_text(op.team, rc.peer) + " did not go on after a member failed: " + am_.failure());
            return true;
        }
    }
    return false;
}

// What a member that died, refused its arguments or called another
// collective would have written never comes: the collective ends here
// (and, through this member's failed word, at the members waiting for it).
bool coll_engine::node_trouble(operation &op) {
    // Looked for now and then: it reads lines the others write.
    if (++op.idle_checks % 64 != 0) return false;
    // (A blocking one run in the call has no rounds.)
    if (op.round < op.plan.rounds.size())
        if (const auto &waits_on = op.plan.rounds[op.round].waits_on) return movers_died(op, waits_on);
    const int failed = am_.any_peer_failed() ? failed_member(op.team) : -1;
    if (failed >= 0) {
        set_failure(op, CCS_ERR_PEER_FAILED, team_rank_text(op.team, failed) + " failed: " + am_.failure());
        op.plan.in_node_memory = false;
        return true;
    }
    return node_mismatch(op, true);
}

bool coll_engine::movers_died(operation &op, const std::function<bool(int)> &waits_on) {
    if (!am_.any_peer_failed()) return false;
    const node_area &a = *op.team.memory();
    int dead = -1;
    for (int m = 0; m < a.size(); ++m) {
        if (!waits_on(m)) continue;
        const int who = op.team.team_rank_of(m);
        if (!am_.peer_has_failed(op.team.job_rank(who))) return false;
        dead = who;
    }
    if (dead < 0) return false;
    set_failure(op, CCS_ERR_PEER_FAILED, team_rank_text(op.team, dead) + " failed: " + am_.failure());
    op.plan.in_node_memory = false;
    return true;
}

bool coll_engine::node_mismatch(operation &op, bool or_failed) {
    const node_area &a = *op.team.memory();
    const uint64_t seq = op.seq, mine = node_area::started_word(seq, op.plan.signature);
    for (int m = 0; m < a.size(); ++m) {
        const node_area::header &h = a.of(m);
        const uint64_t theirs = h.started[seq % 2].value.load(std::memory_order_acquire);
        if ((or_failed && a.failed_at(m, seq) != CCS_OK) || (node_area::started_seq(theirs) == seq && theirs != mine)) {
            node_disagreement(op, m);
            return true;
        }
    }
    return false;
}

// Member m failed this collective, refused its arguments for it or
// started it as another: the failure is set here too (and so said in this
// member's failed word).
void coll_engine::node_disagreement(operation &op, int m) {
    const node_area &a = *op.team.memory();
    const int who = op.team.team_rank_of(m);
    const uint64_t seq = op.seq;
    const uint64_t theirs = a.of(m).started[seq % 2].value.load(std::memory_order_acquire);
    const uint64_t arrived = a.arrived(m, seq % 2);
    const uint64_t mine = op.plan.signature >> 56, kind = node_area::started_kind(theirs);
    const ccs_status_t failed = a.failed_at(m, seq);
    if (node_area::started_seq(arrived) == seq && node_area::is_refusal(arrived))
        set_failure(op, CCS_ERR_INVALID_ARG,
                    "the collective failed at " + team_rank_text(op.team, who) + ", which refused its own arguments");
    else if (failed != CCS_OK)
        set_failure(op, failed, "the collective failed at " + team_rank_text(op.team, who) + " (" +
                                    ccs_strerror(failed) + ")");
    else
        set_failure(op, CCS_ERR_INVALID_ARG,
                    std::string(kind_name(mine)) + " here, but " + team_rank_text(op.team, who) + " called " +
                        kind_name(kind) + (kind == mine ? " with another root, size, type or op" : " at this point"));
    op.plan.in_node_memory = false;
}

void coll_engine::set_failure(operation &op, ccs_status_t status, std::string detail) {
    if (op.status != CCS_OK) return;
    op.status = status;
    op.detail = std::move(detail);
    // The members on this node that wait for this one (its leader's
    // release, its data) see it, before anything this member writes later.
    if (node_area *a = op.team.memory()) a->fail(op.seq, status);
}

int coll_engine::failed_member(const team_view &t) const {
    for (int i = 0; i < t.size(); ++i)
        if (am_.peer_has_failed(t.job_rank(i))) return i;
    return -1;
}

// A collective that got everything it needed here succeeded, even if a
// member died after it had done its part.
void coll_engine::finish(operation &op) {
    // One that failed (refused its arguments, say) wrote no data, only its counters.
    node_area *a = op.team.memory();
    if (a && op.plan.in_node_memory && op.status == CCS_OK)
        for (int m = 0; m < a->size(); ++m)
            if (a->failed_at(m, op.seq) != CCS_OK) {
                node_disagreement(op, m);
                break;
            }
    if (a && op.status != CCS_OK && op.plan.chunks_end) a->skip_chunks(op.plan.chunks_end);
    if (a) a->finished(op.seq);
    ++*op.counted_in;
    counts_.cross_memory += op.plan.cross_memory;
    counts_.failed += op.status != CCS_OK;
    if (op.status != CCS_OK) {
        // Messages for it may still come (from members that gave up later).
        abandoned_.insert({op.team.wire_id, op.seq});
        mailbox_.erase(mailbox_.lower_bound({op.team.wire_id, op.seq, 0, INT_MIN}),
                       mailbox_.lower_bound({op.team.wire_id, op.seq + 1, 0, INT_MIN}));
    }
    if (!wants_completion(&op.completion)) return;
    const char *name = kind_name(op.plan.signature >> 56);
    pending_completion p{op.completion, op.status,
                         op.status == CCS_OK ? std::string() : std::string("ccs_team_") + name + ": " + op.detail,
                         op.team.context_id};
    ++depth_;
    am_.complete_or_defer(std::move(p));
    --depth_;
}

}  // namespace ccs::coll
