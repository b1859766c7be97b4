// The small collectives of a team across nodes, in two levels: node
// memory on each node, messages among one leader per node
// (coll/algorithms_levels.cpp). The algorithms (coll/algorithms.hpp)
// choose them where the team has two levels.
#pragma once

#include "core/coll/algorithms.hpp"

namespace ccs::coll {

schedule levels_barrier(const team_view &t, uint64_t seq, uint64_t signature);
schedule levels_broadcast(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                          int root);
schedule levels_allreduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                          size_t count, const reduction &r);

}  // namespace ccs::coll
