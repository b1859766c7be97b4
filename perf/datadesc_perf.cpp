// Datadesc pack/unpack throughput per shape, against (a) a hand-written loop
// for that shape and (b) MPICH's MPI_Pack/MPI_Unpack, in the same run.
//   build/bin/ccs_perf_datadesc [--benchmark_filter=...]
// Names: <shape>/<pack|unpack>/<ccs|hand|mpich>, and the paired runs
// <shape>/<pack|unpack>/ccs_vs_<hand|mpich> whose `ratio` counter is CCS's
// throughput over the other's (see run_paired); bytes_per_second counts
// packed bytes. DDTBench-like shapes are prefixed ddt_. cold_call/ and
// small_call*/ time one small call cold and hot (see small_call).
#include "datadesc_shapes.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <random>

namespace {

using namespace ccs_perf;

shape vector_8_16() {
    shape s;
    const int64_t n = 1 << 20;
    s.name = "vector8_stride16";
    ccs_datadesc_vector(n, 8, 16, CCS_BYTE, &s.ccs);
    MPI_Type_vector(static_cast<int>(n), 8, 16, MPI_BYTE, &s.mpi);
    s.hand_pack = [n](const uint8_t *m, uint8_t *p) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(p + 8 * i, m + 16 * i, 8);
    };
    s.hand_unpack = [n](const uint8_t *p, uint8_t *m) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(m + 16 * i, p + 8 * i, 8);
    };
    finish(s);
    return s;
}

// Face `axis` of the 256^3 array of doubles (C order), at index 7.
shape face(int axis) {
    shape s;
    s.name = std::string("face3d_") + "xyz"[axis];
    const int64_t sizes[] = {n3, n3, n3 * 8};  // last dimension in bytes
    int64_t sub[] = {n3, n3, n3 * 8}, starts[] = {0, 0, 0};
    sub[axis] = axis == 2 ? 8 : 1;
    starts[axis] = axis == 2 ? 56 : 7;
    ccs_datadesc_subarray(3, sizes, sub, starts, CCS_ORDER_C, CCS_BYTE, &s.ccs);
    int isizes[] = {n3, n3, n3 * 8}, isub[] = {static_cast<int>(sub[0]), static_cast<int>(sub[1]), static_cast<int>(sub[2])},
        istarts[] = {static_cast<int>(starts[0]), static_cast<int>(starts[1]), static_cast<int>(starts[2])};
    MPI_Type_create_subarray(3, isizes, isub, istarts, MPI_ORDER_C, MPI_BYTE, &s.mpi);
    const int64_t row = n3 * 8, plane = n3 * row;
    // x and y faces are rows (memcpy each); the z face is one double per
    // row, which a hand-written loop assigns. (A loop calling memcpy(8)
    // per double unpacks 10-15 % faster on our AMD EPYC: the slower issue
    // of stores that miss avoids cache-set thrashing, as in copy_kernels.)
    if (axis == 2) {
        s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
            auto *out = reinterpret_cast<double *>(p);
            for (int64_t i = 0; i < n3; ++i)
                for (int64_t j = 0; j < n3; ++j) *out++ = *reinterpret_cast<const double *>(m + i * plane + j * row + 56);
        };
        s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
            const auto *in = reinterpret_cast<const double *>(p);
            for (int64_t i = 0; i < n3; ++i)
                for (int64_t j = 0; j < n3; ++j) *reinterpret_cast<double *>(m + i * plane + j * row + 56) = *in++;
        };
    } else {
        s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
            for (int64_t i = starts[0]; i < starts[0] + sub[0]; ++i)
                for (int64_t j = starts[1]; j < starts[1] + sub[1]; ++j, p += sub[2])
                    std::memcpy(p, m + i * plane + j * row + starts[2], static_cast<size_t>(sub[2]));
        };
        s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
            for (int64_t i = starts[0]; i < starts[0] + sub[0]; ++i)
                for (int64_t j = starts[1]; j < starts[1] + sub[1]; ++j, p += sub[2])
                    std::memcpy(m + i * plane + j * row + starts[2], p, static_cast<size_t>(sub[2]));
        };
    }
    finish(s);
    return s;
}

