// The committed form of a datadesc: a flat, non-recursive program of loop
// nests. ops[i] is a copy or a loop; a loop's body is ops[i+1, end). The
// compiler merges adjacent contiguous copies (also across levels), drops
// single-iteration loops, folds loops whose body is contiguous into one
// copy, and fuses nested loops that step evenly. Blocks of one shape at
// irregular places (indexed_block and the like) become one loop whose
// iterations sit at listed offsets (a table), not one op per block; a long
// run of copies of differing lengths (an iovec) becomes one copy list.
#pragma once

#include "node.hpp"
#include "run.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ccs::dd {

// What a walk hands out for the iterations of a loop (or for the elements):
// the rest of the loop as one run when its body is a shape the copy kernels
// take whole, else op by op. Decided at commit, not at every visit.
enum class body_shape : uint8_t {
    ops,           // walked op by op
    one_copy,      // a simple loop: pieces of one length
    copies,        // copies only: iterations of a flat body
    strided_loop,  // one strided simple loop: a nested run
};

struct op {
    int64_t disp = 0;    // bytes from the enclosing base
    int64_t count = 1;   // loop iterations (copy: 1)
    int64_t stride = 0;  // loop: bytes between iterations
    int64_t len = 0;     // copy: contiguous bytes
    int64_t bytes = 0;   // data bytes of one iteration (copy: len)
    uint32_t end = 0;    // one past this op's body (copy: its own index + 1)
    bool loop = false;
    // Loop: iteration i at disp + tables[table + i] * scale instead of
    // i * stride (tables hold offsets divided by their common factor, so
    // loops over one index list at different element sizes share one).
    // Copy list (not a loop): `count` copies; tables[table + 2k] is copy k's
    // displacement from disp, tables[table + 2k + 1] its length, and
    // tables[table + 2 * count + k] its first byte in the stream (for seeks);
    // len is the list's total.
    int64_t table = -1;
    int64_t scale = 1;  // table loop: multiplier of its table's entries
    body_shape shape = body_shape::ops;  // loop: its body's

    bool is_copy() const { return !loop && table < 0; }
    bool is_list() const { return !loop && table >= 0; }
    int64_t total() const { return loop ? count * bytes : len; }
};

struct program {
    std::vector<op> ops;
    std::vector<int64_t> tables;  // of table loops and copy lists, back to back
    int64_t size = 0;    // data bytes of one element
    int64_t extent = 0;  // element-to-element distance
    int64_t blocks = 0;  // contiguous blocks of one element after merging
    uint32_t depth = 1;  // loop levels a walk holds at once, the elements' own included
    body_shape element_shape = body_shape::ops;  // of ops as the elements' body
    // The walk of one whole element when it is a single run (a copy, a
    // loop the walker hands out whole, a copy list: most layouts), so
    // packing one element from its start skips the walk, which cost
    // about a third of a small call. It points into ops and tables:
    // a program is moved, never copied.
    std::optional<run> element_run;

    program() = default;
    program(const program &) = delete;
    program &operator=(const program &) = delete;
    program(program &&) = default;
    program &operator=(program &&) = default;

    // Whether `count` elements form one contiguous run (which then starts at
    // ops[0].disp, or is empty).
    bool contiguous(int64_t count) const {
        if (size == 0) return true;
        return ops.size() == 1 && ops[0].is_copy() && (count <= 1 || extent == size);
    }
};

ccs_status_t compile(const node &root, program &out);

// True when the loop at ops[i] has a single copy as its whole body.
inline bool simple_loop(const std::vector<op> &ops, uint32_t i) {
    return ops[i].loop && ops[i].end == i + 2 && ops[i + 1].is_copy();
}

}  // namespace ccs::dd
