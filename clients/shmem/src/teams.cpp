// Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED (the PEs whose heaps are
// mapped into each other, so shmem_ptr works between them) and teams split
// from them, each a CCS team.
#include "handle_pool.hpp"
#include "pe_state.hpp"

#include <algorithm>
#include <cstdio>

struct shmem_team_s shmem_team_world_object_{};
struct shmem_team_s shmem_team_shared_object_{};

namespace ccs::shmem {
namespace {
handle_pool<shmem_team_s> &teams() {
    static handle_pool<shmem_team_s> pool;
    return pool;
}

// Fills in a team from its CCS team: numbers and the world PE of each member.
void describe(const char *call, shmem_team_s &t, ccs_team_t team, const shmem_team_config_t *config) {
    const pe_state &s = pe();
    t.magic = team_alive;
    t.team = team;
    check(call, ccs_team_rank(team, &t.my_pe));
    check(call, ccs_team_size(team, &t.n_pes));
    t.config = config ? *config : shmem_team_config_t{0};
    t.world_pes.assign(static_cast<size_t>(t.n_pes), -1);
    for (int r = 0; r < t.n_pes; ++r) check(call, ccs_team_translate(team, r, s.world, &t.world_pes[static_cast<size_t>(r)]));
}

shmem_team_t keep(const char *call, ccs_team_t team, const shmem_team_config_t *config) {
    auto made = std::make_unique<shmem_team_s>();
    describe(call, *made, team, config);
    return teams().keep(std::move(made));
}

// Returns the failed split's reason where the caller can read it: these
// calls return an error instead of ending the job.
int refuse(const char *call, ccs_status_t st) {
    std::fprintf(stderr, "shmem: %s: %s: %s\n", call, ccs_strerror(st), ccs_last_error());
    return -1;
}
}  // namespace

void create_predefined_teams(const char *call, pe_state &s) {
    describe(call, shmem_team_world_object_, s.world, nullptr);
    // Each PE names the lowest PE it shares memory with; equal names form
    // the shared teams, one CCS team per node, made in the order of names.
    int mine = s.me;
    for (int r = 0; r < s.me; ++r) {
        ccs_peer_attr_t attr{};
        attr.struct_size = sizeof attr;
        check(call, ccs_peer_query(r, &attr));
        if ((attr.flags & CCS_PEER_SAME_NODE) && (attr.flags & CCS_PEER_MAPS_MEMORY)) {
            mine = r;
            break;
        }
    }
    std::vector<int> names(static_cast<size_t>(s.npes));
    check(call, ccs_team_allgather(s.world, &mine, sizeof mine, names.data(), nullptr));
    if (std::all_of(names.begin(), names.end(), [](int n) { return n == 0; })) {
        describe(call, shmem_team_shared_object_, s.world, nullptr);
        return;
    }
    ccs_team_t shared{0};
    for (int name = 0; name < s.npes; ++name) {
        std::vector<int> members;
        for (int r = 0; r < s.npes; ++r)
            if (names[static_cast<size_t>(r)] == name) members.push_back(r);
        if (members.empty()) continue;
        ccs_team_t t{0};
        check(call, ccs_team_create(s.world, members.data(), static_cast<int>(members.size()), &t));
        if (name == mine) shared = t;
    }
    describe(call, shmem_team_shared_object_, shared, nullptr);
}

void destroy_predefined_teams() {
    shmem_team_world_object_.magic = team_destroyed;
    shmem_team_shared_object_.magic = team_destroyed;
}
}  // namespace ccs::shmem

using namespace ccs::shmem;

extern "C" {
int shmem_team_my_pe(shmem_team_t team) {
    ready("shmem_team_my_pe");
    return team == SHMEM_TEAM_INVALID ? -1 : live_team("shmem_team_my_pe", team).my_pe;
}

int shmem_team_n_pes(shmem_team_t team) {
    ready("shmem_team_n_pes");
    return team == SHMEM_TEAM_INVALID ? -1 : live_team("shmem_team_n_pes", team).n_pes;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
    const char *call = "shmem_team_get_config";
    ready(call);
    if (team == SHMEM_TEAM_INVALID) return -1;
    const shmem_team_s &t = live_team(call, team);
    if (!config) fail(call, "config is NULL");
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t.config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
    const char *call = "shmem_team_translate_pe";
    ready(call);
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
    const shmem_team_s &from = live_team(call, src_team), &to = live_team(call, dest_team);
    if (src_pe < 0 || src_pe >= from.n_pes) return -1;
    int r = -1;
    check(call, ccs_team_translate(from.team, src_pe, to.team, &r));
    return r;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team) {
    const char *call = "shmem_team_split_strided";
    ready(call);
    if (!new_team) fail(call, "new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) return -1;
    const shmem_team_s &parent = live_team(call, parent_team);
    ccs_team_t t{0};
    const ccs_status_t st = ccs_team_split_strided(parent.team, start, stride, size, &t);
    if (st != CCS_OK) return refuse(call, st);
    if (t.id != 0) *new_team = keep(call, t, (config_mask & SHMEM_TEAM_NUM_CONTEXTS) ? config : nullptr);
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team) {
    const char *call = "shmem_team_split_2d";
    ready(call);
    if (!xaxis_team || !yaxis_team) fail(call, "xaxis_team or yaxis_team is NULL");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) return -1;
    const shmem_team_s &parent = live_team(call, parent_team);
    if (xrange < 1) {
        std::fprintf(stderr, "shmem: %s: xrange %d is not positive\n", call, xrange);
        return -1;
    }
    const int n = parent.n_pes, x = std::min(xrange, n);
    // Rows of x consecutive PEs, then columns of the PEs x apart: one
    // split of the parent for each, since every member takes part in each.
    for (int row = 0; row * x < n; ++row) {
        ccs_team_t t{0};
        const ccs_status_t st = ccs_team_split_strided(parent.team, row * x, 1, std::min(x, n - row * x), &t);
        if (st != CCS_OK) return refuse(call, st);
        if (t.id != 0) *xaxis_team = keep(call, t, (xaxis_mask & SHMEM_TEAM_NUM_CONTEXTS) ? xaxis_config : nullptr);
    }
    for (int column = 0; column < x; ++column) {
        ccs_team_t t{0};
        const ccs_status_t st = ccs_team_split_strided(parent.team, column, x, (n - column + x - 1) / x, &t);
        if (st != CCS_OK) return refuse(call, st);
        if (t.id != 0) *yaxis_team = keep(call, t, (yaxis_mask & SHMEM_TEAM_NUM_CONTEXTS) ? yaxis_config : nullptr);
    }
    return 0;
}

void shmem_team_destroy(shmem_team_t team) {
    const char *call = "shmem_team_destroy";
    ready(call);
    if (team == SHMEM_TEAM_INVALID) return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        fail(call, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    shmem_team_s &t = live_team(call, team);
    destroy_team_contexts(call, &t);
    check(call, ccs_team_destroy(t.team));
    t.magic = team_destroyed;
}
}
