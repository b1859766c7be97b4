// C entry points of accumulate (ccs/rma.h): contiguous elements into a
// node peer's block mapped here inline, else every argument checked here,
// then one request to the RMA engine (rma/rma_accumulate.cpp).
#include "acc_checks.hpp"
#include "api_guard.hpp"
#include "util/fast_path.hpp"

#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <cstring>
#include <string>

using namespace ccs;

namespace {

// Why an accumulate's own arguments were refused.
enum class acc_refusal { none, op_type, scale, whole_elements, no_source, remote_alignment };

// The checks of an accumulate's own arguments. Inline: every accumulate
// runs them before anything else; the texts are built out of line.
[[gnu::always_inline]] inline acc_refusal check_accumulate_args(int op, int type, const void *src, size_t length,
                                                                uint64_t remote_addr, const void *scale) {
    const bool complex = type == CCS_ACC_COMPLEX_FLOAT || type == CCS_ACC_COMPLEX_DOUBLE;
    if (op < CCS_ACC_SUM || op > CCS_ACC_REPLACE || type < CCS_ACC_INT32 || type > CCS_ACC_COMPLEX_DOUBLE ||
        (complex && (op == CCS_ACC_MIN || op == CCS_ACC_MAX))) [[unlikely]]
        return acc_refusal::op_type;
    if (scale && op != CCS_ACC_SUM) [[unlikely]]
        return acc_refusal::scale;
    if (length % acc_element_size(type) != 0) [[unlikely]]
        return acc_refusal::whole_elements;
    if (length > 0 && !src) [[unlikely]]
        return acc_refusal::no_source;
    if (remote_addr % acc_alignment(type) != 0) [[unlikely]]
        return acc_refusal::remote_alignment;
    return acc_refusal::none;
}

[[gnu::cold, gnu::noinline]] ccs_status_t refuse_accumulate(const char *call, acc_refusal why, int op, int type,
                                                            size_t length, uint64_t remote_addr) {
    const std::string at = std::string(call) + ": ";
    switch (why) {
        case acc_refusal::op_type: return bad_acc_op_type(call, op, type);
        case acc_refusal::scale: return fail(CCS_ERR_INVALID_ARG, at + "a scale applies to CCS_ACC_SUM only");
        case acc_refusal::whole_elements:
            return fail(CCS_ERR_INVALID_ARG, at + std::to_string(length) + " bytes are not a whole number of " +
                                                 std::to_string(acc_element_size(type)) + "-byte elements");
        case acc_refusal::no_source: return fail(CCS_ERR_INVALID_ARG, at + "src is NULL but length > 0");
        case acc_refusal::remote_alignment:
        case acc_refusal::none: break;
    }
    return fail(CCS_ERR_INVALID_ARG, at + "remote address " + std::to_string(remote_addr) + " is not aligned to " +
                                         std::to_string(acc_alignment(type)) + " bytes");
}

// The accumulate's arguments as the engine takes them.
[[gnu::always_inline]] inline void fill_accumulate(int op, int type, const void *scale, void *fetched,
                                                   rma_accumulate &a) {
    a.op = static_cast<uint8_t>(op);
    a.type = static_cast<uint8_t>(type);
    if (scale)
        std::memcpy(a.scale, scale, acc_element_size(type));
    else acc_unit_scale(type, a.scale);
    a.fetched = fetched;
}

ccs_status_t check_accumulate(const char *call, int op, int type, const void *src, size_t length, uint64_t remote_addr,
                              const void *scale, void *fetched, rma_accumulate &a) {
    const acc_refusal why = check_accumulate_args(op, type, src, length, remote_addr, scale);
    if (why != acc_refusal::none) [[unlikely]]
        return refuse_accumulate(call, why, op, type, length, remote_addr);
    fill_accumulate(op, type, scale, fetched, a);
    return CCS_OK;
}

// done_mapped_accumulate below at thread level multiple, beside the API
// lock (util/fast_path.hpp). The same frame as ccs_put's and ccs_atomic's,
// written out in each: a shared template with a lambda made ccs_get's
// inline path larger and slower.
[[gnu::noinline]] bool done_mapped_accumulate_beside(ccs_context_t handle, int target, const rma_accumulate &a,
                                                     const void *src, size_t length, uint64_t remote, ccs_rkey_t rkey,
                                                     const ccs_completion_t *completion) noexcept {
    const fast_path::section inside;
    runtime *rt = runtime::current();
    if (!inside.entered() || !rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped_accumulate(target, a, src, length, remote, rkey, completion, &inside.counts()))
        return false;
    rt->note_activity_beside();
    return true;
}

// The common case inline, before a request is built: contiguous elements
// into a node peer's ccs_mem_alloc block mapped here, no callback. False,
// nothing done, otherwise; the general path then checks everything again
// and says what is wrong.
[[gnu::always_inline]] inline bool done_mapped_accumulate(ccs_context_t handle, int target, int op, int type,
                                                          const void *src, size_t length, uint64_t remote,
                                                          ccs_rkey_t rkey, const void *scale, void *fetched,
                                                          const ccs_completion_t *completion) {
    if (check_accumulate_args(op, type, src, length, remote, scale) != acc_refusal::none) [[unlikely]]
        return false;
    rma_accumulate a;
    fill_accumulate(op, type, scale, fetched, a);
    if (fast_path::enabled()) [[unlikely]]
        return done_mapped_accumulate_beside(handle, target, a, src, length, remote, rkey, completion);
    const api_lock::entry inside;
    runtime *rt = runtime::current();
    if (!rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped_accumulate(target, a, src, length, remote, rkey, completion))
        return false;
    rt->note_activity();
    return true;
}

// ccs_accumulate, and with `sync` ccs_accumulate_sync (completion null).
ccs_status_t accumulate(const char *call, bool sync, ccs_context_t handle, int target, int op, int type,
                        const void *src, size_t length, uint64_t remote_addr, ccs_rkey_t rkey, const void *scale,
                        void *fetched, const ccs_completion_t *completion) {
    if (done_mapped_accumulate(handle, target, op, type, src, length, remote_addr, rkey, scale, fetched, completion))
        return CCS_OK;
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        rma_accumulate a;
        ccs_status_t st = check_rma_to(call, handle, target, nullptr, 0, remote_addr, rkey, rt, ctx);
        if (st != CCS_OK ||
            (st = check_accumulate(call, op, type, src, length, remote_addr, scale, fetched, a)) != CCS_OK)
            return st;
        auto request_with = [&](const ccs_completion_t *c) {
            rma_request q = contiguous(rma_kind::accumulate, target, src, length, remote_addr, rkey, c);
            q.acc = a;
            return q;
        };
        if (sync) return start_and_wait(*rt, *ctx, call, request_with);
        return rt->rma().start(*ctx, request_with(completion));
    });
}

