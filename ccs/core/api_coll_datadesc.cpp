// C entry points of the collectives on datadesc buffers (ccs/coll.h). The
// contiguous algorithms move packed streams: a layout that is one
// contiguous run is used where it lies; any other is packed into staging
// when the call starts, and the received stream unpacked by a last step of
// the schedule. The staging and the compiled layouts belong to the
// schedule, so the caller may free its datadescs as soon as it returns.
//
// A bad datadesc or count fails the call at once, before it takes part
// (like a wrong root: the stream's size, which decides the algorithm, is
// unknown); a NULL buffer or streams of different sizes are this process's
// mistakes, and the call takes part carrying them.
#include "acc_checks.hpp"
#include "coll_call.hpp"
#include "core/coll/algorithms.hpp"
#include "datadesc/copy_kernels.hpp"
#include "datadesc/handle.hpp"

#include <memory>

using namespace ccs;

namespace {

// One side of a call: `count` elements of a layout at `base` (for a
// buffer of one block per member, the blocks' elements together).
struct layout_buffer {
    std::shared_ptr<const dd::program> program;
    uint8_t *base = nullptr;
    int64_t count = 0;   // elements in all
    size_t bytes = 0;    // of its stream
};

ccs_status_t check_layout(const coll_call &c, const char *which, const void *base, int64_t count,
                          ccs_datadesc_t handle, int64_t blocks, layout_buffer &out) {
    ccs_datadesc_s *d = nullptr;
    ccs_status_t st = dd::check_handle(handle, c.name, true, d);
    if (st != CCS_OK) return st;
    if (count < 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(c.name) + ": " + which + " count " + std::to_string(count) +
                                             " is negative");
    int64_t all = 0, bytes = 0;
    if (__builtin_mul_overflow(count, blocks, &all) || __builtin_mul_overflow(all, d->size, &bytes))
        return fail(CCS_ERR_OVERFLOW, std::string(c.name) + ": " + which + " count times the datadesc's size " +
                                          (blocks > 1 ? "times the team's size " : "") + "overflows");
    out.program = d->compiled;
    out.base = static_cast<uint8_t *>(const_cast<void *>(base));
    out.count = all;
    out.bytes = static_cast<size_t>(bytes);
    return CCS_OK;
}

// Where a buffer's stream is, or will be: the buffer itself when its
// layout is one run, else staging owned by the schedule `s`.
uint8_t *stream_of(const layout_buffer &b, coll::schedule &s) {
    if (!b.base && b.bytes) return nullptr;  // refused
    if (b.program->contiguous(b.count)) return b.bytes ? b.base + b.program->ops[0].disp : b.base;
    return s.scratch_bytes(b.bytes);
}

void pack(const layout_buffer &b, uint8_t *stream) {
    if (stream && b.bytes && !b.program->contiguous(b.count))
        dd::transfer<dd::direction::pack>(*b.program, b.count, b.base, 0, stream, static_cast<int64_t>(b.bytes));
}

// After the collective: the received stream into the layout.
void unpack_at_end(coll::schedule &s, const layout_buffer &b, uint8_t *stream) {
    if (!stream || !b.bytes || b.program->contiguous(b.count)) return;
    s.add_last_step([program = b.program, base = b.base, count = b.count, stream, bytes = b.bytes] {
        dd::transfer<dd::direction::unpack>(*program, count, base, 0, stream, static_cast<int64_t>(bytes));
    });
}

// The schedule over streams `in` and `out` (scratch it adds lives in it).
using build_fn = coll::schedule (*)(const coll_call &c, const uint8_t *in, size_t length, uint8_t *out, int root);

// Gather, allgather, alltoall: src in blocks (alltoall's: size of them),
// dst in size blocks (read at root only where root >= 0).
ccs_status_t blocks_call(const char *name, ccs_team_t team, const void *src, int64_t src_count,
                         ccs_datadesc_t src_dd, void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int root,
                         bool src_in_blocks, build_fn build, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{name};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (root >= 0 && (st = coll_check_root(c, root)) != CCS_OK)) return st;
        const int64_t n = c.size();
        const bool receives = root < 0 || c.me() == root;
        layout_buffer in, out;
        if ((st = check_layout(c, "src", src, src_count, src_dd, src_in_blocks ? n : 1, in)) != CCS_OK) return st;
        if (receives && (st = check_layout(c, "dst", dst, dst_count, dst_dd, n, out)) != CCS_OK) return st;
        const size_t length = src_in_blocks ? in.bytes / static_cast<size_t>(n) : in.bytes;
        if (in.bytes && !src) c.refuse("src is NULL but its stream is not empty");
        if (receives && out.bytes && !dst) c.refuse("dst is NULL but its stream is not empty");
        if (receives && out.bytes != length * static_cast<size_t>(n))
            c.refuse("src holds " + std::to_string(length) + " bytes per member, dst " +
                     std::to_string(out.bytes / static_cast<size_t>(n)));
        if (c.local != CCS_OK) in.base = out.base = nullptr;
        coll::schedule s;
        uint8_t *in_stream = stream_of(in, s);
        uint8_t *out_stream = receives ? stream_of(out, s) : nullptr;
        pack(in, in_stream);
        coll::schedule built = build(c, in_stream, length, out_stream, root);
        built.adopt_scratch(s);
        if (receives) unpack_at_end(built, out, out_stream);
        return coll_launch(c, std::move(built));
    });
}

