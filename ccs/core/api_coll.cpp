// C entry points of collectives (ccs/coll.h). Each checks its arguments,
// builds this process's schedule of the algorithm (coll/algorithms.hpp)
// and starts it, or with no completion runs it to its end.
//
// Two kinds of bad argument: those every member shares when the call is
// right (root, sizes, type, op) fail the call here at once; those only
// this process can get wrong (its buffers) still take part, carrying the
// failure, so the other members end with it instead of waiting.
#include "acc_checks.hpp"
#include "api_guard.hpp"
#include "coll_call.hpp"
#include "core/coll/algorithms.hpp"

#include <ccs/coll.h>

#include <limits>
#include <string>

using namespace ccs;

ccs_status_t ccs::coll_begin(coll_call &c, ccs_team_t handle, const ccs_completion_t *completion) {
    ccs_status_t st = CCS_OK;
    c.rt = running(st, c.name);
    if (!c.rt) return st;
    c.team = c.rt->teams().find(handle.id);
    if (!c.team)
        return fail(CCS_ERR_INVALID_TEAM, std::string(c.name) + ": team " + std::to_string(handle.id) +
                                              " was never made, was destroyed, or its context was");
    c.completion = completion;
    if (!completion) {
        // A blocking collective's wait spins before it sleeps.
        c.rt->wait_begins();
        return check_not_in_callback(*c.rt, c.name);
    }
    if (!wants_completion(completion)) c.refuse("the completion has neither a callback nor a counter");
    return CCS_OK;
}

ccs_status_t ccs::coll_check_root(const coll_call &c, int root) {
    if (root < 0 || root >= c.size())
        return fail(CCS_ERR_INVALID_RANK, std::string(c.name) + ": root " + std::to_string(root) +
                                              " is not a rank of the team (size " + std::to_string(c.size()) + ")");
    return CCS_OK;
}

ccs_status_t ccs::coll_checked_product(const coll_call &c, size_t count, size_t each, size_t &bytes) {
    if (each && count > std::numeric_limits<size_t>::max() / each)
        return fail(CCS_ERR_OVERFLOW, std::string(c.name) + ": " + std::to_string(count) + " times " +
                                          std::to_string(each) + " bytes does not fit in size_t");
    bytes = count * each;
    return CCS_OK;
}

bool ccs::coll_runs_now(const coll_call &c, size_t bytes) {
    return !c.completion && c.local == CCS_OK && c.team->view.area && c.size() > 1 &&
           bytes <= coll::node_area::slot_bytes;
}

ccs_status_t ccs::coll_run_now(coll_call &c, const coll::coll_engine::small_in_node &call) {
    c.rt->note_activity();
    return c.rt->teams().run_now(*c.team, call);
}

ccs_status_t ccs::coll_launch(coll_call &c, coll::schedule &&s) {
    c.rt->note_activity();
    if (c.local != CCS_OK) {
        const std::string why = last_error();
        c.rt->teams().start(*c.team, std::move(s), ccs_completion_t{}, c.local);
        return fail(c.local, why);
    }
    if (c.completion) {
        c.rt->teams().start(*c.team, std::move(s), *c.completion);
        return CCS_OK;
    }
    return c.rt->teams().run(*c.team, std::move(s));
}

