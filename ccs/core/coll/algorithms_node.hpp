// The collectives of a team all on one node, through its shared memory
// (coll/node_area.hpp); the algorithms (coll/algorithms.hpp) choose them
// where the team has such memory. `seq`: the collective's number in its
// team.
#pragma once

#include "core/coll/algorithms.hpp"

namespace ccs::coll {

schedule node_barrier(const team_view &t, uint64_t seq);
schedule node_broadcast(const team_view &t, uint64_t seq, uint8_t *buffer, size_t length, int root);
schedule node_allreduce(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                        const reduction &r);

}  // namespace ccs::coll
