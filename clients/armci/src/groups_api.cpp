// ARMCI groups.
#include "groups.hpp"

using namespace ccs::armci;

extern "C" {
void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *group_parent) {
    const char *call = "ARMCI_Group_create_child";
    ready(call);
    if (!group_out || !group_parent) fail(call, "group_out or group_parent is NULL");
    if (grp_size < 0 || (grp_size > 0 && !pid_list)) fail(call, "pid_list is NULL or grp_size negative");
    create_group(call, *group_parent, std::vector<int>(pid_list, pid_list + grp_size), group_out);
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out) {
    ARMCI_Group_create_child(grp_size, pid_list, group_out, &default_group());
}

void ARMCI_Group_free(ARMCI_Group *group) {
    ready("ARMCI_Group_free");
    free_group("ARMCI_Group_free", group);
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank) {
    ready("ARMCI_Group_rank");
    if (!group || !rank) return report("ARMCI_Group_rank", CCS_ERR_INVALID_ARG, "group or rank is NULL");
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size) {
    ready("ARMCI_Group_size");
    if (!group || !size) fail("ARMCI_Group_size", "group or size is NULL");
    *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group) {
    const char *call = "ARMCI_Group_set_default";
    ready(call);
    teams_of(call, group);
    default_group() = *group;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out) {
    ready("ARMCI_Group_get_default");
    if (!group_out) fail("ARMCI_Group_get_default", "group_out is NULL");
    *group_out = default_group();
}

void ARMCI_Group_get_world(ARMCI_Group *group_out) {
    ready("ARMCI_Group_get_world");
    if (!group_out) fail("ARMCI_Group_get_world", "group_out is NULL");
    *group_out = world_group();
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank) {
    const char *call = "ARMCI_Absolute_id";
    ready(call);
    const group_teams &g = teams_of(call, group);
    if (group_rank < 0 || static_cast<size_t>(group_rank) >= g.members.size())
        return report(call, CCS_ERR_INVALID_RANK,
                      "group rank " + std::to_string(group_rank) + " is not in 0 .. " +
                          std::to_string(g.members.size() - 1)),
               -1;
    return g.members[static_cast<size_t>(group_rank)];
}
}
