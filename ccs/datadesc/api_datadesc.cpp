// C entry points for datadescs: argument checks, handles, and the calls
// into the node builders, the compiler and the copy kernels.
#include "copy_kernels.hpp"
#include "node.hpp"
#include "program.hpp"
#include "walker.hpp"

#include "util/error.hpp"
#include "util/guarded.hpp"

#include <ccs/datadesc.h>

#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace ccs;
using namespace ccs::dd;

#include "handle.hpp"

ccs_status_t ccs::dd::bad_handle(ccs_datadesc_t dd, const char *call, bool need_commit) {
    if (!dd) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": datadesc is NULL");
    const ccs_datadesc_s *d = resolve(dd);
    if (!d)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": not a live datadesc (freed, or not made by CCS)");
    if (need_commit && !d->compiled)
        return fail(CCS_ERR_NOT_COMMITTED, std::string(call) + ": datadesc is not committed");
    return CCS_OK;  // not reached: check_handle calls this only when a check fails
}

namespace {

std::shared_ptr<const program> compile_or_null(const node_ptr &n) {
    auto p = std::make_shared<program>();
    return compile(*n, *p) == CCS_OK ? p : nullptr;
}

}  // namespace

// The predefined byte, committed from the start.
ccs_datadesc_s ccs_datadesc_byte_ = [] {
    ccs_datadesc_s byte{byte_node()};
    byte.set_compiled(compile_or_null(byte_node()));
    return byte;
}();

namespace {

// The object behind `dd` in `out`, or the error naming `call`.
ccs_status_t check(ccs_datadesc_t dd, const char *call, ccs_datadesc_s *&out, bool need_commit = false) {
    return check_handle(dd, call, need_commit, out);
}

[[gnu::cold]] ccs_status_t negative(const char *call, const char *what) {
    return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": " + what + " is negative");
}

// Inline with the message out of line: pack and unpack check three counts
// per call.
inline ccs_status_t check_count(int64_t v, const char *call, const char *what) {
    return v < 0 ? negative(call, what) : CCS_OK;
}

// A new handle for `object` in *out.
ccs_status_t publish(std::unique_ptr<ccs_datadesc_s> object, ccs_datadesc_t *out) {
    const ccs_datadesc_t h = handle_insert(std::move(object));
    if (!h)
        return fail(CCS_ERR_NO_RESOURCES, "datadesc: " + std::to_string(handle_chunk_slots * handle_chunks) +
                                              " datadescs are alive already");
    *out = h;
    return CCS_OK;
}

ccs_status_t finish(node_ptr n, ccs_datadesc_t *out) {
    auto object = std::make_unique<ccs_datadesc_s>();
    object->root = std::move(n);
    return publish(std::move(object), out);
}

ccs_status_t element_bytes(int64_t elements, const ccs_datadesc_s *old, int64_t &bytes, const char *call) {
    if (!mul(elements, old->root->extent(), bytes))
        return fail(CCS_ERR_OVERFLOW, std::string(call) + ": displacement times extent overflows");
    return CCS_OK;
}

// indexed / hindexed and their block forms; `scale` converts a displacement
// to bytes (old's extent, or 1).
ccs_status_t make_indexed(const char *call, int64_t count, const int64_t *blocklengths, int64_t same_length,
                          const int64_t *displacements, bool in_elements, ccs_datadesc_t old_handle, ccs_datadesc_t *out) {
    ccs_status_t st = CCS_OK;
    ccs_datadesc_s *old = nullptr;
    if ((st = check(old_handle, call, old)) != CCS_OK || (st = check_count(count, call, "count")) != CCS_OK) return st;
    if (!out || (count > 0 && (!displacements || (!blocklengths && same_length < 0))))
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": NULL array or output");
    std::vector<block> blocks;
    blocks.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        const int64_t bl = blocklengths ? blocklengths[i] : same_length;
        if ((st = check_count(bl, call, "a blocklength")) != CCS_OK) return st;
        int64_t disp = displacements[i];
        if (in_elements && (st = element_bytes(displacements[i], old, disp, call)) != CCS_OK) return st;
        blocks.push_back({disp, bl, old->root});
    }
    node_ptr n;
    if ((st = make_blocks(std::move(blocks), n)) != CCS_OK) return st;
    return finish(std::move(n), out);
}

}  // namespace