// Column of a 4096 x 4096 array of doubles: a 2-D face.
shape column_2d() {
    shape s;
    const int64_t n = 4096;
    s.name = "face2d_column";
    const int64_t sizes[] = {n, n * 8}, sub[] = {n, 8}, starts[] = {0, 800};
    ccs_datadesc_subarray(2, sizes, sub, starts, CCS_ORDER_C, CCS_BYTE, &s.ccs);
    int isizes[] = {static_cast<int>(n), static_cast<int>(n * 8)}, isub[] = {static_cast<int>(n), 8}, istarts[] = {0, 800};
    MPI_Type_create_subarray(2, isizes, isub, istarts, MPI_ORDER_C, MPI_BYTE, &s.mpi);
    s.hand_pack = [n](const uint8_t *m, uint8_t *p) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(p + 8 * i, m + i * n * 8 + 800, 8);
    };
    s.hand_unpack = [n](const uint8_t *p, uint8_t *m) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(m + i * n * 8 + 800, p + 8 * i, 8);
    };
    finish(s);
    return s;
}

shape indexed_random(int64_t min_len, int64_t max_len, const char *name) {
    shape s;
    s.name = name;
    std::mt19937_64 rng(5);
    const int64_t blocks = (64 << 20) / (max_len + min_len);
    auto bl = std::make_shared<std::vector<int64_t>>(), disp = std::make_shared<std::vector<int64_t>>();
    int64_t at = 0;
    for (int64_t i = 0; i < blocks; ++i) {
        bl->push_back(min_len + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_len - min_len + 1)));
        disp->push_back(at);
        at += bl->back() + 8 + static_cast<int64_t>(rng() % 64);
    }
    ccs_datadesc_hindexed(blocks, bl->data(), disp->data(), CCS_BYTE, &s.ccs);
    std::vector<int> ibl(bl->begin(), bl->end());
    std::vector<MPI_Aint> adisp(disp->begin(), disp->end());
    MPI_Type_create_hindexed(static_cast<int>(blocks), ibl.data(), adisp.data(), MPI_BYTE, &s.mpi);
    s.hand_pack = [bl, disp](const uint8_t *m, uint8_t *p) {
        for (size_t i = 0; i < bl->size(); ++i) {
            std::memcpy(p, m + (*disp)[i], static_cast<size_t>((*bl)[i]));
            p += (*bl)[i];
        }
    };
    s.hand_unpack = [bl, disp](const uint8_t *p, uint8_t *m) {
        for (size_t i = 0; i < bl->size(); ++i) {
            std::memcpy(m + (*disp)[i], p, static_cast<size_t>((*bl)[i]));
            p += (*bl)[i];
        }
    };
    finish(s);
    return s;
}

// The hand loop over n C structs {double; int; char[3]; double[2]} (40
// bytes each, 31 of them data): struct_mixed and small_call_struct_8.
template <bool Pack>
inline void copy_mixed_structs(uint8_t *m, uint8_t *p, int64_t n) {
    auto move = [](uint8_t *mem, uint8_t *stream, size_t len) {
        if constexpr (Pack) std::memcpy(stream, mem, len);
        else std::memcpy(mem, stream, len);
    };
    for (int64_t i = 0; i < n; ++i, m += 40, p += 31) {
        move(m, p, 8);
        move(m + 8, p + 8, 4);
        move(m + 12, p + 12, 3);
        move(m + 24, p + 15, 16);
    }
}

// A datadesc and an MPI datatype of the same layout.
struct small_types {
    ccs_datadesc_t ccs = nullptr;
    MPI_Datatype mpi = MPI_DATATYPE_NULL;
};

// One C struct {double; int; char[3]; double[2]}: 40 bytes, 31 of them
// data; committed. struct_mixed and small_call_struct_8.
small_types mixed_struct_types() {
    small_types made;
    const int64_t bl[] = {8, 4, 3, 16}, disp[] = {0, 8, 12, 24};
    const ccs_datadesc_t bytes[] = {CCS_BYTE, CCS_BYTE, CCS_BYTE, CCS_BYTE};
    ccs_datadesc_t one = nullptr;
    ccs_datadesc_struct(4, bl, disp, bytes, &one);
    ccs_datadesc_resized(one, 0, 40, &made.ccs);
    ccs_datadesc_free(&one);
    ccs_datadesc_commit(made.ccs);
    int ibl[] = {8, 4, 3, 16};
    MPI_Aint adisp[] = {0, 8, 12, 24};
    MPI_Datatype mbytes[] = {MPI_BYTE, MPI_BYTE, MPI_BYTE, MPI_BYTE}, mone;
    MPI_Type_create_struct(4, ibl, adisp, mbytes, &mone);
    MPI_Type_create_resized(mone, 0, 40, &made.mpi);
    MPI_Type_free(&mone);
    MPI_Type_commit(&made.mpi);
    return made;
}

