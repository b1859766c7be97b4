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

// The members of a team as one collective sees them. Shared, never
// changed: a team destroyed while its collectives run leaves them this.
struct team_view {
    uint64_t wire_id = 0;
    std::shared_ptr<const std::vector<int>> members;  // job rank of each team rank
    int rank = 0;                                     // this process's team rank
    // Shared memory of a team all on one node (coll/node_area.hpp), or null.
    std::shared_ptr<node_area> area;

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