extern "C" {

ccs_status_t ccs_datadesc_contiguous(int64_t count, ccs_datadesc_t old_handle, ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        ccs_datadesc_s *old = nullptr;
        if ((st = check(old_handle, "ccs_datadesc_contiguous", old)) != CCS_OK ||
            (st = check_count(count, "ccs_datadesc_contiguous", "count")) != CCS_OK)
            return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_contiguous: out is NULL");
        node_ptr n;
        if ((st = make_strided(1, count, 0, old->root, n)) != CCS_OK) return st;
        return finish(std::move(n), out);
    });
}

ccs_status_t ccs_datadesc_hvector(int64_t count, int64_t blocklength, int64_t stride_bytes, ccs_datadesc_t old_handle,
                                  ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_datadesc_hvector";
        ccs_status_t st = CCS_OK;
        ccs_datadesc_s *old = nullptr;
        if ((st = check(old_handle, call, old)) != CCS_OK || (st = check_count(count, call, "count")) != CCS_OK ||
            (st = check_count(blocklength, call, "blocklength")) != CCS_OK)
            return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": out is NULL");
        node_ptr n;
        if ((st = make_strided(count, blocklength, stride_bytes, old->root, n)) != CCS_OK) return st;
        return finish(std::move(n), out);
    });
}

ccs_status_t ccs_datadesc_vector(int64_t count, int64_t blocklength, int64_t stride, ccs_datadesc_t old_handle,
                                 ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        ccs_datadesc_s *old = nullptr;
        ccs_status_t st = check(old_handle, "ccs_datadesc_vector", old);
        if (st != CCS_OK) return st;
        int64_t bytes = 0;
        if ((st = element_bytes(stride, old, bytes, "ccs_datadesc_vector")) != CCS_OK) return st;
        return ccs_datadesc_hvector(count, blocklength, bytes, old_handle, out);
    });
}

ccs_status_t ccs_datadesc_indexed(int64_t count, const int64_t *blocklengths, const int64_t *displacements,
                                  ccs_datadesc_t old, ccs_datadesc_t *out) {
    return guarded([&] {
        if (!blocklengths && count > 0) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_indexed: blocklengths is NULL");
        return make_indexed("ccs_datadesc_indexed", count, blocklengths, -1, displacements, true, old, out);
    });
}

ccs_status_t ccs_datadesc_hindexed(int64_t count, const int64_t *blocklengths, const int64_t *byte_displacements,
                                   ccs_datadesc_t old, ccs_datadesc_t *out) {
    return guarded([&] {
        if (!blocklengths && count > 0)
            return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_hindexed: blocklengths is NULL");
        return make_indexed("ccs_datadesc_hindexed", count, blocklengths, -1, byte_displacements, false, old, out);
    });
}

ccs_status_t ccs_datadesc_indexed_block(int64_t count, int64_t blocklength, const int64_t *displacements,
                                        ccs_datadesc_t old, ccs_datadesc_t *out) {
    return guarded([&] {
        if (blocklength < 0) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_indexed_block: blocklength is negative");
        return make_indexed("ccs_datadesc_indexed_block", count, nullptr, blocklength, displacements, true, old, out);
    });
}

ccs_status_t ccs_datadesc_hindexed_block(int64_t count, int64_t blocklength, const int64_t *byte_displacements,
                                         ccs_datadesc_t old, ccs_datadesc_t *out) {
    return guarded([&] {
        if (blocklength < 0) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_hindexed_block: blocklength is negative");
        return make_indexed("ccs_datadesc_hindexed_block", count, nullptr, blocklength, byte_displacements, false, old,
                            out);
    });
}

ccs_status_t ccs_datadesc_struct(int64_t count, const int64_t *blocklengths, const int64_t *byte_displacements,
                                 const ccs_datadesc_t *types, ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_datadesc_struct";
        ccs_status_t st = check_count(count, call, "count");
        if (st != CCS_OK) return st;
        if (!out || (count > 0 && (!blocklengths || !byte_displacements || !types)))
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": NULL array or output");
        std::vector<block> blocks;
        for (int64_t i = 0; i < count; ++i) {
            ccs_datadesc_s *type = nullptr;
            if ((st = check(types[i], call, type)) != CCS_OK ||
                (st = check_count(blocklengths[i], call, "a blocklength")) != CCS_OK)
                return st;
            blocks.push_back({byte_displacements[i], blocklengths[i], type->root});
        }
        node_ptr n;
        if ((st = make_blocks(std::move(blocks), n)) != CCS_OK) return st;
        return finish(std::move(n), out);
    });
}

