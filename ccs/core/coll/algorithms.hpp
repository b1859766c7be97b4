// The collective algorithms, each building its schedule (coll/schedule.hpp)
// for this process from the team and the caller's buffers. Which one a
// call gets depends on the team's size and the data's, never on anything
// that differs between members, so every member builds its part of the
// same algorithm.
#pragma once

#include "core/coll/schedule.hpp"
#include "core/coll/signature.hpp"
#include "core/rma/accumulate_kernels.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccs::coll {

// What a reduction combines: an accumulate op on elements of its type.
struct reduction {
    rma_accumulate acc;  // op, type and a scale of 1
    size_t element = 0;  // bytes of one element
};
reduction make_reduction(int op, int type);
// The signature of a reduction of `count` elements (root: reduce's), and
// of a broadcast.
uint64_t reduction_signature(kind k, size_t count, const reduction &r, uint64_t root = 0);
inline uint64_t broadcast_signature(int root, size_t length) {
    return signature_of(kind::broadcast, static_cast<uint64_t>(root), length);
}

// base + offset; a collective that failed here before it started has null
// buffers, and keeps them null.
template <typename T>
T *at_or_null(T *base, size_t offset) {
    return base ? base + offset : nullptr;
}

// Where each member's block lies in a gathered buffer.
struct blocks {
    std::vector<size_t> lengths, offsets;
    size_t total() const;  // bytes from the first block's start to the last one's end
    size_t data() const;   // bytes in the blocks (what moves)
    static blocks uniform(int members, size_t length);
};

// Below this many bytes in all, an allgather sends each block straight to
// every member (one round); above it, around a ring (size - 1 rounds of
// one block, the least data through each process).
constexpr size_t allgather_direct_max = 16 * 1024;

// `seq`: the collective's number in its team. Where the team has node
// memory (all on one node), collectives go through it
// (coll/algorithms_node.hpp), except: gatherv (only the root knows the
// block sizes), scans past a slot, and small reduce and gather, whose
// members but the root only give: by messages they run ahead of the root
// instead of waiting, every second call, for it to free their slot.
// From this many bytes an allreduce by messages goes around a ring
// (reduce-scatter, then allgather) instead of recursive doubling, with
// more than 2 members (with 2 the two are the same exchange), for every op
// but REPLACE (whose result, the last rank's, needs rank order).
constexpr size_t ring_allreduce_min = 64 * 1024;

// From this many bytes a broadcast by messages among more than two
// members goes along a chain in segments instead of down a binomial tree
// (where the root sends the whole buffer log2 n times).
constexpr size_t chain_broadcast_min = 256 * 1024;
constexpr size_t broadcast_segment = 64 * 1024;

schedule build_barrier(const team_view &t, uint64_t seq);
schedule build_broadcast(const team_view &t, uint64_t seq, uint8_t *buffer, size_t length, int root);
// dst on every member: below ring_allreduce_min, recursive doubling;
// processes past the largest power of two first fold their data into a
// partner. Combination is always (lower ranks' part) op (higher ranks'
// part), so every member computes the same expression. From it, around a
// ring.
schedule build_allreduce(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                         const reduction &r);
// A binomial tree into team rank 0 (the same order whatever the root),
// then to the root.
schedule build_reduce(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                      const reduction &r, int root);
// Prefix reduction by recursive doubling of distance (Hillis-Steele).
schedule build_scan(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                    const reduction &r, bool exclusive);
// `uniform`: every block `length` bytes (gather, not gatherv; b is read at
// the root only).
schedule build_gather(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst,
                      const blocks &b, bool uniform, int root);
schedule build_allgather(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst,
                         const blocks &b);
schedule build_alltoall(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst);

}  // namespace ccs::coll
