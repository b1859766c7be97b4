#include "rma.hpp"

#include <ccs/datadesc.h>

namespace ccs::shmem {
size_t byte_count(const char *call, size_t nelems, size_t element) {
    if (nelems > SIZE_MAX / element) [[unlikely]]
        fail(call, std::to_string(nelems) + " elements of " + std::to_string(element) + " bytes overflow size_t");
    return nelems * element;
}

void put_to_world_pe(const char *call, const pe_state &s, void *dest, const void *source, size_t bytes, int pe) {
    const remote_location r = locate(call, s, dest, bytes, pe);
    if (bytes == 0) return;
    check(call, ccs_put(s.context, pe, source, bytes, r.address, r.key, nullptr));
}

void put_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe) {
    const pe_state &s = ready(call);
    put_to_world_pe(call, s, dest, source, bytes, world_pe(call, live(call, ctx), pe));
}

void get_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe) {
    const pe_state &s = ready(call);
    pe = world_pe(call, live(call, ctx), pe);
    const remote_location r = locate(call, s, source, bytes, pe);
    if (bytes == 0) return;
    check(call, ccs_get_sync(s.context, pe, dest, bytes, r.address, r.key));
}

void get_bytes_nbi(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe) {
    const pe_state &s = ready(call);
    shmem_ctx_s &c = live(call, ctx);
    pe = world_pe(call, c, pe);
    const remote_location r = locate(call, s, source, bytes, pe);
    if (bytes == 0) return;
    const ccs_completion_t counted{nullptr, nullptr, &c.done};
    c.issued.fetch_add(1, std::memory_order_relaxed);
    check(call, ccs_get(s.context, pe, dest, bytes, r.address, r.key, &counted));
}

namespace {
// `nelems` elements of `element` bytes, `stride` elements apart.
class strided_layout {
public:
    strided_layout(const char *call, ptrdiff_t stride, size_t nelems, size_t element) {
        if (stride < 1) fail(call, "stride " + std::to_string(stride) + " is not positive");
        const size_t step = byte_count(call, static_cast<size_t>(stride), element);
        extent_ = byte_count(call, nelems - 1, step) + element;
        check(call, ccs_datadesc_hvector(static_cast<int64_t>(nelems), static_cast<int64_t>(element),
                                         static_cast<int64_t>(step), CCS_BYTE, &dd_));
        check(call, ccs_datadesc_commit(dd_));
    }
    ~strided_layout() { ccs_datadesc_free(&dd_); }
    strided_layout(const strided_layout &) = delete;
    strided_layout &operator=(const strided_layout &) = delete;
    ccs_datadesc_t dd() const { return dd_; }
    size_t extent() const { return extent_; }

private:
    ccs_datadesc_t dd_ = nullptr;
    size_t extent_ = 0;
};

// dest[i * dst] = source[i * sst] for i < nelems, the remote side being
// dest for a put and source for a get.
void strided(const char *call, bool is_put, shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,
             ptrdiff_t sst, size_t nelems, size_t element, int pe) {
    const pe_state &s = ready(call);
    pe = world_pe(call, live(call, ctx), pe);
    check_pe(call, s, pe);
    if (nelems == 0) return;
    const strided_layout to(call, dst, nelems, element), from(call, sst, nelems, element);
    const remote_location r = locate(call, s, is_put ? dest : source, (is_put ? to : from).extent(), pe);
    if (is_put)
        return check(call, ccs_put_datadesc(s.context, pe, source, 1, from.dd(), r.address, 1, to.dd(), r.key, nullptr));
    ccs_counter_t done{0, 0, CCS_OK};
    const ccs_completion_t counted{nullptr, nullptr, &done};
    check(call, ccs_get_datadesc(s.context, pe, dest, 1, to.dd(), r.address, 1, from.dd(), r.key, &counted));
    check(call, ccs_counter_wait(&done, 1));
}
}  // namespace

void put_strided(const char *call, shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t element, int pe) {
    if (dst == 1 && sst == 1) return put_bytes(call, ctx, dest, source, byte_count(call, nelems, element), pe);
    strided(call, true, ctx, dest, source, dst, sst, nelems, element, pe);
}

void get_strided(const char *call, shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t element, int pe) {
    if (dst == 1 && sst == 1) return get_bytes(call, ctx, dest, source, byte_count(call, nelems, element), pe);
    strided(call, false, ctx, dest, source, dst, sst, nelems, element, pe);
}
}  // namespace ccs::shmem
