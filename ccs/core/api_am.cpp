// C entry points: active messages, progress, barrier, statistics.
#include "api_guard.hpp"
#include "datadesc/handle.hpp"
#include "util/fast_path.hpp"

using namespace ccs;

ccs_status_t ccs::check_elements(const char *call, ccs_datadesc_t handle, int64_t count, const void *base,
                                 ccs_datadesc_s *&dd, int64_t &bytes) {
    ccs_status_t st = dd::check_handle(handle, call, true, dd);
    if (st != CCS_OK) return st;
    if (count < 0) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": count is negative");
    if (__builtin_mul_overflow(count, dd->size, &bytes) || static_cast<uint64_t>(bytes) > wire::max_message_bytes)
        return fail(CCS_ERR_MESSAGE_TOO_LARGE, std::string(call) + ": count times size is larger than 2^40");
    if (bytes > 0 && !base) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": base is NULL");
    return CCS_OK;
}

namespace {

// Checks shared by the send calls; on success sets rt and ctx.
ccs_status_t check_send(const char *call, ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args,
                        size_t nargs, runtime *&rt, context *&ctx) {
    ccs_status_t st = check_context_target(call, handle, target, rt, ctx);
    if (st != CCS_OK || (st = check_handler_args(call, handler_id, args, nargs)) != CCS_OK) return st;
    rt->note_activity();
    return CCS_OK;
}

// Bounds memory when a sender outruns its receivers (never inside a
// handler, where waiting could deadlock).
void wait_for_queue_room(runtime &rt) {
    if (rt.am().over_queue_limit() && !rt.am().in_callback())
        rt.progress_until([&rt] { return !rt.am().over_queue_limit(); });
}

// At thread level multiple, ccs_am_send beside the API lock where it can
// (am_engine::try_send_beside); false: nothing was done, and the locked
// path checks everything again and says what is wrong.
bool sent_beside(ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args, size_t nargs,
                 const void *payload, size_t payload_size, const ccs_completion_t *completion) noexcept {
    if (handler_id >= CCS_AM_MAX_HANDLERS || nargs > CCS_AM_MAX_ARGS || (nargs > 0 && !args) ||
        (payload_size > 0 && !payload))
        return false;
    const fast_path::section inside;
    runtime *rt = runtime::current();
    if (!inside.entered() || !rt) return false;
    context *ctx = rt->contexts().by_handle(handle);
    if (!ctx || target < 0 || target >= rt->size() ||
        !rt->am().try_send_beside(*ctx, target, handler_id, args, nargs, payload, payload_size, completion,
                                  inside.counts()))
        return false;
    rt->note_activity_beside();
    return true;
}

}  // namespace

extern "C" {

ccs_status_t ccs_am_send(ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args,
                         size_t nargs, const void *payload, size_t payload_size,
                         const ccs_completion_t *completion) {
    if (fast_path::enabled() &&
        sent_beside(handle, target, handler_id, args, nargs, payload, payload_size, completion)) [[unlikely]]
        return CCS_OK;
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_send("ccs_am_send", handle, target, handler_id, args, nargs, rt, ctx);
        if (st != CCS_OK) return st;
        if (payload_size > 0 && !payload)
            return fail(CCS_ERR_INVALID_ARG, "ccs_am_send: payload is NULL but payload_size > 0");
        if (payload_size > wire::max_message_bytes)
            return fail(CCS_ERR_MESSAGE_TOO_LARGE, "ccs_am_send: payload of " + std::to_string(payload_size) +
                                                       " bytes is larger than 2^40");
        const am_engine::payload_source data{static_cast<const uint8_t *>(payload), payload_size, nullptr, 0};
        if (ctx->holding(target)) [[unlikely]]
            return rt->large().send_behind(*ctx, target, handler_id, args, nargs, data, completion);
        st = rt->am().send(*ctx, target, handler_id, args, nargs, data, completion);
        if (st == CCS_OK) wait_for_queue_room(*rt);
        return st;
    });
}

ccs_status_t ccs_am_send_datadesc(ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args,
                                  size_t nargs, const void *base, int64_t count, ccs_datadesc_t dd_handle,
                                  const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_am_send_datadesc";
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_send(call, handle, target, handler_id, args, nargs, rt, ctx);
        if (st != CCS_OK) return st;
        ccs_datadesc_s *dd = nullptr;
        int64_t total = 0;
        if ((st = check_elements(call, dd_handle, count, base, dd, total)) != CCS_OK) return st;
        const dd::program &layout = *dd->compiled;
        const auto *bytes = static_cast<const uint8_t *>(base);
        am_engine::payload_source data{bytes, static_cast<size_t>(total), dd->compiled, count};
        // One contiguous run: send it as plain bytes, no packing.
        if (total == 0 || layout.contiguous(count))
            data = {total ? bytes + layout.ops[0].disp : nullptr, static_cast<size_t>(total), nullptr, 0};
        if (ctx->holding(target)) [[unlikely]]
            return rt->large().send_behind(*ctx, target, handler_id, args, nargs, data, completion);
        st = rt->am().send(*ctx, target, handler_id, args, nargs, data, completion);
        if (st == CCS_OK) wait_for_queue_room(*rt);
        return st;
    });
}

ccs_status_t ccs_progress(void) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_progress");
        if (!rt) return st;
        if ((st = check_not_in_callback(*rt, "ccs_progress")) != CCS_OK) return st;
        rt->progress();
        return CCS_OK;
    });
}

ccs_status_t ccs_barrier(void) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_barrier");
        if (!rt) return st;
        if ((st = check_not_in_callback(*rt, "ccs_barrier")) != CCS_OK) return st;
        return rt->barrier();
    });
}

ccs_status_t ccs_stats_get(const char *name, uint64_t *value) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_stats_get");
        if (!rt) return st;
        if (!name || !value) return fail(CCS_ERR_INVALID_ARG, "ccs_stats_get: name or value is NULL");
        for (const auto &kv : rt->stats())
            if (kv.first == name) {
                *value = kv.second;
                return CCS_OK;
            }
        return fail(CCS_ERR_NOT_FOUND, std::string("ccs_stats_get: no statistic named '") + name + "'");
    });
}

ccs_status_t ccs_stats_print(FILE *out) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_stats_print");
        if (!rt) return st;
        if (!out) return fail(CCS_ERR_INVALID_ARG, "ccs_stats_print: out is NULL");
        for (const auto &kv : rt->stats())
            std::fprintf(out, "rank %d %-32s %llu\n", rt->rank(), kv.first.c_str(),
                         static_cast<unsigned long long>(kv.second));
        return CCS_OK;
    });
}

}  // extern "C"
