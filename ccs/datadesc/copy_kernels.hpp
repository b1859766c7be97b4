// Copying one run between memory (strided) and the packed stream
// (contiguous). The engine has no element types, so the width comes from
// the run: small fixed lengths get a loop whose memcpy the compiler turns
// into single moves; others use memcpy per piece; a run whose pieces touch
// is one memcpy.
#pragma once

#include "walker.hpp"

#include <algorithm>
#include <type_traits>
#include <cstring>

namespace ccs::dd {

enum class direction { pack, unpack };

template <direction D, size_t Len>
inline void copy_fixed(uint8_t *mem, uint8_t *stream, int64_t count, int64_t stride) {
    for (int64_t i = 0; i < count; ++i, mem += stride, stream += Len) {
        if constexpr (D == direction::pack) std::memcpy(stream, mem, Len);
        else std::memcpy(mem, stream, Len);
    }
}

template <direction D>
inline void copy_pieces(uint8_t *mem, uint8_t *stream, int64_t len, int64_t count, int64_t stride) {
    switch (len) {
    case 1: return copy_fixed<D, 1>(mem, stream, count, stride);
    case 2: return copy_fixed<D, 2>(mem, stream, count, stride);
    case 4: return copy_fixed<D, 4>(mem, stream, count, stride);
    case 8: return copy_fixed<D, 8>(mem, stream, count, stride);
    case 12: return copy_fixed<D, 12>(mem, stream, count, stride);
    case 16: return copy_fixed<D, 16>(mem, stream, count, stride);
    case 24: return copy_fixed<D, 24>(mem, stream, count, stride);
    case 32: return copy_fixed<D, 32>(mem, stream, count, stride);
    default:
        for (int64_t i = 0; i < count; ++i, mem += stride, stream += len) {
            if constexpr (D == direction::pack) std::memcpy(stream, mem, static_cast<size_t>(len));
            else std::memcpy(mem, stream, static_cast<size_t>(len));
        }
    }
}

// Copies len <= 32 bytes with two possibly overlapping moves of a fixed
// width, both inside [0, len): no call and at most three branches.
inline void copy_small(uint8_t *to, const uint8_t *from, int64_t len) {
    auto two = [&](auto width) {
        constexpr auto w = static_cast<int64_t>(decltype(width)::value);
        uint8_t a[w], b[w];
        std::memcpy(a, from, w);
        std::memcpy(b, from + len - w, w);
        std::memcpy(to, a, w);
        std::memcpy(to + len - w, b, w);
    };
    if (len >= 16) return two(std::integral_constant<int, 16>{});
    if (len >= 8) return two(std::integral_constant<int, 8>{});
    if (len >= 4) return two(std::integral_constant<int, 4>{});
    for (int64_t i = 0; i < len; ++i) to[i] = from[i];
}

template <direction D>
inline void copy_one(uint8_t *mem, uint8_t *stream, int64_t len) {
    uint8_t *to = D == direction::pack ? stream : mem;
    const uint8_t *from = D == direction::pack ? mem : stream;
    if (len <= 32) copy_small(to, from, len);
    else std::memcpy(to, from, static_cast<size_t>(len));
}

// Iterations of a body of copies, stopping exactly where the budget ends.
// Whole iterations that fit run without a budget check per copy; only the
// last, partial one checks. Returns bytes moved.
template <direction D>
inline int64_t copy_flat_loop(uint8_t *mem, uint8_t *stream, const run &r, int64_t budget) {
    int64_t per_iteration = 0;
    for (uint32_t k = 0; k < r.body_ops; ++k) per_iteration += r.body[k].len;
    const int64_t whole = std::min(r.count, per_iteration ? budget / per_iteration : r.count);
    for (int64_t i = 0; i < whole; ++i, mem += r.stride)
        for (uint32_t k = 0; k < r.body_ops; ++k) {
            copy_one<D>(mem + r.body[k].disp, stream, r.body[k].len);
            stream += r.body[k].len;
        }
    int64_t left = budget - whole * per_iteration;
    if (whole < r.count)
        for (uint32_t k = 0; k < r.body_ops && left > 0; ++k) {
            const int64_t n = std::min(left, r.body[k].len);
            copy_one<D>(mem + r.body[k].disp, stream, n);
            stream += n;
            left -= n;
        }
    return budget - left;
}

// Moves up to `budget` bytes of the stream from `offset` on; returns bytes moved.
template <direction D>
int64_t transfer(const program &p, int64_t count, uint8_t *base, int64_t offset, uint8_t *stream, int64_t budget) {
    walker w(p, count);
    w.seek(offset);
    int64_t left = budget;
    run r;
    while (left > 0 && w.next(r)) {
        uint8_t *mem = base + r.mem;
        if (r.body) {
            const int64_t n = copy_flat_loop<D>(mem, stream, r, left);
            stream += n;
            left -= n;
            continue;
        }
        if (r.count == 1 || r.stride == r.len) {  // one contiguous piece
            const int64_t n = std::min(left, r.len * r.count);
            if constexpr (D == direction::pack) std::memcpy(stream, mem, static_cast<size_t>(n));
            else std::memcpy(mem, stream, static_cast<size_t>(n));
            stream += n;
            left -= n;
            continue;
        }
        const int64_t whole = std::min(r.count, left / r.len);
        copy_pieces<D>(mem, stream, r.len, whole, r.stride);
        stream += whole * r.len;
        left -= whole * r.len;
        if (whole < r.count && left > 0) {  // the budget ends inside a piece
            mem += whole * r.stride;
            if constexpr (D == direction::pack) std::memcpy(stream, mem, static_cast<size_t>(left));
            else std::memcpy(mem, stream, static_cast<size_t>(left));
            left = 0;
        }
    }
    return budget - left;
}

}  // namespace ccs::dd
