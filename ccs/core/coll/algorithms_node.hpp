// The collectives through node memory (coll/node_area.hpp): of a team all
// on one node, and of a team across nodes in two levels; the algorithms
// (coll/algorithms.hpp) choose them where the team has such memory. `seq`: the collective's number in its
// team; `signature`: what it is (coll/signature.hpp).
#pragma once

#include "core/coll/algorithms.hpp"

namespace ccs::coll {

schedule node_barrier(const team_view &t, uint64_t seq, uint64_t signature);
schedule node_broadcast(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                        int root);
schedule node_allreduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                        size_t count, const reduction &r);

// What a reader takes out of the slots of collective `seq`.
using slot_take = std::function<void(const node_area &a, uint64_t seq)>;
// A small one: this member's `bytes` at `mine` into its slot; then, with a
// `take`, once every member arrived, take reads what it needs.
schedule slot_exchange(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *mine, size_t bytes,
                       slot_take take);

// Small: slots; large: chunk by chunk (coll/algorithms_node_data.cpp), or
// directly where the members reach each other's memory.
// Allgather of blocks b (every member's length known to all), alltoall;
// gather of uniform blocks, large only.
schedule node_gather(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                     uint8_t *dst, int root);
schedule node_allgather(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                        const blocks &b);
schedule node_alltoall(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                       uint8_t *dst);
// Small scans only (slot_bytes at most).
schedule node_scan(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                   size_t count, const reduction &r, bool exclusive);
// Large, where the members reach each other's memory by cross-memory
// attach (coll/algorithms_node_direct.cpp): bytes move straight between
// their buffers.
schedule node_broadcast_direct(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                               int root);
schedule node_gather_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                            uint8_t *dst, int root);
schedule node_allgather_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src,
                               uint8_t *dst, const blocks &b);
schedule node_alltoall_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src,
                              size_t length, uint8_t *dst);
// Large reductions: the result at root (reduce), or everywhere when
// root < 0 (allreduce).
schedule node_reduce_chunks(const team_view &t, uint64_t signature, const uint8_t *src, uint8_t *dst, size_t count,
                            const reduction &r, int root);

// Of a team across nodes, in two levels: node memory on each node,
// messages among one leader per node (algorithms_levels.cpp).
schedule levels_barrier(const team_view &t, uint64_t seq, uint64_t signature);
schedule levels_broadcast(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                          int root);
schedule levels_allreduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                          size_t count, const reduction &r);
// Large only.
schedule levels_reduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                       size_t count, const reduction &r, int root);

// dst = the slots of collective `seq` of members 0 .. members - 1 (all
// when negative) combined in rank order.
void combine_slots(const node_area &a, uint64_t seq, const reduction &r, uint8_t *dst, size_t bytes,
                   int members = -1);

}  // namespace ccs::coll