namespace {

ccs_status_t reduce_call(const char *name, reduction_kind k, ccs_team_t team, const void *src, void *dst,
                         size_t count, int type, int op, int root, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{name};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (st = check_acc_op_type(name, op, type)) != CCS_OK) return st;
        if (k == reduction_kind::to_root && (st = coll_check_root(c, root)) != CCS_OK) return st;
        const coll::reduction r = coll::make_reduction(op, type);
        size_t bytes = 0;
        if ((st = coll_checked_product(c, count, r.element, bytes)) != CCS_OK) return st;
        if (bytes && !src) c.refuse("src is NULL but count > 0");
        if (bytes && !dst && (k != reduction_kind::to_root || c.me() == root)) c.refuse("dst is NULL but count > 0");
        const auto *in = static_cast<const uint8_t *>(c.local == CCS_OK ? src : nullptr);
        auto *out = static_cast<uint8_t *>(c.local == CCS_OK ? dst : nullptr);
        if (k == reduction_kind::all && coll_runs_now(c, bytes)) {
            coll::coll_engine::small_in_node call;
            call.signature = coll::reduction_signature(coll::kind::allreduce, count, r);
            call.what = coll::kind::allreduce;
            call.src = in;
            call.dst = out;
            call.bytes = bytes;
            call.r = &r;
            return coll_run_now(c, call);
        }
        switch (k) {
        case reduction_kind::all:
            return coll_launch(c, coll::build_allreduce(c.team->view, c.team->next_seq, in, out, count, r));
        case reduction_kind::to_root: return coll_launch(c, coll::build_reduce(c.team->view, c.team->next_seq, in, out, count, r, root));
        case reduction_kind::scan: return coll_launch(c, coll::build_scan(c.team->view, c.team->next_seq, in, out, count, r, false));
        default: return coll_launch(c, coll::build_scan(c.team->view, c.team->next_seq, in, out, count, r, true));
        }
    });
}

// Where the v-forms' blocks lie, from the caller's arrays; refused (this
// process's mistake) when missing, when its own entry is not `length`, or
// when a block reaches past the end of memory.
coll::blocks caller_blocks(coll_call &c, size_t length, const size_t *lengths, const size_t *offsets) {
    coll::blocks b;
    if (!lengths || !offsets) {
        c.refuse("lengths or offsets is NULL");
        return coll::blocks::uniform(c.size(), 0);
    }
    b.lengths.assign(lengths, lengths + c.size());
    b.offsets.assign(offsets, offsets + c.size());
    for (int i = 0; i < c.size(); ++i)
        if (offsets[i] > std::numeric_limits<size_t>::max() - lengths[i])
            c.refuse("offsets[" + std::to_string(i) + "] + lengths[" + std::to_string(i) + "] does not fit in size_t");
    if (lengths[c.me()] != length)
        c.refuse("lengths[" + std::to_string(c.me()) + "] is " + std::to_string(lengths[c.me()]) +
                 " but this member passes " + std::to_string(length) + " bytes");
    return b;
}

ccs_status_t gather_call(const char *name, ccs_team_t team, const void *src, size_t length, void *dst,
                         const size_t *lengths, const size_t *offsets, bool variable, int root,
                         const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{name};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (root >= 0 && (st = coll_check_root(c, root)) != CCS_OK)) return st;
        const bool everyone = root < 0;
        // Every member's blocks decide allgatherv's algorithm: without them
        // this member could not take part in step with the others.
        if (everyone && variable && (!lengths || !offsets))
            return fail(CCS_ERR_INVALID_ARG, std::string(name) + ": lengths or offsets is NULL");
        coll::blocks b;
        if (!variable) {
            size_t total = 0;
            if ((st = coll_checked_product(c, static_cast<size_t>(c.size()), length, total)) != CCS_OK) return st;
            b = coll::blocks::uniform(c.size(), length);
        } else if (everyone || c.me() == root) {
            b = caller_blocks(c, length, lengths, offsets);
        }
        if (length && !src) c.refuse("src is NULL but length > 0");
        if ((everyone || c.me() == root) && !dst && b.total()) c.refuse("dst is NULL");
        const auto *in = static_cast<const uint8_t *>(c.local == CCS_OK ? src : nullptr);
        auto *out = static_cast<uint8_t *>(c.local == CCS_OK ? dst : nullptr);
        if (everyone) return coll_launch(c, coll::build_allgather(c.team->view, c.team->next_seq, in, length, out, b));
        return coll_launch(c, coll::build_gather(c.team->view, c.team->next_seq, in, length, out, b, !variable, root));
    });
}

}  // namespace

