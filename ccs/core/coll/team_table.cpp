#include "core/coll/team_table.hpp"

#include "core/coll/algorithms.hpp"
#include "util/error.hpp"

#include <numeric>

namespace ccs::coll {

namespace {

team world_team(uint16_t context_id, int rank, int size) {
    team t;
    std::vector<int> all(static_cast<size_t>(size));
    std::iota(all.begin(), all.end(), 0);
    t.view.wire_id = context_id;
    t.view.members = std::make_shared<const std::vector<int>>(std::move(all));
    t.view.rank = rank;
    t.context_id = context_id;
    t.view.context_id = context_id;
    return t;
}

uint64_t hash_of(const std::vector<int> &ranks) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r : ranks) h = (h ^ static_cast<uint32_t>(r)) * 0x100000001b3ull;
    return (h ^ ranks.size()) * 0x100000001b3ull;
}

}  // namespace

team_table::team_table(coll_engine &engine, int rank, int size, std::function<void()> progress, node_memory memory)
    : engine_(engine),
      node_memory_(std::move(memory)),
      rank_(rank),
      size_(size),
      progress_(std::move(progress)),
      world_(world_team(0, rank, size)) {}

// Node memory goes before the registry and keys it came from.
team_table::~team_table() = default;

ccs_status_t team_table::set_up_world() { return set_up_area(world_); }

ccs_status_t team_table::make_world(uint16_t context_id) {
    const uint64_t handle = teams_.insert(world_team(context_id, rank_, size_));
    worlds_[context_id] = handle;
    return set_up_area(*teams_.find(handle));
}

team *team_table::find(uint64_t handle) { return handle == world_handle ? &world_ : teams_.find(handle); }

uint64_t team_table::world_of(uint16_t context_id) const {
    const auto it = worlds_.find(context_id);
    return it == worlds_.end() ? 0 : it->second;
}

// One allreduce (MAX) over the parent agrees on everything at once: the
// new team's wire id (above every id any member used), whether any member
// failed its checks, and (a hash and its complement, i.e. its max and min)
// whether all passed the same members.
ccs_status_t team_table::create(const char *call, team &parent, ccs_status_t local, const std::vector<int> &ranks,
                                uint64_t &handle) {
    handle = 0;
    const std::string why = local == CCS_OK ? std::string() : last_error();
    const uint64_t h = hash_of(ranks);
    uint64_t mine[4] = {next_wire_id_, local != CCS_OK ? 1u : 0u, h, ~h}, agreed[4] = {};
    const reduction max = make_reduction(CCS_ACC_MAX, CCS_ACC_UINT64);
    ccs_status_t st = run(parent, build_allreduce(parent.view, parent.next_seq, reinterpret_cast<uint8_t *>(mine),
                                                  reinterpret_cast<uint8_t *>(agreed), 4, max));
    if (st != CCS_OK) return fail(st, std::string(call) + ": " + last_error());
    next_wire_id_ = agreed[0] + 1;
    if (local != CCS_OK) return fail(local, why);
    if (agreed[1]) return fail(CCS_ERR_INVALID_ARG, std::string(call) + " failed on another member; no team was made");
    if (agreed[2] != ~agreed[3])
        return fail(CCS_ERR_INVALID_ARG,
                    std::string(call) + ": the members of the parent passed different members; no team was made");
    team t;
    std::vector<int> job_ranks;
    for (int r : ranks) job_ranks.push_back(parent.view.job_rank(r));
    t.view.wire_id = agreed[0];
    t.view.rank = -1;
    for (size_t i = 0; i < job_ranks.size(); ++i)
        if (job_ranks[i] == rank_) t.view.rank = static_cast<int>(i);
    if (t.view.rank < 0) return CCS_OK;
    t.view.members = std::make_shared<const std::vector<int>>(std::move(job_ranks));
    t.context_id = parent.context_id;
    t.view.context_id = parent.context_id;
    handle = teams_.insert(std::move(t));
    if ((st = set_up_area(*teams_.find(handle))) != CCS_OK) {
        teams_.erase(handle);
        handle = 0;
    }
    return st;
}

ccs_status_t team_table::destroy(const char *call, uint64_t handle) {
    if (handle == world_handle)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": CCS_TEAM_WORLD lives until the last ccs_finalize");
    team *t = teams_.find(handle);
    if (!t) return fail(CCS_ERR_INVALID_TEAM, std::string(call) + ": no such team (destroyed, or never made)");
    if (t->view.wire_id < first_made_id)
        return fail(CCS_ERR_INVALID_ARG,
                    std::string(call) + ": a context's world team goes with its context (ccs_context_destroy)");
    teams_.erase(handle);
    return CCS_OK;
}

void team_table::context_destroyed(uint16_t context_id) {
    std::vector<uint64_t> gone;
    teams_.for_each([&](uint64_t handle, team &t) {
        if (t.context_id == context_id) gone.push_back(handle);
    });
    for (uint64_t handle : gone) teams_.erase(handle);
    worlds_.erase(context_id);
}

}  // namespace ccs::coll
