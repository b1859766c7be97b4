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
#include "op.hpp"
#include "run.hpp"
#include "small_body.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ccs::dd {

struct program {
    std::vector<op> ops;
    std::vector<int64_t> tables;  // of table loops and copy lists, back to back
    std::vector<small_body> plans;  // of loops of copies (op::plan), made once here, not per call
    int64_t size = 0;    // data bytes of one element
    int64_t extent = 0;  // element-to-element distance
    int64_t blocks = 0;  // contiguous blocks of one element after merging
    uint32_t depth = 1;  // loop levels a walk holds at once, the elements' own included
    body_shape element_shape = body_shape::ops;  // of ops as the elements' body
    int32_t element_plan = -1;                   // of ops as the elements' body, if copies
    // The walk of one whole element when it is a single run (a copy, a
    // loop the walker hands out whole, a copy list: most layouts), so
    // packing one element from its start skips the walk, which cost
    // about a third of a small call. It points into ops, tables and
    // plans: a program is moved, never copied.
    std::optional<run> element_run;

    program() = default;
    program(const program &) = delete;
    program &operator=(const program &) = delete;
    program(program &&) = default;
    program &operator=(program &&) = default;

    // The plan of the body starting at ops[first] (the elements' at 0, a
    // loop's right after it), or null.
    const small_body *body_plan(uint32_t first) const {
        const int32_t i = first ? ops[first - 1].plan : element_plan;
        return i >= 0 ? &plans[static_cast<size_t>(i)] : nullptr;
    }

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