extern "C" {

ccs_status_t ccs_team_barrier(ccs_team_t team, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{"ccs_team_barrier"};
        const ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK) return st;
        if (coll_runs_now(c, 0)) return coll_run_now(c, {coll::signature_of(coll::kind::barrier)});
        return coll_launch(c, coll::build_barrier(c.team->view, c.team->next_seq));
    });
}

ccs_status_t ccs_team_broadcast(ccs_team_t team, void *buffer, size_t length, int root,
                                const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{"ccs_team_broadcast"};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (st = coll_check_root(c, root)) != CCS_OK) return st;
        if (length && !buffer) c.refuse("buffer is NULL but length > 0");
        auto *data = static_cast<uint8_t *>(c.local == CCS_OK ? buffer : nullptr);
        if (coll_runs_now(c, length)) {
            coll::coll_engine::small_in_node call;
            call.signature = coll::broadcast_signature(root, length);
            call.what = coll::kind::broadcast;
            call.dst = data;
            call.bytes = length;
            call.root = root;
            return coll_run_now(c, call);
        }
        return coll_launch(c, coll::build_broadcast(c.team->view, c.team->next_seq, data, length, root));
    });
}

ccs_status_t ccs_team_reduce(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op, int root,
                             const ccs_completion_t *completion) {
    return reduce_call("ccs_team_reduce", reduction_kind::to_root, team, src, dst, count, type, op, root, completion);
}

ccs_status_t ccs_team_allreduce(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                                const ccs_completion_t *completion) {
    return reduce_call("ccs_team_allreduce", reduction_kind::all, team, src, dst, count, type, op, 0, completion);
}

ccs_status_t ccs_team_scan(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                           const ccs_completion_t *completion) {
    return reduce_call("ccs_team_scan", reduction_kind::scan, team, src, dst, count, type, op, 0, completion);
}

ccs_status_t ccs_team_exscan(ccs_team_t team, const void *src, void *dst, size_t count, int type, int op,
                             const ccs_completion_t *completion) {
    return reduce_call("ccs_team_exscan", reduction_kind::exscan, team, src, dst, count, type, op, 0, completion);
}

ccs_status_t ccs_team_gather(ccs_team_t team, const void *src, size_t length, void *dst, int root,
                             const ccs_completion_t *completion) {
    return gather_call("ccs_team_gather", team, src, length, dst, nullptr, nullptr, false, root, completion);
}

ccs_status_t ccs_team_gatherv(ccs_team_t team, const void *src, size_t length, void *dst, const size_t *lengths,
                              const size_t *offsets, int root, const ccs_completion_t *completion) {
    return gather_call("ccs_team_gatherv", team, src, length, dst, lengths, offsets, true, root, completion);
}

ccs_status_t ccs_team_allgather(ccs_team_t team, const void *src, size_t length, void *dst,
                                const ccs_completion_t *completion) {
    return gather_call("ccs_team_allgather", team, src, length, dst, nullptr, nullptr, false, -1, completion);
}

ccs_status_t ccs_team_allgatherv(ccs_team_t team, const void *src, size_t length, void *dst, const size_t *lengths,
                                 const size_t *offsets, const ccs_completion_t *completion) {
    return gather_call("ccs_team_allgatherv", team, src, length, dst, lengths, offsets, true, -1, completion);
}

ccs_status_t ccs_team_alltoall(ccs_team_t team, const void *src, size_t length, void *dst,
                               const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{"ccs_team_alltoall"};
        ccs_status_t st = coll_begin(c, team, completion);
        size_t total = 0;
        if (st != CCS_OK || (st = coll_checked_product(c, static_cast<size_t>(c.size()), length, total)) != CCS_OK)
            return st;
        if (total && (!src || !dst)) c.refuse("src or dst is NULL but length > 0");
        const auto *in = static_cast<const uint8_t *>(c.local == CCS_OK ? src : nullptr);
        auto *out = static_cast<uint8_t *>(c.local == CCS_OK ? dst : nullptr);
        return coll_launch(c, coll::build_alltoall(c.team->view, c.team->next_seq, in, length, out));
    });
}

}  // extern "C"