coll::schedule gather(const coll_call &c, const uint8_t *in, size_t length, uint8_t *out, int root) {
    return coll::build_gather(c.team->view, c.team->next_seq, in, length, out,
                              coll::blocks::uniform(c.size(), length), true, root);
}
coll::schedule allgather(const coll_call &c, const uint8_t *in, size_t length, uint8_t *out, int) {
    return coll::build_allgather(c.team->view, c.team->next_seq, in, length, out,
                                 coll::blocks::uniform(c.size(), length));
}
coll::schedule alltoall(const coll_call &c, const uint8_t *in, size_t length, uint8_t *out, int) {
    return coll::build_alltoall(c.team->view, c.team->next_seq, in, length, out);
}

// Gatherv and allgatherv: member i's stream lands as counts[i] elements of
// dst_dd at dst + displs[i] extents. (root < 0: allgatherv.)
ccs_status_t variable_call(const char *name, ccs_team_t team, const void *src, int64_t src_count,
                           ccs_datadesc_t src_dd, void *dst, const int64_t *counts, const int64_t *displs,
                           ccs_datadesc_t dst_dd, int root, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{name};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (root >= 0 && (st = coll_check_root(c, root)) != CCS_OK)) return st;
        const bool receives = root < 0 || c.me() == root;
        // (allgatherv: they decide the algorithm, see ccs_team_allgatherv)
        if (root < 0 && (!counts || !displs))
            return fail(CCS_ERR_INVALID_ARG, std::string(name) + ": dst_counts or dst_displs is NULL");
        layout_buffer in;
        if ((st = check_layout(c, "src", src, src_count, src_dd, 1, in)) != CCS_OK) return st;
        const auto n = static_cast<size_t>(c.size());
        coll::blocks b = coll::blocks::uniform(c.size(), 0);
        std::shared_ptr<const dd::program> out;
        if (receives) {
            ccs_datadesc_s *d = nullptr;
            if ((st = dd::check_handle(dst_dd, name, true, d)) != CCS_OK) return st;
            out = d->compiled;
            if (!counts || !displs) c.refuse("dst_counts or dst_displs is NULL");
            for (size_t i = 0, at = 0; counts && displs && i < n; ++i) {
                int64_t bytes = 0, offset = 0;
                if (counts[i] < 0)
                    return fail(CCS_ERR_INVALID_ARG, std::string(name) + ": dst_counts[" + std::to_string(i) +
                                                         "] is negative");
                if (__builtin_mul_overflow(counts[i], d->size, &bytes) ||
                    __builtin_mul_overflow(displs[i], out->extent, &offset))
                    return fail(CCS_ERR_OVERFLOW, std::string(name) + ": block " + std::to_string(i) +
                                                      " does not fit in 64 bits");
                b.lengths[i] = static_cast<size_t>(bytes);
                b.offsets[i] = at;
                at += b.lengths[i];
            }
            if (b.lengths[static_cast<size_t>(c.me())] != in.bytes && counts && displs)
                c.refuse("src holds " + std::to_string(in.bytes) + " bytes, dst_counts[" + std::to_string(c.me()) +
                         "] elements " + std::to_string(b.lengths[static_cast<size_t>(c.me())]));
        }
        if (in.bytes && !src) c.refuse("src is NULL but its stream is not empty");
        if (receives && b.total() && !dst) c.refuse("dst is NULL but its streams are not empty");
        if (c.local != CCS_OK) in.base = nullptr;
        coll::schedule s;
        uint8_t *in_stream = stream_of(in, s);
        pack(in, in_stream);
        uint8_t *staging = receives && c.local == CCS_OK ? s.scratch_bytes(b.total()) : nullptr;
        const coll::team_view &v = c.team->view;
        coll::schedule built =
            root < 0 ? coll::build_allgather(v, c.team->next_seq, in_stream, in.bytes, staging, b)
                     : coll::build_gather(v, c.team->next_seq, in_stream, in.bytes, staging, b, false, root);
        built.adopt_scratch(s);
        if (staging) {
            std::vector<int64_t> elements(counts, counts + n), places(displs, displs + n);
            built.add_last_step([out, base = static_cast<uint8_t *>(dst), elements, places, staging, b] {
                for (size_t i = 0; i < elements.size(); ++i)
                    if (b.lengths[i])
                        dd::transfer<dd::direction::unpack>(*out, elements[i], base + places[i] * out->extent, 0,
                                                             staging + b.offsets[i],
                                                             static_cast<int64_t>(b.lengths[i]));
            });
        }
        return coll_launch(c, std::move(built));
    });
}