ccs_status_t ccs_datadesc_resized(ccs_datadesc_t old_handle, int64_t lb, int64_t extent, ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        ccs_datadesc_s *old = nullptr;
        ccs_status_t st = check(old_handle, "ccs_datadesc_resized", old);
        if (st != CCS_OK) return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_resized: out is NULL");
        node_ptr n;
        if ((st = make_resized(old->root, lb, extent, n)) != CCS_OK) return st;
        return finish(std::move(n), out);
    });
}

ccs_status_t ccs_datadesc_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes, const int64_t *starts,
                                   int order, ccs_datadesc_t old_handle, ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_datadesc_subarray";
        ccs_datadesc_s *old = nullptr;
        ccs_status_t st = check(old_handle, call, old);
        if (st != CCS_OK) return st;
        if (ndims < 1 || !sizes || !subsizes || !starts || !out)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": ndims < 1 or a NULL array");
        if (order != CCS_ORDER_C && order != CCS_ORDER_FORTRAN)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": unknown order");
        for (int i = 0; i < ndims; ++i)
            if (sizes[i] < 1 || subsizes[i] < 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
                starts[i] > sizes[i] - subsizes[i])
                return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": dimension " + std::to_string(i) +
                                                     " needs sizes >= 1 and 0 <= starts <= sizes - subsizes");
        // Dimension d in order from fastest to slowest varying.
        auto dim = [&](int k) { return order == CCS_ORDER_C ? ndims - 1 - k : k; };
        const int64_t ext = old->root->extent();
        node_ptr t;
        if ((st = make_strided(1, subsizes[dim(0)], 0, old->root, t)) != CCS_OK) return st;
        int64_t stride = 0, disp = 0, scale = 0;
        if (!mul(sizes[dim(0)], ext, stride) || !mul(starts[dim(0)], ext, disp))
            return fail(CCS_ERR_OVERFLOW, std::string(call) + ": size overflows");
        for (int k = 1; k < ndims; ++k) {
            if ((st = make_strided(subsizes[dim(k)], 1, stride, t, t)) != CCS_OK) return st;
            if (!mul(starts[dim(k)], stride, scale) || !add(disp, scale, disp) || !mul(stride, sizes[dim(k)], stride))
                return fail(CCS_ERR_OVERFLOW, std::string(call) + ": size overflows");
        }
        // Place the box at its start; the whole array is the extent (lb 0).
        if ((st = make_blocks({{disp, 1, t}}, t)) != CCS_OK) return st;
        if ((st = make_resized(t, 0, stride, t)) != CCS_OK) return st;
        return finish(std::move(t), out);
    });
}

ccs_status_t ccs_datadesc_dup(ccs_datadesc_t old_handle, ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        ccs_datadesc_s *old = nullptr;
        ccs_status_t st = check(old_handle, "ccs_datadesc_dup", old);
        if (st != CCS_OK) return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_dup: out is NULL");
        auto copy = std::make_unique<ccs_datadesc_s>();
        copy->root = old->root;
        copy->set_compiled(old->compiled);  // committed if old was
        return publish(std::move(copy), out);
    });
}

ccs_status_t ccs_datadesc_strided(int stride_levels, const int64_t *count, const int64_t *stride,
                                  ccs_datadesc_t *out) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_datadesc_strided";
        if (stride_levels < 0 || stride_levels > CCS_DATADESC_MAX_STRIDE_LEVELS)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": stride_levels must be 0.." +
                                                 std::to_string(CCS_DATADESC_MAX_STRIDE_LEVELS));
        if (!count || (stride_levels > 0 && !stride) || !out)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": NULL array or output");
        for (int i = 0; i <= stride_levels; ++i)
            if (count[i] < 0) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": a count is negative");
        node_ptr t;
        ccs_status_t st = make_strided(1, count[0], 0, byte_node(), t);
        for (int i = 1; st == CCS_OK && i <= stride_levels; ++i) st = make_strided(count[i], 1, stride[i - 1], t, t);
        if (st != CCS_OK) return st;
        return finish(std::move(t), out);
    });
}

ccs_status_t ccs_datadesc_iov(int64_t n, const int64_t *offsets, const int64_t *lengths, ccs_datadesc_t *out) {
    return guarded([&] {
        if (!lengths && n > 0) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_iov: lengths is NULL");
        return make_indexed("ccs_datadesc_iov", n, lengths, -1, offsets, false, CCS_BYTE, out);
    });
}

