// Walks the packed stream of `count` elements of a program from any byte
// offset, yielding runs: `count` pieces of `len` bytes, `stride` apart in
// memory, starting at memory offset `mem` (relative to the buffer). A
// simple loop comes out as one run, so copy kernels see whole loops.
#pragma once

#include "program.hpp"

#include <vector>

namespace ccs::dd {

// A run is either `count` pieces of `len` bytes, `stride` apart (body ==
// nullptr), or `count` iterations, `stride` apart, of a body of copies
// body[0..body_ops) (a loop with only copies inside, done whole).
struct run {
    int64_t mem;
    int64_t len;
    int64_t count;
    int64_t stride;
    const op *body = nullptr;
    uint32_t body_ops = 0;
};

class walker {
public:
    walker(const program &p, int64_t count);
    // Positions the walk at stream byte `offset` (< count * size).
    void seek(int64_t offset);
    bool next(run &out);

private:
    struct level {
        uint32_t first, end;  // body op range
        int64_t count, stride;
        int64_t base;         // memory offset of iteration 0
        int64_t iter;
        uint32_t pos;         // next body op
        bool simple;          // body is a single copy
        bool flat;            // body is copies only
    };
    bool flat_body(uint32_t first, uint32_t end) const;
    void push(uint32_t loop_index, int64_t base, int64_t iter);

    const program &p_;
    int64_t elements_;
    std::vector<level> stack_;
    int64_t skip_ = 0;  // bytes to skip at the next copy (seek landed inside it)
};

}  // namespace ccs::dd
