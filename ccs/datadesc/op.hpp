// One op of a committed program (program.hpp): a copy, a loop over the
// ops after it, or a copy list.
#pragma once

#include <cstdint>

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
    int32_t plan = -1;  // loop of copies: its body's plan in program::plans, if it fits one

    bool is_copy() const { return !loop && table < 0; }
    bool is_list() const { return !loop && table >= 0; }
    int64_t total() const { return loop ? count * bytes : len; }
};

}  // namespace ccs::dd
