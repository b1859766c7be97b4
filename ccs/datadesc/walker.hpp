// Walks the packed stream of `count` elements of a program from any byte
// offset, yielding runs: `count` pieces of `len` bytes, `stride` apart in
// memory, starting at memory offset `mem` (relative to the buffer). A
// simple loop comes out as one run, so copy kernels see whole loops.
#pragma once

#include "program.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace ccs::dd {

// `count` iterations of a loop whose body (`ops` ops from `body`, planned
// as `plan` if not null) has a shape other than body_shape::ops, as one
// run; iteration i at origin + i * stride, or at origin + offsets[i] * scale.
inline run whole_iterations(const op *body, uint32_t ops, body_shape shape, const small_body *plan, int64_t origin, int64_t count,
                            int64_t stride, const int64_t *offsets = nullptr, int64_t scale = 1) {
    const op &o = body[0];
    if (shape == body_shape::one_copy) return {origin + o.disp, o.len, count, stride, nullptr, 0, offsets, scale};
    if (shape == body_shape::copies) {
        run r{origin, 0, count, stride, body, ops, offsets, scale};
        r.plan = plan;
        return r;
    }
    const op &piece = body[1];  // strided_loop
    return {origin + o.disp + piece.disp, piece.len, count, stride, nullptr, 0, offsets, scale, o.count, o.stride};
}

class walker {
public:
    walker(const program &p, int64_t count);
    walker(const walker &) = delete;  // levels_ may point into the walker itself
    walker &operator=(const walker &) = delete;
    // Positions the walk at stream byte `offset` (< count * size).
    void seek(int64_t offset);
    bool next(run &out);

private:
    struct level {
        uint32_t first, end;  // body op range
        int64_t count, stride;
        const int64_t *offsets;  // table loop: iteration offsets / scale, else nullptr
        int64_t scale;
        int64_t base;            // memory offset of iteration 0
        int64_t iter;
        uint32_t pos;         // next body op
        body_shape shape;     // of the body

        int64_t iteration_base() const { return base + (offsets ? offsets[iter] * scale : iter * stride); }
    };
    void push(uint32_t loop_index, int64_t base, int64_t iter);

    level &top() { return levels_[depth_ - 1]; }

    const program &p_;
    int64_t elements_;
    // The walk's loop levels: in the walker for usual depths, so a pack of
    // a few bytes makes no allocation; from the heap for deeper programs.
    static constexpr uint32_t inline_depth = 6;
    level inline_levels_[inline_depth];
    std::unique_ptr<level[]> heap_levels_;
    level *levels_;
    uint32_t depth_ = 0;
    int64_t skip_ = 0;   // bytes to skip at the next copy (seek landed inside it)
    int64_t entry_ = 0;  // copy of a copy list the next run starts at (seek landed there)
};

// Emits the pieces of run `r` through piece(at, length) while `more()`.
template <typename Piece, typename More>
void for_each_piece_of(const run &r, Piece piece, More more) {
    if (r.list) {  // a copy list
        for (int64_t k = 0; more() && k < r.count; ++k) piece(r.mem + r.list[2 * k], r.list[2 * k + 1]);
    } else if (r.inner_count) {  // pieces that are strided runs themselves
        for (int64_t i = 0; more() && i < r.count; ++i)
            for (int64_t j = 0; more() && j < r.inner_count; ++j) piece(r.mem + r.at(i) + j * r.inner_stride, r.len);
    } else if (r.body) {  // iterations of a body of copies
        for (int64_t i = 0; more() && i < r.count; ++i)
            for (uint32_t k = 0; more() && k < r.body_ops; ++k) piece(r.mem + r.at(i) + r.body[k].disp, r.body[k].len);
    } else if (!r.offsets && (r.count == 1 || r.stride == r.len)) {
        piece(r.mem, r.len * r.count);
    } else {
        for (int64_t i = 0; more() && i < r.count; ++i) piece(r.mem + r.at(i), r.len);
    }
}

// Calls emit(offset, length) for each contiguous piece of the stream from
// `offset` on, `budget` bytes at most (the last piece cut to fit), with
// memory offsets relative to the buffer; stops early when emit returns
// false. Adjacent pieces are not merged here. Returns the bytes emitted.
template <typename Emit>
int64_t for_each_piece(const program &p, int64_t count, int64_t offset, int64_t budget, Emit emit) {
    int64_t left = budget;
    bool room = true;
    auto piece = [&](int64_t at, int64_t len) {
        len = std::min(len, left);
        if ((room = emit(at, len))) left -= len;
    };
    auto more = [&] { return room && left > 0; };
    // Whole elements from the first: often one run, known without a walk
    // (as the copy kernels take it).
    if (offset == 0 && count == 1 && p.element_run) {
        for_each_piece_of(*p.element_run, piece, more);
        return budget - left;
    }
    walker w(p, count);
    w.seek(offset);
    run r;
    while (more() && w.next(r)) for_each_piece_of(r, piece, more);
    return budget - left;
}

// ORs of the lengths and of the memory offsets of the pieces of `count`
// whole elements: where both have the low bits of a power of two clear,
// every piece holds whole units of it at offsets aligned to it. For a
// strided run the pieces are not visited (its length, and its start with
// its strides, stand for them all), so the answer may be stricter than the
// pieces, never looser.
inline void piece_bits(const program &p, int64_t count, uint64_t &lengths, uint64_t &offsets) {
    lengths = offsets = 0;
    if (count == 1 && p.element_run) {
        const run &r = *p.element_run;
        if (!r.list && !r.body && !r.offsets) {  // pieces of one length, strided once or twice
            lengths = static_cast<uint64_t>(r.len);
            offsets = static_cast<uint64_t>(r.mem) | (r.count > 1 ? static_cast<uint64_t>(r.stride) : 0) |
                      (r.inner_count > 1 ? static_cast<uint64_t>(r.inner_stride) : 0);
            return;
        }
    }
    for_each_piece(p, count, 0, count * p.size, [&](int64_t at, int64_t len) {
        lengths |= static_cast<uint64_t>(len);
        offsets |= static_cast<uint64_t>(at);
        return true;
    });
}

// The single run of `count` elements when its pieces are of one length
// and strided once or twice (a patch of rows, a stack of patches), or
// null: what strided_cursor walks.
inline const run *strided_run(const program &p, int64_t count) {
    if (count != 1 || !p.element_run) return nullptr;
    const run &r = *p.element_run;
    return !r.list && !r.body && !r.offsets && r.len > 0 ? &r : nullptr;
}

// The pieces of a strided_run in stream order, one at a time.
class strided_cursor {
public:
    explicit strided_cursor(const run &r) : r_(r) {}
    int64_t at() const { return r_.mem + i_ * r_.stride + j_ * r_.inner_stride; }
    int64_t length() const { return r_.len; }
    void next() {
        if (++j_ < r_.inner_count) return;
        j_ = 0;
        ++i_;
    }

private:
    const run &r_;
    int64_t i_ = 0, j_ = 0;
};

}  // namespace ccs::dd