// An array of C structs {double; int; char[3]; double[2]} (packed without
// padding in the stream), 1M elements of 40 bytes.
shape struct_mixed() {
    shape s;
    const int64_t n = 1 << 20;
    s.name = "struct_mixed";
    small_types one = mixed_struct_types();
    ccs_datadesc_contiguous(n, one.ccs, &s.ccs);
    MPI_Type_contiguous(static_cast<int>(n), one.mpi, &s.mpi);
    ccs_datadesc_free(&one.ccs);
    MPI_Type_free(&one.mpi);
    s.hand_pack = [n](const uint8_t *m, uint8_t *p) { copy_mixed_structs<true>(const_cast<uint8_t *>(m), p, n); };
    s.hand_unpack = [n](const uint8_t *p, uint8_t *m) { copy_mixed_structs<false>(m, const_cast<uint8_t *>(p), n); };
    finish(s);
    return s;
}

enum class impl { ccs, hand, mpich };

// One pack or unpack of the whole shape by one implementation.
void pass(const shape &s, bool pack, impl which) {
    uint8_t *mem = memory().data();
    uint8_t *packed = packed_buffer().data();
    switch (which) {
    case impl::ccs: {
        int64_t done = 0;
        if (pack) ccs_datadesc_pack(mem, 1, s.ccs, 0, packed, s.packed_bytes, &done);
        else ccs_datadesc_unpack(packed, s.packed_bytes, mem, 1, s.ccs, 0, &done);
        break;
    }
    case impl::hand:
        if (pack) s.hand_pack(mem, packed);
        else s.hand_unpack(packed, mem);
        break;
    case impl::mpich: {
        int position = 0;
        if (pack) MPI_Pack(mem, 1, s.mpi, packed, static_cast<int>(s.packed_bytes), &position, MPI_COMM_SELF);
        else MPI_Unpack(packed, static_cast<int>(s.packed_bytes), &position, mem, 1, s.mpi, MPI_COMM_SELF);
        break;
    }
    }
    benchmark::ClobberMemory();
}

// A digest of n bytes, enough to tell two packings apart.
uint64_t digest(const uint8_t *p, int64_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// Whether CCS, the hand loop and MPICH pack the shape to the same bytes,
// so that the ratios compare the same work; checked once per shape,
// before its first benchmark, over memory holding a pattern (main).
bool packs_agree(const shape &s) {
    static std::map<const shape *, bool> checked;
    auto known = checked.find(&s);
    if (known != checked.end()) return known->second;
    uint64_t first = 0;
    bool agree = true;
    for (impl which : {impl::ccs, impl::hand, impl::mpich}) {
        std::memset(packed_buffer().data(), 0, static_cast<size_t>(s.packed_bytes));
        pass(s, true, which);
        const uint64_t d = digest(packed_buffer().data(), s.packed_bytes);
        if (which == impl::ccs) first = d;
        agree = agree && d == first;
    }
    return checked[&s] = agree;
}

void run(benchmark::State &state, const shape &s, bool pack, impl which) {
    if (!packs_agree(s)) return state.SkipWithError("CCS and the hand loop or MPICH pack this shape differently");
    for (auto _ : state) pass(s, pack, which);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * s.packed_bytes);
}

// CCS and another implementation taking turns, one pass each per
// iteration, the order swapped every iteration. The VM's memory bandwidth
// drifts by 10-20 % over seconds, more than the differences judged here;
// two passes microseconds apart see the same machine, so the median of the
// per-iteration ratios measures the implementations, not the drift, and
// swapping the order cancels what one pass leaves the next (a loop paired
// with itself reads 1.00). It does not cancel changes of the VM's speed
// over minutes, which move some shapes' ratios by a few %.
// Counters: ratio = median of (other's time / CCS's time), i.e. CCS's
// throughput relative to the other's; bytes_per_second is CCS's (manual
// time counts only CCS's passes).
void run_paired(benchmark::State &state, const shape &s, bool pack, impl other) {
    if (!packs_agree(s)) return state.SkipWithError("CCS and the hand loop or MPICH pack this shape differently");
    using clock = std::chrono::steady_clock;
    std::vector<double> ratios;
    bool ccs_first = true;
    for (auto _ : state) {
        double ccs_s = 0, other_s = 0;
        for (int turn = 0; turn < 2; ++turn) {
            const bool ccs_now = (turn == 0) == ccs_first;
            const auto start = clock::now();
            pass(s, pack, ccs_now ? impl::ccs : other);
            const double took = std::chrono::duration<double>(clock::now() - start).count();
            (ccs_now ? ccs_s : other_s) = took;
        }
        ccs_first = !ccs_first;
        ratios.push_back(other_s / ccs_s);
        state.SetIterationTime(ccs_s);
    }
    std::sort(ratios.begin(), ratios.end());
    if (!ratios.empty()) state.counters["ratio"] = ratios[ratios.size() / 2];
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * s.packed_bytes);
}

