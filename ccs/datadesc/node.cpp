#include "node.hpp"

#include "util/error.hpp"

#include <algorithm>

namespace ccs::dd {
namespace {

constexpr int max_depth = 64;

ccs_status_t overflow(const char *what) {
    return fail(CCS_ERR_OVERFLOW, std::string("datadesc: ") + what + " does not fit in 64 bits");
}

void widen(std::optional<span> &acc, int64_t lo, int64_t hi) {
    if (!acc) acc = span{lo, hi};
    else acc = span{std::min(acc->lo, lo), std::max(acc->hi, hi)};
}

// Adds `replicas` copies of `c`, the first at `at`, each c's extent further,
// to the bounds of `n`.
ccs_status_t place(node &n, int64_t at, int64_t replicas, const node &c) {
    if (replicas == 0) return CCS_OK;
    int64_t size = 0, span_bytes = 0, last = 0;
    if (!mul(replicas, c.size, size) || !add(n.size, size, n.size)) return overflow("size");
    if (!mul(replicas - 1, c.extent(), span_bytes) || !add(at, span_bytes, last)) return overflow("displacement");
    const int64_t first_lo = std::min(at, last), first_hi = std::max(at, last);
    int64_t lo = 0, hi = 0;
    if (c.data) {
        if (!add(first_lo, c.data->lo, lo) || !add(first_hi, c.data->hi, hi)) return overflow("bound");
        widen(n.data, lo, hi);
    }
    if (c.markers) {
        if (!add(first_lo, c.markers->lo, lo) || !add(first_hi, c.markers->hi, hi)) return overflow("bound");
        widen(n.markers, lo, hi);
    }
    n.depth = std::max(n.depth, c.depth + 1);
    return CCS_OK;
}

// What every finished node must satisfy: nesting within the limit, and
// extents (ub - lb, true_ub - true_lb) that fit in 64 bits, so that no
// later query or compile step wraps (two blocks 2^62 + 1000 bytes either
// side of 0 each fit, their distance does not).
ccs_status_t check_node(const node &n) {
    if (n.depth > max_depth)
        return fail(CCS_ERR_INVALID_ARG, "datadesc: nesting deeper than " + std::to_string(max_depth));
    int64_t width = 0;
    if ((n.data && __builtin_sub_overflow(n.data->hi, n.data->lo, &width)) ||
        (n.markers && __builtin_sub_overflow(n.markers->hi, n.markers->lo, &width)))
        return overflow("extent");
    return CCS_OK;
}

}  // namespace

node_ptr byte_node() {
    static const node_ptr b = [] {
        auto n = std::make_shared<node>();
        n->k = node::kind::byte;
        n->size = 1;
        n->data = span{0, 1};
        return n;
    }();
    return b;
}

ccs_status_t make_strided(int64_t count, int64_t blocklength, int64_t stride_bytes, node_ptr child, node_ptr &out) {
    auto n = std::make_shared<node>();
    n->k = node::kind::strided;
    n->count = count;
    n->blocklength = blocklength;
    n->stride = stride_bytes;
    n->child = child;
    if (count > 0) {
        // The extreme blocks are the first and the last.
        int64_t last = 0;
        if (!mul(count - 1, stride_bytes, last)) return overflow("stride");
        ccs_status_t st = place(*n, 0, blocklength, *child);
        if (st == CCS_OK && count > 1) {
            node tail;  // bounds of the last block alone, merged below
            st = place(tail, last, blocklength, *child);
            if (st == CCS_OK) {
                int64_t size = 0;
                if (!mul(count, n->size, size)) return overflow("size");
                if (tail.data) widen(n->data, tail.data->lo, tail.data->hi);
                if (tail.markers) widen(n->markers, tail.markers->lo, tail.markers->hi);
                n->size = size;
            }
        }
        if (st != CCS_OK) return st;
    }
    n->depth = child->depth + 1;
    if (const ccs_status_t st = check_node(*n); st != CCS_OK) return st;
    out = std::move(n);
    return CCS_OK;
}

ccs_status_t make_blocks(std::vector<block> blocks, node_ptr &out) {
    auto n = std::make_shared<node>();
    n->k = node::kind::blocks;
    for (const auto &b : blocks)
        if (const ccs_status_t st = place(*n, b.displacement, b.blocklength, *b.child); st != CCS_OK) return st;
    // Zero-length blocks neither hold data nor move bounds: drop them.
    blocks.erase(std::remove_if(blocks.begin(), blocks.end(), [](const block &b) { return b.blocklength == 0; }),
                 blocks.end());
    n->blocks = std::move(blocks);
    if (const ccs_status_t st = check_node(*n); st != CCS_OK) return st;
    out = std::move(n);
    return CCS_OK;
}

ccs_status_t make_resized(node_ptr child, int64_t lb, int64_t extent, node_ptr &out) {
    auto n = std::make_shared<node>();
    n->k = node::kind::resized;
    n->size = child->size;
    n->data = child->data;
    int64_t ub = 0;
    if (!add(lb, extent, ub)) return overflow("lb + extent");
    n->markers = span{lb, ub};  // replaces any markers of the child
    n->depth = child->depth + 1;
    n->child = std::move(child);
    if (const ccs_status_t st = check_node(*n); st != CCS_OK) return st;
    out = std::move(n);
    return CCS_OK;
}

}  // namespace ccs::dd
