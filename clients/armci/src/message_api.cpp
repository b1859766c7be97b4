// armci_msg_*: process numbers, time, barriers, broadcasts, the binary
// tree. On CCS teams, never on MPI.
#include "groups.hpp"

#include <chrono>

namespace ccs::armci {
namespace {
void broadcast(const char *call, int scope, void *buffer, int len, int root, const ARMCI_Group *group) {
    const process_state &s = ready(call);
    const scope_team t = team_of_scope(call, teams_of(call, group), scope);
    if (!t.team.id) return;  // not a master: SCOPE_MASTERS leaves it out
    if (!valid_proc(s, root)) fail(call, "root " + std::to_string(root) + " is not in " + proc_range(s));
    if (len < 0 || (len > 0 && !buffer)) fail(call, "the buffer is NULL or its length negative");
    // A root outside the scope (another node's process for SCOPE_NODE)
    // stands for the scope's first process.
    const int r = rank_in(t, root);
    check(call, ccs_team_broadcast(t.team, buffer, static_cast<size_t>(len), r < 0 ? 0 : r, nullptr));
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int armci_msg_me(void) { return ready("armci_msg_me").me; }
int armci_msg_nproc(void) { return ready("armci_msg_nproc").nproc; }

double armci_timer(void) {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void parmci_msg_barrier(void) {
    const char *call = "armci_msg_barrier";
    check(call, ccs_team_barrier(ready(call).world, nullptr));
}

void parmci_msg_group_barrier(ARMCI_Group *group) {
    const char *call = "armci_msg_group_barrier";
    ready(call);
    check(call, ccs_team_barrier(teams_of(call, group).all, nullptr));
}

void armci_msg_bcast(void *buffer, int len, int root) {
    broadcast("armci_msg_bcast", SCOPE_ALL, buffer, len, root, &world_group());
}
void armci_msg_brdcst(void *buffer, int len, int root) {
    broadcast("armci_msg_brdcst", SCOPE_ALL, buffer, len, root, &world_group());
}
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root) {
    broadcast("armci_msg_bcast_scope", scope, buffer, len, root, &world_group());
}
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group) {
    broadcast("armci_msg_group_bcast_scope", scope, buf, len, root, group);
}

void armci_msg_clus_brdcst(void *buf, int len) {
    const char *call = "armci_msg_clus_brdcst";
    const process_state &s = ready(call);
    broadcast(call, SCOPE_NODE, buf, len, s.node_procs[static_cast<size_t>(s.node_of[static_cast<size_t>(s.me)])][0],
              &world_group());
}

void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc, ARMCI_Group *mastergroup) {
    const char *call = "armci_grp_clus_brdcst";
    ready(call);
    const group_teams &g = teams_of(call, mastergroup);
    if (static_cast<size_t>(grp_clus_nproc) != g.node_members.size())
        fail(call, "grp_clus_nproc " + std::to_string(grp_clus_nproc) + " is not the group's " +
                       std::to_string(g.node_members.size()) + " processes on this node");
    broadcast(call, SCOPE_NODE, buf, len, grp_master, mastergroup);
}

void armci_msg_bintree(int scope, int *root, int *up, int *left, int *right) {
    const char *call = "armci_msg_bintree";
    const process_state &s = ready(call);
    if (!root || !up || !left || !right) fail(call, "an output is NULL");
    const scope_team t = team_of_scope(call, teams_of(call, &world_group()), scope);
    const std::vector<int> &m = *t.members;
    const int me = rank_in(t, s.me);
    const int n = static_cast<int>(m.size());
    auto id = [&](int r) { return r >= 0 && r < n ? m[static_cast<size_t>(r)] : -1; };
    *root = id(0);
    if (me < 0) {  // not in the scope (a master tree seen from another process)
        *up = *left = *right = -1;
        return;
    }
    *up = me == 0 ? -1 : id((me - 1) / 2);
    *left = id(2 * me + 1);
    *right = id(2 * me + 2);
}
}

extern "C" __attribute__((weak, alias("parmci_msg_barrier"))) void armci_msg_barrier(void);
extern "C" __attribute__((weak, alias("parmci_msg_group_barrier"))) void armci_msg_group_barrier(ARMCI_Group *);
