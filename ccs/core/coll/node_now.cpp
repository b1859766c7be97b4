// Small blocking collectives of a team in node memory, run in the call:
// no schedule, no allocation, the waits polled right here (with the
// runtime's progress between polls). The protocol is the schedules' in
// coll/algorithms_node.cpp: slots of the collective number's parity,
// arrive words that carry what each member called.
#include "core/coll/algorithms_node.hpp"
#include "core/coll/coll_engine.hpp"
#include "core/coll/node_steps.hpp"
#include "util/error.hpp"

#include <cstring>

namespace ccs::coll {

ccs_status_t coll_engine::run_now(const team_view &t, uint64_t seq, const small_in_node &call,
                                  const std::function<void()> &progress) {
    node_area &a = *t.area;
    const uint64_t word = node_area::started_word(seq, call.signature);
    a.mine().started[seq % 2].value.store(word, std::memory_order_release);
    operation op;  // for the failure's wording only
    op.team = t;
    op.seq = seq;
    op.plan.signature = call.signature;
    op.plan.in_node_memory = true;
    // ready(): > 0 holds, 0 not yet, -1 - m: member m disagrees.
    auto wait = [&](auto ready) {
        for (;;) {
            const int st = ready();
            if (st > 0) return true;
            if (st < 0) {
                node_disagreement(op, -1 - st);
                return false;
            }
            if (node_trouble(op)) return false;
            progress();
        }
    };
    auto all_arrived = [&] { return node_steps::all_arrived(&a, seq, word); };
    auto slot_free = [&] { return node_steps::free_slot(&a, seq); };
    bool ok = true;
    switch (call.what) {
    case kind::barrier:
        a.arrive(seq, word);
        ok = wait(all_arrived);
        break;
    case kind::allreduce:
        if ((ok = wait(slot_free))) {
            if (call.bytes) std::memcpy(a.slot(a.rank(), seq, call.bytes), call.src, call.bytes);
            a.arrive(seq, word);
            if ((ok = wait(all_arrived))) combine_slots(a, seq, *call.r, call.dst, call.bytes);
        }
        break;
    default:  // broadcast
        if (t.rank == call.root) {
            if ((ok = wait(slot_free))) {
                if (call.bytes) std::memcpy(a.slot(a.rank(), seq, call.bytes), call.dst, call.bytes);
                a.arrive(seq, word);
            }
        } else {
            ok = wait([&] { return node_steps::reached(&a, call.root, seq, word); });
            if (ok) {
                if (call.bytes) std::memcpy(call.dst, a.slot(call.root, seq, call.bytes), call.bytes);
                a.arrive(seq, word);
            }
        }
    }
    if (ok)  // one that failed (refused its arguments) wrote no data, only its counters
        for (int m = 0; m < a.size(); ++m)
            if (a.failed_at(m, seq) != CCS_OK) {
                node_disagreement(op, m);
                break;
            }
    a.finished(seq);
    ++counts_.in_node_memory;
    ++counts_.in_the_call;
    counts_.failed += op.status != CCS_OK;
    if (op.status == CCS_OK) return CCS_OK;
    return fail(op.status, std::string("ccs_team_") + kind_name(static_cast<uint64_t>(call.what)) + ": " + op.detail);
}

}  // namespace ccs::coll
