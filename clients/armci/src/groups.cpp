#include "groups.hpp"

#include <message.h>

#include <algorithm>
#include <map>

namespace ccs::armci {
namespace {
std::map<const int *, group_teams> &registry() {
    static std::map<const int *, group_teams> r;
    return r;
}
ARMCI_Group the_world{};
ARMCI_Group the_default{};

// The node and masters teams of a group whose `all` team exists and whose
// members are known (collective over the group).
void add_scope_teams(const char *call, group_teams &g) {
    const process_state &s = the_process;
    std::map<int, std::vector<int>> by_node;  // node -> group ranks
    for (size_t r = 0; r < g.members.size(); ++r)
        by_node[s.node_of[static_cast<size_t>(g.members[r])]].push_back(static_cast<int>(r));
    std::vector<int> masters;
    for (const auto &[node, ranks] : by_node) {
        ccs_team_t t{0};
        check(call, ccs_team_create(g.all, ranks.data(), static_cast<int>(ranks.size()), &t));
        if (t.id) {
            g.node = t;
            for (int r : ranks) g.node_members.push_back(g.members[static_cast<size_t>(r)]);
        }
        masters.push_back(ranks.front());
        g.master_members.push_back(g.members[static_cast<size_t>(ranks.front())]);
    }
    check(call, ccs_team_create(g.all, masters.data(), static_cast<int>(masters.size()), &g.masters));
}

// Fills the struct of a member and remembers its teams.
void publish(group_teams &&g, MPI_Comm comm, ARMCI_Group *out) {
    const process_state &s = the_process;
    const size_t n = g.members.size();
    out->comm = comm;
    out->noncoll_pgroup_comm = MPI_COMM_NULL;
    out->grp_to_abs = new int[n];
    out->abs_to_grp = new int[static_cast<size_t>(s.nproc)];
    std::fill(out->abs_to_grp, out->abs_to_grp + s.nproc, -1);
    for (size_t i = 0; i < n; ++i) {
        out->grp_to_abs[i] = g.members[i];
        out->abs_to_grp[g.members[i]] = static_cast<int>(i);
    }
    out->rank = out->abs_to_grp[s.me];
    out->size = static_cast<int>(n);
    registry().emplace(out->grp_to_abs, std::move(g));
}
}  // namespace

ARMCI_Group &world_group() { return the_world; }
ARMCI_Group &default_group() { return the_default; }

scope_team team_of_scope(const char *call, const group_teams &g, int scope) {
    switch (scope) {
        case SCOPE_ALL: return {g.all, &g.members};
        case SCOPE_NODE: return {g.node, &g.node_members};
        case SCOPE_MASTERS: return {g.masters, &g.master_members};
        default: fail(call, "scope " + std::to_string(scope) + " is none of SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS");
    }
}

int rank_in(const scope_team &t, int proc) {
    auto it = std::find(t.members->begin(), t.members->end(), proc);
    return it == t.members->end() ? -1 : static_cast<int>(it - t.members->begin());
}

void create_world_group(const char *call, MPI_Comm comm, ARMCI_Group *out) {
    const process_state &s = the_process;
    group_teams g;
    g.all = s.world;
    for (int p = 0; p < s.nproc; ++p) g.members.push_back(p);
    add_scope_teams(call, g);
    publish(std::move(g), comm, out);
}

void create_group(const char *call, const ARMCI_Group &parent, const std::vector<int> &ranks, ARMCI_Group *out) {
    const group_teams &p = teams_of(call, &parent);
    group_teams g;
    // CCS checks the list on every member alike (in range, distinct, the
    // same everywhere) before anything is made.
    check(call, ccs_team_create(p.all, ranks.data(), static_cast<int>(ranks.size()), &g.all));
    MPI_Group parent_group, group;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_group(parent.comm, &parent_group);
    MPI_Group_incl(parent_group, static_cast<int>(ranks.size()), ranks.data(), &group);
    if (MPI_Comm_create(parent.comm, group, &comm) != MPI_SUCCESS) fail(call, "MPI_Comm_create failed");
    MPI_Group_free(&group);
    MPI_Group_free(&parent_group);
    if (!g.all.id) {
        *out = ARMCI_Group{MPI_COMM_NULL, MPI_COMM_NULL, nullptr, nullptr, -1, static_cast<int>(ranks.size())};
        return;
    }
    for (int r : ranks) g.members.push_back(p.members[static_cast<size_t>(r)]);
    add_scope_teams(call, g);
    publish(std::move(g), comm, out);
}

const group_teams &teams_of(const char *call, const ARMCI_Group *group) {
    if (!group) fail(call, "the group is NULL");
    auto it = registry().find(group->grp_to_abs);
    if (it == registry().end())
        fail(call, group->comm == MPI_COMM_NULL && group->rank == -1 ? "this process is not a member of the group"
                                                                     : "not a group, or one already freed");
    return it->second;
}

namespace {
void release(std::map<const int *, group_teams>::iterator it) {
    group_teams &g = it->second;
    if (g.masters.id) ccs_team_destroy(g.masters);
    if (g.node.id) ccs_team_destroy(g.node);
    if (g.all.id != the_process.world.id) ccs_team_destroy(g.all);
    registry().erase(it);
}
}  // namespace

void free_group(const char *call, ARMCI_Group *group) {
    if (!group) fail(call, "the group is NULL");
    if (group->comm == MPI_COMM_NULL && !group->grp_to_abs) return;  // not a member: nothing was made here
    if (group->grp_to_abs == the_world.grp_to_abs) fail(call, "the world group cannot be freed");
    auto it = registry().find(group->grp_to_abs);
    if (it == registry().end()) fail(call, "not a group, or one already freed");
    release(it);
    if (the_default.grp_to_abs == group->grp_to_abs) the_default = the_world;
    delete[] group->grp_to_abs;
    delete[] group->abs_to_grp;
    MPI_Comm_free(&group->comm);
    *group = ARMCI_Group{MPI_COMM_NULL, MPI_COMM_NULL, nullptr, nullptr, -1, 0};
}

void free_all_groups() {
    while (!registry().empty()) release(registry().begin());
    delete[] the_world.grp_to_abs;
    delete[] the_world.abs_to_grp;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && the_world.comm != MPI_COMM_NULL) MPI_Comm_free(&the_world.comm);
    the_world = ARMCI_Group{};
    the_default = ARMCI_Group{};
}

}  // namespace ccs::armci