// Reductions: the streams are `count` elements of `type`, the same on
// every member; dst (of reduce: at root only) receives a stream as long.
ccs_status_t reduction_call(const char *name, reduction_kind k, ccs_team_t team, const void *src, int64_t src_count,
                            ccs_datadesc_t src_dd, void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int type,
                            int op, int root, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{name};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (st = check_acc_op_type(name, op, type)) != CCS_OK) return st;
        if (k == reduction_kind::to_root && (st = coll_check_root(c, root)) != CCS_OK) return st;
        const bool receives = k != reduction_kind::to_root || c.me() == root;
        layout_buffer in, out;
        if ((st = check_layout(c, "src", src, src_count, src_dd, 1, in)) != CCS_OK) return st;
        if (receives && (st = check_layout(c, "dst", dst, dst_count, dst_dd, 1, out)) != CCS_OK) return st;
        const coll::reduction r = coll::make_reduction(op, type);
        if (in.bytes % r.element)
            return fail(CCS_ERR_INVALID_ARG, std::string(name) + ": src holds " + std::to_string(in.bytes) +
                                                 " bytes, not a whole number of " + std::to_string(r.element) +
                                                 "-byte elements");
        const size_t count = in.bytes / r.element;
        if (in.bytes && !src) c.refuse("src is NULL but its stream is not empty");
        if (receives && out.bytes && !dst) c.refuse("dst is NULL but its stream is not empty");
        if (receives && out.bytes != in.bytes)
            c.refuse("src holds " + std::to_string(in.bytes) + " bytes, dst " + std::to_string(out.bytes));
        if (c.local != CCS_OK) in.base = out.base = nullptr;
        coll::schedule s;
        uint8_t *in_stream = stream_of(in, s);
        uint8_t *out_stream = receives ? stream_of(out, s) : nullptr;
        pack(in, in_stream);
        const coll::team_view &v = c.team->view;
        const uint64_t seq = c.team->next_seq;
        coll::schedule built =
            k == reduction_kind::all       ? coll::build_allreduce(v, seq, in_stream, out_stream, count, r)
            : k == reduction_kind::to_root ? coll::build_reduce(v, seq, in_stream, out_stream, count, r, root)
                                           : coll::build_scan(v, seq, in_stream, out_stream, count, r,
                                                              k == reduction_kind::exscan);
        built.adopt_scratch(s);
        // (Rank 0's exscan result is undefined: its dst stays as it was.)
        if (receives && !(k == reduction_kind::exscan && c.me() == 0)) unpack_at_end(built, out, out_stream);
        return coll_launch(c, std::move(built));
    });
}

}  // namespace