ccs_status_t ccs_datadesc_commit(ccs_datadesc_t handle) {
    return guarded([&]() -> ccs_status_t {
        ccs_datadesc_s *dd = nullptr;
        ccs_status_t st = check(handle, "ccs_datadesc_commit", dd);
        if (st != CCS_OK || dd->compiled) return st;
        auto p = std::make_shared<program>();
        if ((st = compile(*dd->root, *p)) != CCS_OK) return st;
        dd->set_compiled(std::move(p));
        return CCS_OK;
    });
}

ccs_status_t ccs_datadesc_free(ccs_datadesc_t *dd) {
    const api_lock::entry inside;
    if (!dd) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_free: dd is NULL");
    ccs_datadesc_s *object = nullptr;
    ccs_status_t st = check(*dd, "ccs_datadesc_free", object);
    if (st != CCS_OK) return st;
    if (*dd == CCS_BYTE) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_free: CCS_BYTE is predefined");
    handle_erase(*dd);  // the handle finds nothing from here on, whatever reuses its slot
    *dd = nullptr;
    return CCS_OK;
}

ccs_status_t ccs_datadesc_size(ccs_datadesc_t handle, int64_t *size) {
    const api_lock::entry inside;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check(handle, "ccs_datadesc_size", dd);
    if (st != CCS_OK) return st;
    if (!size) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_size: size is NULL");
    *size = dd->root->size;
    return CCS_OK;
}

ccs_status_t ccs_datadesc_extent(ccs_datadesc_t handle, int64_t *lb, int64_t *extent) {
    const api_lock::entry inside;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check(handle, "ccs_datadesc_extent", dd);
    if (st != CCS_OK) return st;
    if (!lb || !extent) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_extent: NULL output");
    *lb = dd->root->lb();
    *extent = dd->root->extent();
    return CCS_OK;
}

ccs_status_t ccs_datadesc_true_extent(ccs_datadesc_t handle, int64_t *true_lb, int64_t *true_extent) {
    const api_lock::entry inside;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check(handle, "ccs_datadesc_true_extent", dd);
    if (st != CCS_OK) return st;
    if (!true_lb || !true_extent) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_true_extent: NULL output");
    *true_lb = dd->root->true_lb();
    *true_extent = dd->root->true_extent();
    return CCS_OK;
}

ccs_status_t ccs_datadesc_num_blocks(ccs_datadesc_t handle, int64_t *blocks) {
    const api_lock::entry inside;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check(handle, "ccs_datadesc_num_blocks", dd, true);
    if (st != CCS_OK) return st;
    if (!blocks) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_num_blocks: blocks is NULL");
    *blocks = dd->compiled->blocks;
    return CCS_OK;
}

ccs_status_t ccs_datadesc_is_contiguous(ccs_datadesc_t handle, int64_t count, int *flag) {
    const api_lock::entry inside;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check(handle, "ccs_datadesc_is_contiguous", dd, true);
    if (st != CCS_OK || (st = check_count(count, "ccs_datadesc_is_contiguous", "count")) != CCS_OK) return st;
    if (!flag) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_is_contiguous: flag is NULL");
    *flag = dd->compiled->contiguous(count);
    return CCS_OK;
}

}  // extern "C"

namespace {

// The error of check_stream, which calls this only when a check fails.
[[gnu::cold]] ccs_status_t bad_stream(const char *call, const void *buffer, int64_t count, ccs_datadesc_t dd,
                                      int64_t offset, int64_t max_bytes, const int64_t *done) {
    int64_t stream_bytes = 0;
    ccs_datadesc_s *d = nullptr;
    ccs_status_t st = check(dd, call, d, true);
    if (st != CCS_OK || (st = check_count(count, call, "count")) != CCS_OK ||
        (st = check_count(offset, call, "offset")) != CCS_OK || (st = check_count(max_bytes, call, "max_bytes")) != CCS_OK)
        return st;
    if (!done) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": done is NULL");
    if (!mul(count, d->compiled->size, stream_bytes))
        return fail(CCS_ERR_OVERFLOW, std::string(call) + ": count times size overflows");
    if (offset > stream_bytes)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": offset " + std::to_string(offset) +
                                             " is past the end of the stream (" + std::to_string(stream_bytes) + ")");
    if (!buffer && stream_bytes > offset && max_bytes > 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": buffer is NULL");
    return fail(CCS_ERR_INTERNAL, std::string(call) + ": argument check disagrees with itself");
}