void memcpy_reference(benchmark::State &state) {
    const auto n = static_cast<size_t>(64 << 20);
    for (auto _ : state) {
        std::memcpy(packed_buffer().data(), memory().data(), n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}

// The layouts of the small calls, each as small_types and the hand loop
// for `Count` elements from stream byte `Offset` on.

// Two 40-byte pieces 4080 B apart (cold_call, small_call*).
struct two_pieces {
    static constexpr int64_t piece = 40, stride = 4080, size = 2 * piece, extent = stride + piece;
    static const small_types &types() {
        static const small_types t = [] {
            small_types made;
            ccs_datadesc_vector(2, piece, stride, CCS_BYTE, &made.ccs);
            ccs_datadesc_commit(made.ccs);
            MPI_Type_vector(2, piece, stride, MPI_BYTE, &made.mpi);
            MPI_Type_commit(&made.mpi);
            return made;
        }();
        return t;
    }
    template <int64_t Count, int64_t Offset>
    static void hand(bool pack, uint8_t *mem, uint8_t *packed) {
        static_assert(Offset % piece == 0);  // resuming at a later piece
        for (int64_t k = Offset / piece; k < 2 * Count; ++k) {
            uint8_t *m = mem + k / 2 * extent + k % 2 * stride, *p = packed + k * piece - Offset;
            if (pack) std::memcpy(p, m, piece);
            else std::memcpy(m, p, piece);
        }
    }
};

// The C struct of struct_mixed, {double; int; char[3]; double[2]}
// (small_call_struct_8).
struct mixed_struct {
    static constexpr int64_t size = 31, extent = 40;
    static const small_types &types() {
        static const small_types t = mixed_struct_types();
        return t;
    }
    template <int64_t Count, int64_t Offset>
    static void hand(bool pack, uint8_t *mem, uint8_t *packed) {
        static_assert(Offset == 0);
        if (pack) copy_mixed_structs<true>(mem, packed, Count);
        else copy_mixed_structs<false>(mem, packed, Count);
    }
};

// One pack or unpack by one implementation of `Count` elements of a
// layout from stream byte `Offset` on (resuming inside the data, as a
// runtime sending fragments does). Constants, so the hand loop is what one
// would write for that call.
template <class Layout, int64_t Count, int64_t Offset>
inline void small_pass(bool pack, impl which, uint8_t *mem, uint8_t *packed) {
    const small_types &types = Layout::types();
    constexpr int64_t bytes = Layout::size * Count - Offset;
    switch (which) {
    case impl::ccs: {
        int64_t done = 0;
        if (pack) ccs_datadesc_pack(mem, Count, types.ccs, Offset, packed, bytes, &done);
        else ccs_datadesc_unpack(packed, bytes, mem, Count, types.ccs, Offset, &done);
        break;
    }
    case impl::hand:
        Layout::template hand<Count, Offset>(pack, mem, packed);
        break;
    case impl::mpich:
        if constexpr (Offset == 0) {  // MPI_Pack cannot start inside the data (not registered so)
            int position = 0;
            if (pack) MPI_Pack(mem, Count, types.mpi, packed, bytes, &position, MPI_COMM_SELF);
            else MPI_Unpack(packed, bytes, &position, mem, Count, types.mpi, MPI_COMM_SELF);
        }
        break;
    }
}

// One small call after 64 MiB of other writes, as after a compute phase
// or a large copy: what a call costs when its code, the datadesc and the
// data all come from memory (the loops above pay it once per pass too).
// Counter median_ns: the median call; the reported time is the mean.
void cold_call(benchmark::State &state, bool pack, impl which) {
    using clock = std::chrono::steady_clock;
    uint8_t *mem = memory().data();
    uint8_t *packed = packed_buffer().data();
    uint8_t *elsewhere = packed + (64 << 20);  // the upper half of the packed buffer
    std::vector<double> took;
    for (auto _ : state) {
        std::memset(elsewhere, static_cast<int>(took.size()), 64 << 20);
        benchmark::ClobberMemory();
        const auto start = clock::now();
        small_pass<two_pieces, 1, 0>(pack, which, mem, packed);
        benchmark::ClobberMemory();
        took.push_back(std::chrono::duration<double>(clock::now() - start).count());
        state.SetIterationTime(took.back());
    }
    std::sort(took.begin(), took.end());
    if (!took.empty()) state.counters["median_ns"] = took[took.size() / 2] * 1e9;
}

// The same call again and again, everything cached: what a call costs
// beyond its copies (argument checks, dispatch), the price of every small
// pack a runtime makes. small_call: one element of two_pieces;
// small_call_8: eight; small_call_from_40: one from its second piece on;
// small_call_struct_8: eight mixed_structs.
template <class Layout, int64_t Count, int64_t Offset>
void small_call(benchmark::State &state, bool pack, impl which) {
    Layout::types();  // made before the timing
    uint8_t *mem = memory().data();
    uint8_t *packed = packed_buffer().data();
    for (auto _ : state) {
        small_pass<Layout, Count, Offset>(pack, which, mem, packed);
        benchmark::ClobberMemory();
    }
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(nullptr, nullptr);
    // Allocate and touch the buffers before anything is timed; a pattern,
    // not one value, so that packs_agree can tell layouts apart.
    for (size_t i = 0; i < memory().size(); ++i) memory()[i] = static_cast<uint8_t>((i * 0x9e3779b1u) >> 24);
    packed_buffer();
    static std::vector<shape> shapes;
    shapes.push_back(vector_8_16());
    for (int axis = 0; axis < 3; ++axis) shapes.push_back(face(axis));
    shapes.push_back(column_2d());
    shapes.push_back(indexed_random(1, 64, "indexed_random_1_64"));
    shapes.push_back(indexed_random(4096, 16384, "indexed_random_4k_16k"));
    shapes.push_back(struct_mixed());
    for (auto &s : ddtbench_shapes()) shapes.push_back(std::move(s));
    benchmark::RegisterBenchmark("memcpy_64MiB", memcpy_reference)->UseRealTime();
    for (bool pack : {true, false})
        for (auto [which, label] : {std::pair{impl::ccs, "ccs"}, std::pair{impl::hand, "hand"}, std::pair{impl::mpich, "mpich"}}) {
            const std::string name = std::string(pack ? "pack/" : "unpack/") + label;
            benchmark::RegisterBenchmark(("cold_call/" + name).c_str(),
                                         [pack, which = which](benchmark::State &st) { cold_call(st, pack, which); })
                ->UseManualTime()
                ->Iterations(400);
            auto add_small = [&](const char *call, auto run_call) {
                benchmark::RegisterBenchmark((std::string(call) + "/" + name).c_str(),
                                             [pack, which = which, run_call](benchmark::State &st) { run_call(st, pack, which); });
            };
            add_small("small_call", small_call<two_pieces, 1, 0>);
            add_small("small_call_8", small_call<two_pieces, 8, 0>);
            if (which != impl::mpich) add_small("small_call_from_40", small_call<two_pieces, 1, two_pieces::piece>);
            add_small("small_call_struct_8", small_call<mixed_struct, 8, 0>);
        }
    for (const auto &s : shapes)
        for (bool pack : {true, false}) {
            const std::string prefix = s.name + (pack ? "/pack/" : "/unpack/");
            for (auto [which, label] : {std::pair{impl::ccs, "ccs"}, std::pair{impl::hand, "hand"}, std::pair{impl::mpich, "mpich"}})
                benchmark::RegisterBenchmark((prefix + label).c_str(),
                                             [&s, pack, which = which](benchmark::State &st) { run(st, s, pack, which); })
                    ->UseRealTime();
            // Paired runs (run_paired).
            for (auto [other, label] : {std::pair{impl::hand, "ccs_vs_hand"}, std::pair{impl::mpich, "ccs_vs_mpich"}})
                benchmark::RegisterBenchmark((prefix + label).c_str(),
                                             [&s, pack, other = other](benchmark::State &st) { run_paired(st, s, pack, other); })
                    ->UseManualTime();
        }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    MPI_Finalize();
    return 0;
}