extern "C" {

ccs_status_t ccs_team_reduce_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                      void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int type, int op, int root,
                                      const ccs_completion_t *completion) {
    return reduction_call("ccs_team_reduce_datadesc", reduction_kind::to_root, team, src, src_count, src_dd, dst,
                          dst_count, dst_dd, type, op, root, completion);
}

ccs_status_t ccs_team_allreduce_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                         void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int type, int op,
                                         const ccs_completion_t *completion) {
    return reduction_call("ccs_team_allreduce_datadesc", reduction_kind::all, team, src, src_count, src_dd, dst,
                          dst_count, dst_dd, type, op, 0, completion);
}

ccs_status_t ccs_team_scan_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                    void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int type, int op,
                                    const ccs_completion_t *completion) {
    return reduction_call("ccs_team_scan_datadesc", reduction_kind::scan, team, src, src_count, src_dd, dst,
                          dst_count, dst_dd, type, op, 0, completion);
}

ccs_status_t ccs_team_exscan_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                      void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int type, int op,
                                      const ccs_completion_t *completion) {
    return reduction_call("ccs_team_exscan_datadesc", reduction_kind::exscan, team, src, src_count, src_dd, dst,
                          dst_count, dst_dd, type, op, 0, completion);
}

ccs_status_t ccs_team_broadcast_datadesc(ccs_team_t team, void *buffer, int64_t count, ccs_datadesc_t dd, int root,
                                         const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        coll_call c{"ccs_team_broadcast_datadesc"};
        ccs_status_t st = coll_begin(c, team, completion);
        if (st != CCS_OK || (st = coll_check_root(c, root)) != CCS_OK) return st;
        layout_buffer b;
        if ((st = check_layout(c, "buffer", buffer, count, dd, 1, b)) != CCS_OK) return st;
        if (b.bytes && !buffer) c.refuse("buffer is NULL but its stream is not empty");
        if (c.local != CCS_OK) b.base = nullptr;
        coll::schedule s;
        uint8_t *stream = stream_of(b, s);
        if (c.me() == root) pack(b, stream);
        coll::schedule built = coll::build_broadcast(c.team->view, c.team->next_seq, stream, b.bytes, root);
        built.adopt_scratch(s);
        if (c.me() != root) unpack_at_end(built, b, stream);
        return coll_launch(c, std::move(built));
    });
}

ccs_status_t ccs_team_gather_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                      void *dst, int64_t dst_count, ccs_datadesc_t dst_dd, int root,
                                      const ccs_completion_t *completion) {
    return blocks_call("ccs_team_gather_datadesc", team, src, src_count, src_dd, dst, dst_count, dst_dd, root, false,
                       gather, completion);
}

ccs_status_t ccs_team_allgather_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                         void *dst, int64_t dst_count, ccs_datadesc_t dst_dd,
                                         const ccs_completion_t *completion) {
    return blocks_call("ccs_team_allgather_datadesc", team, src, src_count, src_dd, dst, dst_count, dst_dd, -1, false,
                       allgather, completion);
}

ccs_status_t ccs_team_gatherv_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                       void *dst, const int64_t *dst_counts, const int64_t *dst_displs,
                                       ccs_datadesc_t dst_dd, int root, const ccs_completion_t *completion) {
    return variable_call("ccs_team_gatherv_datadesc", team, src, src_count, src_dd, dst, dst_counts, dst_displs,
                         dst_dd, root, completion);
}

ccs_status_t ccs_team_allgatherv_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                          void *dst, const int64_t *dst_counts, const int64_t *dst_displs,
                                          ccs_datadesc_t dst_dd, const ccs_completion_t *completion) {
    return variable_call("ccs_team_allgatherv_datadesc", team, src, src_count, src_dd, dst, dst_counts, dst_displs,
                         dst_dd, -1, completion);
}

ccs_status_t ccs_team_alltoall_datadesc(ccs_team_t team, const void *src, int64_t src_count, ccs_datadesc_t src_dd,
                                        void *dst, int64_t dst_count, ccs_datadesc_t dst_dd,
                                        const ccs_completion_t *completion) {
    return blocks_call("ccs_team_alltoall_datadesc", team, src, src_count, src_dd, dst, dst_count, dst_dd, -1, true,
                       alltoall, completion);
}

}  // extern "C"