// Shared checks of pack, unpack and iov_walk; sets stream_bytes and the
// object. All checks in one expression and the messages out of line: they
// were a third of a small pack's instructions.
inline ccs_status_t check_stream(const char *call, const void *buffer, int64_t count, ccs_datadesc_t handle,
                                 int64_t offset, int64_t max_bytes, const int64_t *done, int64_t &stream_bytes,
                                 ccs_datadesc_s *&dd) {
    if ((dd = usable_handle(handle, true)) && count >= 0 && offset >= 0 && max_bytes >= 0 && done &&
        mul(count, dd->size, stream_bytes) && offset <= stream_bytes &&
        (buffer || stream_bytes == offset || max_bytes == 0))
        return CCS_OK;
    return bad_stream(call, buffer, count, handle, offset, max_bytes, done);
}

}  // namespace

extern "C" {

ccs_status_t ccs_datadesc_pack(const void *src, int64_t count, ccs_datadesc_t handle, int64_t offset, void *dst,
                               int64_t max_bytes, int64_t *done) {
    const api_lock::entry inside;
    int64_t total = 0;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check_stream("ccs_datadesc_pack", src, count, handle, offset, max_bytes, done, total, dd);
    if (st != CCS_OK) return st;
    const int64_t want = std::min(max_bytes, total - offset);
    if (want > 0 && !dst) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_pack: dst is NULL");
    *done = want > 0 ? transfer<direction::pack>(*dd->compiled, dd->element_run, count,
                                                  const_cast<uint8_t *>(static_cast<const uint8_t *>(src)),
                                                  offset, static_cast<uint8_t *>(dst), want)
                     : 0;
    return CCS_OK;
}

ccs_status_t ccs_datadesc_unpack(const void *src, int64_t max_bytes, void *dst, int64_t count, ccs_datadesc_t handle,
                                 int64_t offset, int64_t *done) {
    const api_lock::entry inside;
    int64_t total = 0;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check_stream("ccs_datadesc_unpack", dst, count, handle, offset, max_bytes, done, total, dd);
    if (st != CCS_OK) return st;
    const int64_t want = std::min(max_bytes, total - offset);
    if (want > 0 && !src) return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_unpack: src is NULL");
    *done = want > 0 ? transfer<direction::unpack>(*dd->compiled, dd->element_run, count, static_cast<uint8_t *>(dst), offset,
                                                    const_cast<uint8_t *>(static_cast<const uint8_t *>(src)), want)
                     : 0;
    return CCS_OK;
}

ccs_status_t ccs_datadesc_iov_walk(const void *base, int64_t count, ccs_datadesc_t handle, int64_t offset,
                                   ccs_datadesc_iovec_t *iov, int64_t max_entries, int64_t max_bytes,
                                   int64_t *entries, int64_t *bytes) {
    const api_lock::entry inside;
    int64_t total = 0;
    ccs_datadesc_s *dd = nullptr;
    ccs_status_t st = check_stream("ccs_datadesc_iov_walk", base, count, handle, offset, max_bytes, bytes, total, dd);
    if (st != CCS_OK || (st = check_count(max_entries, "ccs_datadesc_iov_walk", "max_entries")) != CCS_OK) return st;
    if (!entries || (max_entries > 0 && !iov))
        return fail(CCS_ERR_INVALID_ARG, "ccs_datadesc_iov_walk: NULL iov or entries");
    auto *mem = const_cast<uint8_t *>(static_cast<const uint8_t *>(base));
    int64_t n = 0;
    const int64_t budget = std::min(max_bytes, total - offset);
    // Adds one piece, merged with the previous one if adjacent; false when
    // the vector is full and the piece did not fit.
    auto emit = [&](int64_t at, int64_t len) {
        if (n > 0 && static_cast<uint8_t *>(iov[n - 1].base) + iov[n - 1].length == mem + at) {
            iov[n - 1].length += len;
            return true;
        }
        if (n == max_entries) return false;
        iov[n++] = {mem + at, len};
        return true;
    };
    const int64_t moved = budget > 0 && max_entries > 0 ? for_each_piece(*dd->compiled, count, offset, budget, emit) : 0;
    *entries = n;
    *bytes = moved;
    return CCS_OK;
}

}  // extern "C"
