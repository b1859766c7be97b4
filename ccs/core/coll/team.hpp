// A team: an ordered set of processes with its own numbering, the unit
// every collective runs over. Its wire id names it in every member's
// messages: a context's world team has the context's id, teams made from
// a parent get ids above every context's, agreed on by the parent's
// members when the team is made (coll/team_table.cpp).
#pragma once

#include "core/coll/node_area.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace ccs::coll {

// A team across nodes, in two levels: the members on this node (the
// first of them, its leader, speaks for them) in node memory, and one
// leader per node by messages (coll/algorithms_levels.cpp).
struct two_levels {
    std::shared_ptr<node_area> area;  // this node's members' memory; null when alone here
    std::vector<int> group;           // team ranks on this node, ascending; group[0] leads
    int index = 0;                    // this process's place in group
    std::vector<int> leaders;         // each node's leader (team rank), by its lowest team rank
    int leader_index = -1;            // this process's place in leaders, or -1
    std::vector<int> node_leader;     // for each team rank: its node's leader's index in leaders
};

// The members of a team as one collective sees them. Shared, never
// changed: a team destroyed while its collectives run leaves them this.
struct team_view {
    uint64_t wire_id = 0;
    uint16_t context_id = 0;  // the context the team belongs to
    std::shared_ptr<const std::vector<int>> members;  // job rank of each team rank
    int rank = 0;                                     // this process's team rank
    // Shared memory of a team all on one node (coll/node_area.hpp), or null.
    std::shared_ptr<node_area> area;
    // A team across nodes whose every node's members made their memory.
    std::shared_ptr<const two_levels> levels;
    // The node memory this process's collectives on the team use, if any.
    node_area *memory() const { return area ? area.get() : levels ? levels->area.get() : nullptr; }
    // A node memory member's team rank.
    int team_rank_of(int area_member) const { return levels && !area ? levels->group[static_cast<size_t>(area_member)] : area_member; }

    int size() const { return static_cast<int>(members->size()); }
    int job_rank(int team_rank) const { return (*members)[static_cast<size_t>(team_rank)]; }
    // The team rank of job rank `job`, or -1.
    int rank_of(int job) const {
        for (size_t i = 0; i < members->size(); ++i)
            if ((*members)[i] == job) return static_cast<int>(i);
        return -1;
    }
};

struct team {
    team_view view;
    uint16_t context_id = 0;
    uint64_t next_seq = 0;  // number of this team's next collective here
};

}  // namespace ccs::coll
