// C entry points of teams (ccs/coll.h): arguments checked here; the table
// of teams and their collective creation live in coll/team_table.
#include "api_guard.hpp"

#include <ccs/coll.h>

#include <set>
#include <string>

using namespace ccs;

namespace {

[[gnu::cold]] ccs_status_t no_team(const char *call, ccs_team_t team) {
    return fail(CCS_ERR_INVALID_TEAM, std::string(call) + ": team " + std::to_string(team.id) +
                                          " was never made, was destroyed, or its context was");
}

coll::team *lookup(const char *call, ccs_team_t handle, runtime *&rt, ccs_status_t &st) {
    rt = running(st, call);
    if (!rt) return nullptr;
    coll::team *t = rt->teams().find(handle.id);
    if (!t) st = no_team(call, handle);
    return t;
}

// The common part of the two ways to make a team: every member of the
// parent takes part, its own arguments good or not (`local`).
ccs_status_t make_team(const char *call, runtime *rt, coll::team *parent, ccs_status_t local,
                       const std::vector<int> &ranks, ccs_team_t *out) {
    ccs_status_t st = check_not_in_callback(*rt, call);
    if (st != CCS_OK) return st;
    if (local == CCS_OK && !out) local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": team is NULL");
    uint64_t handle = 0;
    st = rt->teams().create(call, *parent, local, ranks, handle);
    if (out) *out = ccs_team_t{handle};
    return st;
}

// ccs_team_rank and ccs_team_size: one number of a live team.
template <typename Number>
ccs_status_t team_number(const char *call, ccs_team_t handle, int *out, Number number) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        ccs_status_t st = CCS_OK;
        const coll::team *t = lookup(call, handle, rt, st);
        if (!t) return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": the result pointer is NULL");
        *out = number(*t);
        return CCS_OK;
    });
}

}  // namespace

extern "C" {

ccs_status_t ccs_team_world(ccs_context_t context, ccs_team_t *team) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_team_world");
        if (!rt) return st;
        const ccs::context *ctx = rt->contexts().by_handle(context);
        if (!ctx)
            return fail(CCS_ERR_INVALID_CONTEXT, "ccs_team_world: context " + std::to_string(context.id) +
                                                     " was never created or has been destroyed");
        if (!team) return fail(CCS_ERR_INVALID_ARG, "ccs_team_world: team is NULL");
        *team = ccs_team_t{rt->teams().world_of(ctx->id())};
        return CCS_OK;
    });
}

ccs_status_t ccs_team_split_strided(ccs_team_t parent, int start, int stride, int size, ccs_team_t *team) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_team_split_strided";
        runtime *rt = nullptr;
        ccs_status_t st = CCS_OK;
        coll::team *p = lookup(call, parent, rt, st);
        if (!p) return st;
        const int64_t n = p->view.size();
        const int64_t last = static_cast<int64_t>(start) + static_cast<int64_t>(stride) * (size - 1);
        ccs_status_t local = CCS_OK;
        std::vector<int> ranks;
        if (size < 1 || size > n)
            local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": size " + std::to_string(size) +
                                                  " is not in [1, " + std::to_string(n) + "]");
        else if (start < 0 || start >= n)
            local = fail(CCS_ERR_INVALID_RANK, std::string(call) + ": start " + std::to_string(start) +
                                                   " is not a rank of the parent (size " + std::to_string(n) + ")");
        else if (size > 1 && stride < 1)
            local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": stride " + std::to_string(stride) + " is not >= 1");
        else if (last >= n)
            local = fail(CCS_ERR_INVALID_RANK, std::string(call) + ": the last member, parent rank " +
                                                   std::to_string(last) + ", is past the parent's size " +
                                                   std::to_string(n));
        else
            for (int i = 0; i < size; ++i) ranks.push_back(start + i * stride);
        return make_team(call, rt, p, local, ranks, team);
    });
}

ccs_status_t ccs_team_create(ccs_team_t parent, const int *ranks, int count, ccs_team_t *team) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_team_create";
        runtime *rt = nullptr;
        ccs_status_t st = CCS_OK;
        coll::team *p = lookup(call, parent, rt, st);
        if (!p) return st;
        const int n = p->view.size();
        ccs_status_t local = CCS_OK;
        std::vector<int> list;
        if (count < 1 || count > n)
            local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": count " + std::to_string(count) +
                                                  " is not in [1, " + std::to_string(n) + "]");
        else if (!ranks)
            local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": ranks is NULL");
        else {
            std::set<int> seen;
            for (int i = 0; i < count && local == CCS_OK; ++i) {
                if (ranks[i] < 0 || ranks[i] >= n)
                    local = fail(CCS_ERR_INVALID_RANK, std::string(call) + ": ranks[" + std::to_string(i) + "] = " +
                                                           std::to_string(ranks[i]) + " is not a rank of the parent (size " +
                                                           std::to_string(n) + ")");
                else if (!seen.insert(ranks[i]).second)
                    local = fail(CCS_ERR_INVALID_ARG, std::string(call) + ": parent rank " + std::to_string(ranks[i]) +
                                                          " is listed twice");
            }
            if (local == CCS_OK) list.assign(ranks, ranks + count);
        }
        return make_team(call, rt, p, local, list, team);
    });
}

ccs_status_t ccs_team_destroy(ccs_team_t team) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_team_destroy");
        if (!rt) return st;
        return rt->teams().destroy("ccs_team_destroy", team.id);
    });
}

ccs_status_t ccs_team_rank(ccs_team_t team, int *rank) {
    return team_number("ccs_team_rank", team, rank, [](const coll::team &t) { return t.view.rank; });
}

ccs_status_t ccs_team_size(ccs_team_t team, int *size) {
    return team_number("ccs_team_size", team, size, [](const coll::team &t) { return t.view.size(); });
}

ccs_status_t ccs_team_translate(ccs_team_t from, int rank, ccs_team_t to, int *to_rank) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_team_translate";
        runtime *rt = nullptr;
        ccs_status_t st = CCS_OK;
        const coll::team *a = lookup(call, from, rt, st);
        if (!a) return st;
        const coll::team *b = lookup(call, to, rt, st);
        if (!b) return st;
        if (!to_rank) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": to_rank is NULL");
        if (rank < 0 || rank >= a->view.size())
            return fail(CCS_ERR_INVALID_RANK, std::string(call) + ": rank " + std::to_string(rank) +
                                                  " is not in [0, " + std::to_string(a->view.size()) + ")");
        *to_rank = b->view.rank_of(a->view.job_rank(rank));
        return CCS_OK;
    });
}

}  // extern "C"
