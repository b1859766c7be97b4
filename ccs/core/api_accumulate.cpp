// C entry points of accumulate (ccs/rma.h): every argument checked here,
// then one request to the RMA engine (rma/rma_accumulate.cpp).
#include "acc_checks.hpp"
#include "api_guard.hpp"

#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <cstring>
#include <string>

using namespace ccs;

namespace {

ccs_status_t check_accumulate(const char *call, int op, int type, const void *src, size_t length,
                              uint64_t remote_addr, const void *scale, const void *fetched, rma_accumulate &a) {
    if (const ccs_status_t st = check_acc_op_type(call, op, type); st != CCS_OK) return st;
    if (scale && op != CCS_ACC_SUM)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": a scale applies to CCS_ACC_SUM only");
    const size_t element = acc_element_size(type);
    if (length % element != 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": " + std::to_string(length) +
                                             " bytes are not a whole number of " + std::to_string(element) +
                                             "-byte elements");
    if (length > 0 && !src) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": src is NULL but length > 0");
    if (remote_addr % acc_alignment(type) != 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": remote address " + std::to_string(remote_addr) +
                                             " is not aligned to " + std::to_string(acc_alignment(type)) + " bytes");
    a.op = static_cast<uint8_t>(op);
    a.type = static_cast<uint8_t>(type);
    if (scale) std::memcpy(a.scale, scale, element);
    else acc_unit_scale(type, a.scale);
    a.fetched = const_cast<void *>(fetched);
    return CCS_OK;
}

// ccs_accumulate, and with `sync` ccs_accumulate_sync (completion null).
ccs_status_t accumulate(const char *call, bool sync, ccs_context_t handle, int target, int op, int type,
                        const void *src, size_t length, uint64_t remote_addr, ccs_rkey_t rkey, const void *scale,
                        void *fetched, const ccs_completion_t *completion) {
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
