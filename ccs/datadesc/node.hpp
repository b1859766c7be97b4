// The layout tree behind a datadesc handle. Every constructor reduces to
// four node kinds; all bounds are computed once, when the node is built.
//
//   byte      one byte
//   strided   count blocks, `stride` bytes apart, each `blocklength`
//             consecutive replicas of child (vector, hvector, contiguous)
//   blocks    listed (displacement, blocklength, child) blocks (indexed,
//             hindexed, block variants, struct, iov, subarray placement)
//   resized   child with explicit lb and extent
//
// Bounds follow MPI: data bounds (true_lb/true_ub) cover the bytes; lb/ub
// markers, set by resized, are sticky: where any replica carries markers,
// lb and ub come from the markers only.
#pragma once

#include <ccs/ccs.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ccs::dd {

struct node;
using node_ptr = std::shared_ptr<const node>;

struct span {
    int64_t lo = 0;
    int64_t hi = 0;
};

struct block {
    int64_t displacement;  // bytes
    int64_t blocklength;   // replicas of child, child-extent apart
    node_ptr child;
};

struct node {
    enum class kind { byte, strided, blocks, resized } k = kind::byte;

    // Parameters (by kind).
    int64_t count = 0, blocklength = 0, stride = 0;  // strided
    node_ptr child;                                   // strided, resized
    std::vector<block> blocks;                        // blocks

    // Bounds.
    int64_t size = 0;             // data bytes
    std::optional<span> data;     // [true_lb, true_ub) when size > 0
    std::optional<span> markers;  // [lb marker, ub marker] when any
    int depth = 0;                // nesting, for limits

    int64_t lb() const { return markers ? markers->lo : (data ? data->lo : 0); }
    int64_t ub() const { return markers ? markers->hi : (data ? data->hi : 0); }
    int64_t extent() const { return ub() - lb(); }
    int64_t true_lb() const { return data ? data->lo : 0; }
    int64_t true_extent() const { return data ? data->hi - data->lo : 0; }
};

// Each returns CCS_OK and the node, or an error (with ccs_last_error set).
node_ptr byte_node();
ccs_status_t make_strided(int64_t count, int64_t blocklength, int64_t stride_bytes, node_ptr child, node_ptr &out);
ccs_status_t make_blocks(std::vector<block> blocks, node_ptr &out);
ccs_status_t make_resized(node_ptr child, int64_t lb, int64_t extent, node_ptr &out);

// Overflow-checked arithmetic.
inline bool add(int64_t a, int64_t b, int64_t &r) { return !__builtin_add_overflow(a, b, &r); }
inline bool mul(int64_t a, int64_t b, int64_t &r) { return !__builtin_mul_overflow(a, b, &r); }

}  // namespace ccs::dd
