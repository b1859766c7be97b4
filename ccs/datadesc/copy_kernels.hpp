// Copying one run between memory (pieces at strided or listed places) and
// the packed stream (contiguous). The engine has no element types, so the
// width comes from the run: a piece or body of small copies is planned as
// moves of one fixed width, spelled out so they stay in registers; long
// pieces use memcpy; a run whose pieces touch is one memcpy.
#pragma once

#include "small_body.hpp"
#include "walker.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

namespace ccs::dd {

enum class direction { pack, unpack };

// Where piece or iteration i of a run starts, relative to the run's memory.
struct strided {
    int64_t stride;
    int64_t operator()(int64_t i) const { return i * stride; }
    // How far apart pieces are, whichever way they step (a column walked
    // backwards misses as one walked forwards does); INT64_MIN saturates.
    int64_t apart() const { return stride >= 0 ? stride : stride == INT64_MIN ? INT64_MAX : -stride; }
};
struct listed {
    const int64_t *offsets;
    int64_t operator()(int64_t i) const { return offsets[i]; }
};
// A table shared with loops over other element sizes (op.scale): a type of
// its own, so an unshared table's loop has no multiply per piece.
struct listed_scaled {
    const int64_t *offsets;
    int64_t scale;
    int64_t operator()(int64_t i) const { return offsets[i] * scale; }
};

// Calls copy(at) with the run's placement of pieces.
template <class Copy>
inline int64_t with_placement(const run &r, Copy copy) {
    if (!r.offsets) return copy(strided{r.stride});
    if (r.scale == 1) return copy(listed{r.offsets});
    return copy(listed_scaled{r.offsets, r.scale});
}

template <direction D>
inline void move(uint8_t *mem, uint8_t *stream, size_t n) {
    if constexpr (D == direction::pack) std::memcpy(stream, mem, n);
    else std::memcpy(mem, stream, n);
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

// outer_count x inner_count iterations of a planned body, iteration (o, i)
// at mem + outer(o) + inner(i): one loop, or a loop over a loop.
template <direction D, int64_t W, class Outer, class Inner, size_t... M>
inline uint8_t *copy_planned(uint8_t *mem, uint8_t *stream, const small_body &b, Outer outer, int64_t outer_count,
                             Inner inner, int64_t inner_count, std::index_sequence<M...>) {
    // Offsets in locals and the moves spelled out, so they stay in
    // registers, as the constants of a hand-written loop would.
    const int64_t mem_off[] = {b.mem_off[M]...}, stream_off[] = {b.stream_off[M]...};
    const int64_t bytes = b.bytes;
    for (int64_t o = 0; o < outer_count; ++o) {
        uint8_t *base = mem + outer(o);
        if constexpr (std::is_same_v<Inner, strided>) {  // step a pointer, no multiply
            for (int64_t i = 0; i < inner_count; ++i, stream += bytes, base += inner.stride)
                (move<D>(base + mem_off[M], stream + stream_off[M], W), ...);
        } else {
            for (int64_t i = 0; i < inner_count; ++i, stream += bytes) {
                uint8_t *m = base + inner(i);
                (move<D>(m + mem_off[M], stream + stream_off[M], W), ...);
            }
        }
    }
    return stream;
}

template <direction D, int64_t W, class Outer, class Inner>
inline uint8_t *copy_planned(uint8_t *mem, uint8_t *stream, const small_body &b, Outer outer, int64_t outer_count,
                             Inner inner, int64_t inner_count) {
    static_assert(small_body::max_moves == 8);
    auto go = [&](auto moves) { return copy_planned<D, W>(mem, stream, b, outer, outer_count, inner, inner_count, moves); };
    switch (b.moves) {
    case 1: return go(std::make_index_sequence<1>{});
    case 2: return go(std::make_index_sequence<2>{});
    case 3: return go(std::make_index_sequence<3>{});
    case 4: return go(std::make_index_sequence<4>{});
    case 5: return go(std::make_index_sequence<5>{});
    case 6: return go(std::make_index_sequence<6>{});
    case 7: return go(std::make_index_sequence<7>{});
    default: return go(std::make_index_sequence<8>{});
    }
}

template <direction D, class Outer, class Inner>
inline uint8_t *copy_planned(uint8_t *mem, uint8_t *stream, const small_body &b, Outer outer, int64_t outer_count,
                             Inner inner, int64_t inner_count) {
    switch (b.width) {
    case 4: return copy_planned<D, 4>(mem, stream, b, outer, outer_count, inner, inner_count);
    case 8: return copy_planned<D, 8>(mem, stream, b, outer, outer_count, inner, inner_count);
    default: return copy_planned<D, 16>(mem, stream, b, outer, outer_count, inner, inner_count);
    }
}

// `whole` iterations of body[0..ops), as `planned` if not null (a loop's
// body is planned at commit; a plan that did not fit then never will), else
// copy by copy; returns the stream position after.
template <direction D, class At>
inline uint8_t *copy_iterations(uint8_t *mem, uint8_t *stream, const op *body, uint32_t ops, At at, int64_t whole,
                                const small_body *planned) {
    if (planned) return copy_planned<D>(mem, stream, *planned, strided{0}, 1, at, whole);
    for (int64_t i = 0; i < whole; ++i)
        for (uint32_t k = 0; k < ops; ++k) {
            copy_one<D>(mem + at(i) + body[k].disp, stream, body[k].len);
            stream += body[k].len;
        }
    return stream;
}

// Packing many 4 or 8-byte pieces spread over more memory than the L2
// holds, each piece moves through a floating-point register (x86-64:
// movss / movsd; the bits are moved, never interpreted). There the loads
// miss, and the loop through integer registers (what memcpy of 4 or 8
// bytes compiles to) runs behind a hand loop over doubles or floats, which
// compiles to the FP moves. Where the lines stay cached, or unpacking,
// where the loads hit, FP moves do not pay.
// Pieces enough that each one's line no longer stays in the L2 (8192
// lines: 512 KiB); FP moves and prefetching start there.
constexpr int64_t l2_outgrown_pieces = 8192;

typedef float fp_bytes4 __attribute__((may_alias, aligned(1)));  // any bytes at any address
typedef double fp_bytes8 __attribute__((may_alias, aligned(1)));

// Only where FP loads and stores move bits unchanged (SSE, AArch64; x87
// would quiet a signaling NaN).
#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool fp_moves_bits = true;
#else
constexpr bool fp_moves_bits = false;
#endif

template <direction D, size_t Len, bool Fp>
inline void move_fixed(uint8_t *mem, uint8_t *stream) {
    uint8_t *to = D == direction::pack ? stream : mem;
    const uint8_t *from = D == direction::pack ? mem : stream;
    if constexpr (Fp && Len == 4)
        *reinterpret_cast<fp_bytes4 *>(to) = *reinterpret_cast<const fp_bytes4 *>(from);
    else if constexpr (Fp && Len == 8)
        *reinterpret_cast<fp_bytes8 *>(to) = *reinterpret_cast<const fp_bytes8 *>(from);
    else
        move<D>(mem, stream, Len);
}

// Prefetching pieces ahead of the copy. Where pieces sit on different
// pages (strided 1 KiB or more apart) or at random (listed), the hardware
// prefetchers cannot guess the next line, and when there are more lines
// than a 512 KiB L2 holds each piece misses. Naming the line `ahead`
// pieces in advance overlaps those misses. The distances are where the
// gain levelled off. Not prefetched: runs whose lines fit the L2, and
// unpacking strided pieces of 8 bytes or less, where one store per piece
// already lets the store buffer run ahead.
constexpr int64_t prefetch_min_stride = 1024;
constexpr int64_t prefetch_strided_ahead = 32;
constexpr int64_t prefetch_listed_ahead = 128;

// `count` pieces, each one's line named `ahead` pieces before it is copied.
template <direction D, size_t Len, bool Fp, class At>
inline void copy_prefetching(uint8_t *mem, uint8_t *stream, int64_t count, At at, int64_t ahead) {
    int64_t i = 0;
    for (; i + ahead < count; ++i, stream += Len) {
        __builtin_prefetch(mem + at(i + ahead), D == direction::unpack, 0);
        move_fixed<D, Len, Fp>(mem + at(i), stream);
    }
    for (; i < count; ++i, stream += Len) move_fixed<D, Len, Fp>(mem + at(i), stream);
}

// Packing pieces a multiple of 1 KiB apart: every piece's line falls into
// the same one to four sets of the L1 data cache (its sets repeat every 4
// KiB: 64 of 64-byte lines on x86-64 and most AArch64 cores). A plain loop
// issues loads as fast as it decodes them, and dozens of misses then wait
// on a few sets of 12 ways, evicting one another's lines. Lanes that each
// issue their next load only once their last one has returned keep 16
// misses in flight. Not for 512 B strides (eight sets), fewer than 1024
// pieces, or 32768 pieces and more, whose lines come from DRAM and need
// every miss in flight (the prefetching loop takes those).
constexpr int64_t miss_lanes = 16;

inline bool few_cache_sets(int64_t stride, int64_t count) {
    return stride != 0 && stride % 1024 == 0 && count >= 1024 && count <= l2_outgrown_pieces;
}

// A zero the compiler cannot see through: ANDed with a loaded value, it
// makes an address depend on that load without changing it.
inline uint64_t opaque_zero() {
    uint64_t zero = 0;
    asm("" : "+r"(zero));
    return zero;
}

// `count` pieces of Len bytes, `stride` apart, packed by miss_lanes lanes:
// lane k takes pieces k, k + miss_lanes, ..., each load's address tied to
// the lane's previous piece.
template <size_t Len>
inline void pack_in_lanes(const uint8_t *mem, uint8_t *stream, int64_t count, int64_t stride) {
    const uint64_t zero = opaque_zero();
    uint64_t last[miss_lanes] = {};
    int64_t i = 0;
    for (; i + miss_lanes <= count; i += miss_lanes, mem += miss_lanes * stride, stream += miss_lanes * Len)
        for (int64_t k = 0; k < miss_lanes; ++k) {
            uint8_t piece[Len];
            std::memcpy(piece, mem + k * stride + (last[k] & zero), Len);
            std::memcpy(stream + k * static_cast<int64_t>(Len), piece, Len);
            last[k] = piece[0];
        }
    for (; i < count; ++i, mem += stride, stream += Len) std::memcpy(stream, mem, Len);
}

// Pieces of Len bytes apart from one another, one at a time.
template <direction D, size_t Len, bool Fp, class At>
inline void copy_apart(uint8_t *mem, uint8_t *stream, int64_t count, At at) {
    if constexpr (std::is_same_v<At, strided>) {
        if constexpr (D == direction::pack && Len >= 4)
            if (few_cache_sets(at.stride, count)) return pack_in_lanes<Len>(mem, stream, count, at.stride);
        if (at.apart() >= prefetch_min_stride && count >= l2_outgrown_pieces && (D == direction::pack || Len > 8))
            return copy_prefetching<D, Len, Fp>(mem, stream, count, at, prefetch_strided_ahead);
        // Packing pieces far apart, TLB misses bound the loop, and, where
        // there are too few to prefetch, a loop that ends on the memory
        // pointer, with no counter, runs faster than a counted one storing
        // through an index. Pieces close together unpack slower this way,
        // so only far ones take it.
        if (D == direction::pack && at.apart() > 512) {
            for (const uint8_t *end = mem + count * at.stride; mem != end; mem += at.stride, stream += Len)
                move_fixed<D, Len, Fp>(mem, stream);
            return;
        }
        for (int64_t i = 0; i < count; ++i, stream += Len, mem += at.stride) move_fixed<D, Len, Fp>(mem, stream);
    } else {
        if (count >= l2_outgrown_pieces) return copy_prefetching<D, Len, Fp>(mem, stream, count, at, prefetch_listed_ahead);
        for (int64_t i = 0; i < count; ++i, stream += Len) move_fixed<D, Len, Fp>(mem + at(i), stream);
    }
}

template <direction D, size_t Len, class At>
inline void copy_fixed(uint8_t *mem, uint8_t *stream, int64_t count, At at) {
    if constexpr (D == direction::pack && (Len == 4 || Len == 8) && std::is_same_v<At, strided>) {
        // Pieces close together: gather 16 / Len of them in a register and
        // store them at once, as a compiler does for a hand loop with a
        // constant stride; stores, not loads, bound this loop. Far apart,
        // the loads miss and merging them costs more than it saves.
        if (at.apart() <= 512) {
            constexpr int64_t group = 16 / Len;
            int64_t i = 0;
            for (; i + group <= count; i += group, stream += 16) {
                uint8_t line[16];
                for (int64_t g = 0; g < group; ++g) std::memcpy(line + g * Len, mem + at(i + g), Len);
                std::memcpy(stream, line, 16);
            }
            for (; i < count; ++i, stream += Len) std::memcpy(stream, mem + at(i), Len);
            return;
        }
    }
    if constexpr (fp_moves_bits && D == direction::pack && (Len == 4 || Len == 8))
        if (count >= l2_outgrown_pieces) return copy_apart<D, Len, true>(mem, stream, count, at);
    copy_apart<D, Len, false>(mem, stream, count, at);
}

// Unpacking a few bytes into each of a few thousand lines whose addresses
// are a multiple of 512 B apart (a matrix column with a power-of-two row):
// the lines stay cached but fall into the same cache sets, and there one
// byte store at a time runs faster than word stores (MPICH, which stores
// bytewise for MPI_BYTE, gains the same). 16-byte pieces gain at
// multiples of 4 KiB but lose at 512 B. Away from such strides, and once
// the lines outgrow the L2, word stores win, hence the narrow test.
inline bool aliasing_column(int64_t len, int64_t count, int64_t stride) {
    return (len <= 8 ? stride % 512 == 0 : len <= 16 && stride % 4096 == 0) && count <= 8192;
}

inline void unpack_bytewise(uint8_t *mem, const uint8_t *stream, int64_t len, int64_t count, int64_t stride) {
    for (int64_t i = 0; i < count; ++i, mem += stride, stream += len) {
        volatile uint8_t *to = mem;  // volatile: keep the stores narrow
        for (int64_t k = 0; k < len; ++k) to[k] = stream[k];
    }
}

// Lengths copy_pieces moves with one fixed-width move each.
inline bool fixed_length(int64_t len) {
    return len == 1 || len == 2 || len == 4 || len == 8 || len == 16;
}

// `count` pieces of `len` bytes.
template <direction D, class At>
inline void copy_pieces(uint8_t *mem, uint8_t *stream, int64_t len, int64_t count, At at) {
    if constexpr (D == direction::unpack && std::is_same_v<At, strided>)
        if (aliasing_column(len, count, at.stride)) return unpack_bytewise(mem, stream, len, count, at.stride);
    switch (len) {
    case 1: return copy_fixed<D, 1>(mem, stream, count, at);
    case 2: return copy_fixed<D, 2>(mem, stream, count, at);
    case 4: return copy_fixed<D, 4>(mem, stream, count, at);
    case 8: return copy_fixed<D, 8>(mem, stream, count, at);
    case 16: return copy_fixed<D, 16>(mem, stream, count, at);
    }
    // Unpacking 24 or 40-byte records (3 or 5 doubles), a constant length
    // ends a piece with an 8-byte move, not a 16-byte one overlapping the
    // move before, whose store crosses a line more often: NAS LU's 40-byte
    // points unpack at 0.995 of the hand loop this way, 0.98-0.99
    // overlapped. Packing, the overlapping loads are faster (1.004-1.008
    // against 0.994-0.996), so pack keeps them.
    if constexpr (D == direction::unpack) {
        if (len == 24) return copy_fixed<D, 24>(mem, stream, count, at);
        if (len == 40) return copy_fixed<D, 40>(mem, stream, count, at);
    }
    if (len <= small_body::max_moves * 16) {
        op piece;
        piece.len = len;
        if (count >= 8) {  // planned per call: a plan zeroes its tables, not for a few copies
            small_body b;
            if (b.plan(&piece, 1)) {
                copy_iterations<D>(mem, stream, &piece, 1, at, count, &b);
                return;
            }
        }
        copy_iterations<D>(mem, stream, &piece, 1, at, count, nullptr);
        return;
    }
    for (int64_t i = 0; i < count; ++i, stream += len) move<D>(mem + at(i), stream, static_cast<size_t>(len));
}

// Iterations of a body of copies, stopping exactly where the budget ends.
// Whole iterations that fit run without a budget check per copy; only the
// last, partial one checks. Returns bytes moved.
template <direction D, class At>
inline int64_t copy_flat_loop(uint8_t *mem, uint8_t *stream, const run &r, At at, int64_t budget) {
    int64_t per_iteration = 0;
    for (uint32_t k = 0; k < r.body_ops; ++k) per_iteration += r.body[k].len;
    const int64_t whole = std::min(r.count, per_iteration ? budget / per_iteration : r.count);
    stream = copy_iterations<D>(mem, stream, r.body, r.body_ops, at, whole, r.plan);
    int64_t left = budget - whole * per_iteration;
    if (whole < r.count) {
        mem += at(whole);
        for (uint32_t k = 0; k < r.body_ops && left > 0; ++k) {
            const int64_t n = std::min(left, r.body[k].len);
            copy_one<D>(mem + r.body[k].disp, stream, n);
            stream += n;
            left -= n;
        }
    }
    return budget - left;
}

// The pieces of one run, up to `budget` bytes; returns bytes moved.
template <direction D, class At>
inline int64_t copy_run_pieces(uint8_t *mem, uint8_t *stream, const run &r, At at, int64_t budget) {
    const int64_t whole = std::min(r.count, budget / r.len);
    copy_pieces<D>(mem, stream, r.len, whole, at);
    int64_t left = budget - whole * r.len;
    if (whole < r.count && left > 0) {  // the budget ends inside a piece
        move<D>(mem + at(whole), stream + whole * r.len, static_cast<size_t>(left));
        left = 0;
    }
    return budget - left;
}

// outer_count runs of inner_count pieces of Len bytes: both loops in one
// function, the length a constant (a 24-byte piece is then one 16-byte and
// one 8-byte move, as in a hand-written loop).
template <direction D, size_t Len, class Outer>
inline uint8_t *copy_fixed_nested(uint8_t *mem, uint8_t *stream, Outer outer, int64_t outer_count, int64_t inner_stride,
                                  int64_t inner_count) {
    for (int64_t o = 0; o < outer_count; ++o) {
        uint8_t *m = mem + outer(o);
#pragma GCC unroll 8
        for (int64_t i = 0; i < inner_count; ++i, m += inner_stride, stream += Len) move<D>(m, stream, Len);
    }
    return stream;
}

// Side by side columns (a matrix transpose): column c, row i at
// mem + c * Len + i * row_stride, and at stream + c * rows * Len + i * Len.
// Walking one column touches a slice of every row's line, rows a power of
// two apart falling into the same cache sets; visiting the Len-byte pieces
// of 64 / Len columns per row instead moves whole lines, the columns'
// stream parts read side by side. Copies groups of whole columns; returns
// how many columns it copied.
template <direction D, size_t Len>
inline int64_t copy_column_groups(uint8_t *mem, uint8_t *stream, int64_t columns, int64_t rows, int64_t row_stride) {
    constexpr int64_t group = 64 / Len;
    const int64_t per_column = rows * static_cast<int64_t>(Len);
    int64_t c = 0;
    for (; c + group <= columns; c += group, mem += group * Len, stream += group * per_column) {
        uint8_t *m = mem, *s = stream;
        for (int64_t i = 0; i < rows; ++i, m += row_stride, s += Len)
            for (int64_t g = 0; g < group; ++g) move<D>(m + g * Len, s + g * per_column, Len);
    }
    return c;
}

// Columns worth grouping: lines apart, at least a group of them.
inline bool side_by_side_columns(const run &r, int64_t columns) {
    return !r.offsets && r.stride == r.len && (r.len == 4 || r.len == 8 || r.len == 16 || r.len == 32) &&
           r.inner_stride >= 64 && columns >= 64 / r.len;
}

// `whole` pieces of a nested run as a planned body, the inner pieces
// planned once, not once per outer piece; false (nothing copied) when the
// pieces are better copied one by one.
template <direction D, class At>
inline bool planned_nested(uint8_t *mem, uint8_t *&stream, const run &r, At at, int64_t whole) {
    if (fixed_length(r.len) || r.inner_count < 4) return false;
    small_body b;
    op piece;
    piece.len = r.len;
    if (!b.plan(&piece, 1)) return false;
    stream = copy_planned<D>(mem, stream, b, at, whole, strided{r.inner_stride}, r.inner_count);
    return true;
}

// A nested run: pieces that are each a strided run of inner_count pieces.
template <direction D, class At>
inline int64_t copy_nested(uint8_t *mem, uint8_t *stream, const run &r, At at, int64_t budget) {
    const int64_t per_piece = r.inner_count * r.len;
    const int64_t whole = std::min(r.count, budget / per_piece);
    if (side_by_side_columns(r, whole)) {
        auto grouped = [&](auto len) {
            return copy_column_groups<D, decltype(len)::value>(mem, stream, whole, r.inner_count, r.inner_stride);
        };
        const int64_t done = r.len == 4    ? grouped(std::integral_constant<size_t, 4>{})
                             : r.len == 8  ? grouped(std::integral_constant<size_t, 8>{})
                             : r.len == 16 ? grouped(std::integral_constant<size_t, 16>{})
                                           : grouped(std::integral_constant<size_t, 32>{});
        run rest = r;
        rest.count = r.count - done;
        return done * per_piece + copy_nested<D>(mem + at(done), stream + done * per_piece, rest, at,
                                                 budget - done * per_piece);
    }
    const strided inner{r.inner_stride};
    const bool aliasing = D == direction::unpack && aliasing_column(r.len, r.inner_count, r.inner_stride);
    auto fixed = [&](auto len) {
        stream = copy_fixed_nested<D, decltype(len)::value>(mem, stream, at, whole, r.inner_stride, r.inner_count);
    };
    if (!aliasing && r.len == 24) {
        fixed(std::integral_constant<size_t, 24>{});
    } else if (!aliasing && r.len == 40) {
        fixed(std::integral_constant<size_t, 40>{});
    } else if (!aliasing && r.len == 48) {
        fixed(std::integral_constant<size_t, 48>{});
    } else if (!planned_nested<D>(mem, stream, r, at, whole)) {
        for (int64_t i = 0; i < whole; ++i, stream += per_piece)
            copy_pieces<D>(mem + at(i), stream, r.len, r.inner_count, inner);
    }
    int64_t left = budget - whole * per_piece;
    if (whole < r.count && left > 0) {
        run part = r;
        part.count = r.inner_count;
        left -= copy_run_pieces<D>(mem + at(whole), stream, part, inner, left);
    }
    return budget - left;
}

// A copy list, up to `budget` bytes; returns bytes moved.
template <direction D>
inline int64_t copy_list(uint8_t *mem, uint8_t *stream, const run &r, int64_t budget) {
    int64_t left = budget;
    const int64_t *list = r.list, count = r.count;  // in registers, whatever the stores alias
    for (int64_t k = 0; k < count && left > 0; ++k) {
        const int64_t n = std::min(left, list[2 * k + 1]);
        copy_one<D>(mem + list[2 * k], stream, n);
        stream += n;
        left -= n;
    }
    return budget - left;
}

// One run, up to `budget` bytes; returns bytes moved. The run is taken by
// value: read through a reference (to the run a program keeps), its fields
// might be among the bytes being stored, for all the compiler knows, and
// the loops would reload them per copy.
template <direction D>
inline int64_t copy_run(uint8_t *base, uint8_t *stream, const run r, int64_t budget) {
    uint8_t *mem = base + r.mem;
    if (r.list) return copy_list<D>(mem, stream, r, budget);
    if (r.inner_count) return with_placement(r, [&](auto at) { return copy_nested<D>(mem, stream, r, at, budget); });
    if (r.body) return with_placement(r, [&](auto at) { return copy_flat_loop<D>(mem, stream, r, at, budget); });
    if (!r.offsets && (r.count == 1 || r.stride == r.len)) {  // one contiguous piece
        const int64_t n = std::min(budget, r.len * r.count);
        move<D>(mem, stream, static_cast<size_t>(n));
        return n;
    }
    return with_placement(r, [&](auto at) { return copy_run_pieces<D>(mem, stream, r, at, budget); });
}

// transfer's walk: from any offset, run by run.
template <direction D>
[[gnu::noinline]] int64_t walk_and_copy(const program &p, int64_t count, uint8_t *base, int64_t offset, uint8_t *stream,
                                        int64_t budget) {
    walker w(p, count);
    w.seek(offset);
    int64_t left = budget;
    run r;
    while (left > 0 && w.next(r)) {
        const int64_t n = copy_run<D>(base, stream, r, left);
        stream += n;
        left -= n;
    }
    return budget - left;
}

// Moves up to `budget` bytes of the stream from `offset` on; returns bytes
// moved. element_run is p.element_run, or a copy of it the caller holds
// nearer (the handle's). Inline, the walk out of line: a call taking the
// shortcut makes no call but copy_run's.
template <direction D>
inline int64_t transfer(const program &p, const std::optional<run> &element_run, int64_t count, uint8_t *base,
                        int64_t offset, uint8_t *stream, int64_t budget) {
    if (offset == 0) {  // whole elements from the first: often one run, known without a walk
        if (count == 1 && element_run) return copy_run<D>(base, stream, *element_run, budget);
        if (p.element_shape != body_shape::ops)
            return copy_run<D>(base, stream,
                               whole_iterations(p.ops.data(), static_cast<uint32_t>(p.ops.size()), p.element_shape,
                                                p.body_plan(0), 0, count, p.extent),
                               budget);
    }
    return walk_and_copy<D>(p, count, base, offset, stream, budget);
}

template <direction D>
inline int64_t transfer(const program &p, int64_t count, uint8_t *base, int64_t offset, uint8_t *stream, int64_t budget) {
    return transfer<D>(p, p.element_run, count, base, offset, stream, budget);
}

}  // namespace ccs::dd
