// What the walker yields and the copy kernels consume: one stretch of the
// packed stream whose memory places follow one pattern.
#pragma once

#include <cstdint>

namespace ccs::dd {

struct op;
struct small_body;

// A run is either `count` pieces of `len` bytes (body == nullptr), or
// `count` iterations of a body of copies body[0..body_ops) (a loop with
// only copies inside, done whole). Piece or iteration i starts at
// mem + at(i): `stride` apart, or at listed `offsets` (a table loop).
struct run {
    int64_t mem;
    int64_t len;
    int64_t count;
    int64_t stride;
    const op *body = nullptr;
    uint32_t body_ops = 0;
    const int64_t *offsets = nullptr;
    int64_t scale = 1;  // listed offsets are offsets[i] * scale
    // Nested run: each piece is itself inner_count pieces of `len` bytes,
    // inner_stride apart (a loop over a simple loop), when inner_count > 0.
    int64_t inner_count = 0;
    int64_t inner_stride = 0;
    // Copy list: `count` copies, copy k at mem + list[2k], list[2k + 1]
    // bytes long (len and stride unused).
    const int64_t *list = nullptr;
    // Iterations of a body: the body planned at commit, if it fits a plan.
    const small_body *plan = nullptr;

    int64_t at(int64_t i) const { return offsets ? offsets[i] * scale : i * stride; }
};

}  // namespace ccs::dd
