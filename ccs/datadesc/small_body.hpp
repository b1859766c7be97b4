// The plan of a loop body of small copies, made at commit for a loop of
// copies (program::plans) or by a copy kernel for pieces of one length.
#pragma once

#include "op.hpp"

#include <algorithm>
#include <cstdint>

namespace ccs::dd {

// A body of small copies as moves of one width W, each at a fixed memory
// and stream offset; a copy longer than W takes ceil(len / W) moves, the
// last overlapping the one before. One width means no branch per copy,
// which is what lets a struct-like element run at hand-written speed.
struct small_body {
    static constexpr int max_moves = 8;
    int64_t mem_off[max_moves] = {}, stream_off[max_moves] = {};
    int moves = 0;
    int64_t width = 0;
    int64_t bytes = 0;  // stream bytes per iteration

    // False when the body does not fit: too many moves, or a copy shorter
    // than 4 bytes.
    bool plan(const op *body, uint32_t ops) {
        int64_t shortest = INT64_MAX;
        for (uint32_t k = 0; k < ops; ++k) shortest = std::min(shortest, body[k].len);
        width = shortest >= 16 ? 16 : shortest >= 8 ? 8 : shortest >= 4 ? 4 : 0;
        if (width == 0) return false;
        for (uint32_t k = 0; k < ops; ++k) {
            const op &o = body[k];
            for (int64_t at = 0; at < o.len; at += width) {
                if (moves == max_moves) return false;
                const int64_t from = std::min(at, o.len - width);
                mem_off[moves] = o.disp + from;
                stream_off[moves] = bytes + from;
                ++moves;
            }
            bytes += o.len;
        }
        return true;
    }
};

}  // namespace ccs::dd
