// ARMCI groups: each is a CCS team of its members (with a team of the
// members on each node and one of the nodes' first members, for the
// scopes of armci_msg_*) and an MPI communicator the application uses for
// its own messaging. Known by the member list CCS allocates for the
// group (ARMCI_Group.grp_to_abs), which every copy of the struct shares.
#pragma once

#include "state.hpp"

namespace ccs::armci {

struct group_teams {
    ccs_team_t all{0};
    ccs_team_t node{0};               // the members on this process's node
    ccs_team_t masters{0};            // each node's first member; {0} on the others
    std::vector<int> members;         // absolute ids, in group order
    std::vector<int> node_members;    // the same for the node team
    std::vector<int> master_members;  // and for the masters team
};

// The team of `scope` (SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS) and its
// members' absolute ids; team {0} where this process is not in it.
struct scope_team {
    ccs_team_t team;
    const std::vector<int> *members;
};
scope_team team_of_scope(const char *call, const group_teams &g, int scope);
// The rank in `t` of absolute id `proc`, or -1.
int rank_in(const scope_team &t, int proc);

// Creates the group of `parent`'s ranks `ranks` (collective over parent):
// fills *out on every member of parent (comm MPI_COMM_NULL and rank -1
// where it is not a member). fail()s on every member alike.
void create_group(const char *call, const ARMCI_Group &parent, const std::vector<int> &ranks, ARMCI_Group *out);
// The world group over `comm` (collective at start-up).
void create_world_group(const char *call, MPI_Comm comm, ARMCI_Group *out);
void free_group(const char *call, ARMCI_Group *group);
void free_all_groups();
// The teams of a live group this process is a member of, or fail().
const group_teams &teams_of(const char *call, const ARMCI_Group *group);
// The world group and the default group.
ARMCI_Group &world_group();
ARMCI_Group &default_group();

}  // namespace ccs::armci