// ccs_accumulate_datadesc: the layouts checked as for put; that each piece
// holds whole elements, the engine checks as it lists them.
ccs_status_t accumulate_layouts(const char *call, ccs_context_t handle, int target, int op, int type, const void *src,
                                int64_t src_count, ccs_datadesc_t src_dd, uint64_t remote_addr, int64_t dst_count,
                                ccs_datadesc_t dst_dd, ccs_rkey_t rkey, const void *scale, void *fetched,
                                const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        int64_t bytes = 0;
        const ccs_datadesc_s *local_dd = nullptr, *remote_dd = nullptr;
        rma_accumulate a;
        ccs_status_t st = check_rma_to(call, handle, target, nullptr, 0, remote_addr, rkey, rt, ctx);
        if (st != CCS_OK ||
            (st = check_layouts(call, src, src_count, src_dd, dst_count, dst_dd, bytes, local_dd, remote_dd)) !=
                CCS_OK ||
            (st = check_accumulate(call, op, type, src, static_cast<size_t>(bytes), 0, scale, fetched, a)) !=
                CCS_OK)
            return st;
        if (rt->rma().try_mapped_accumulate_layouts(target, a, static_cast<const uint8_t *>(src), src_count, *local_dd,
                                                    remote_addr, dst_count, *remote_dd, rkey, completion))
            return CCS_OK;
        rma_request q;
        q.kind = rma_kind::accumulate;
        q.target = target;
        q.local = {reinterpret_cast<uintptr_t>(src), static_cast<size_t>(bytes), local_dd, src_count};
        q.remote = {remote_addr, static_cast<size_t>(bytes), remote_dd, dst_count};
        q.key = rkey;
        q.completion = completion;
        q.acc = a;
        st = rt->rma().start(*ctx, q);
        return st == CCS_ERR_INVALID_ARG ? fail(st, std::string(call) + ": " + last_error()) : st;
    });
}

}  // namespace

extern "C" {

ccs_status_t ccs_accumulate(ccs_context_t handle, int target, int op, int type, const void *src, size_t length,
                            uint64_t remote_addr, ccs_rkey_t rkey, const void *scale, void *fetched,
                            const ccs_completion_t *completion) {
    return accumulate("ccs_accumulate", false, handle, target, op, type, src, length, remote_addr, rkey, scale,
                      fetched, completion);
}

ccs_status_t ccs_accumulate_sync(ccs_context_t handle, int target, int op, int type, const void *src, size_t length,
                                 uint64_t remote_addr, ccs_rkey_t rkey, const void *scale, void *fetched) {
    return accumulate("ccs_accumulate_sync", true, handle, target, op, type, src, length, remote_addr, rkey, scale,
                      fetched, nullptr);
}

ccs_status_t ccs_accumulate_datadesc(ccs_context_t handle, int target, int op, int type, const void *src,
                                     int64_t src_count, ccs_datadesc_t src_dd, uint64_t remote_addr, int64_t dst_count,
                                     ccs_datadesc_t dst_dd, ccs_rkey_t rkey, const void *scale, void *fetched,
                                     const ccs_completion_t *completion) {
    return accumulate_layouts("ccs_accumulate_datadesc", handle, target, op, type, src, src_count, src_dd,
                              remote_addr, dst_count, dst_dd, rkey, scale, fetched, completion);
}

}  // extern "C"
