// C entry points: large active messages (ccs/am_large.h).
#include "api_guard.hpp"
#include "datadesc/handle.hpp"

#include <ccs/am_large.h>

using namespace ccs;

namespace {

// Checks shared by the two sends; on success sets rt and ctx.
ccs_status_t check_large_send(const char *call, ccs_context_t handle, int target, uint16_t handler_id,
                              const uint64_t *args, size_t nargs, const ccs_completion_t *completion, runtime *&rt,
                              context *&ctx) {
    ccs_status_t st = check_context_target(call, handle, target, rt, ctx);
    if (st != CCS_OK || (st = check_handler_args(call, handler_id, args, nargs)) != CCS_OK) return st;
    if (!wants_completion(completion))
        return fail(CCS_ERR_INVALID_ARG, std::string(call) +
                                             ": a completion (callback or counter) is required: the payload is read "
                                             "in place until it runs");
    if (rt->am().peer_has_failed(target))
        return fail(CCS_ERR_PEER_FAILED, std::string(call) + ": rank " + std::to_string(target) + " has failed");
    rt->note_activity();
    return CCS_OK;
}

}  // namespace

extern "C" {

ccs_status_t ccs_am_header_handler_register(ccs_context_t handle, uint16_t handler_id, ccs_am_header_fn handler,
                                            void *arg) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_am_header_handler_register";
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, call);
        if (!rt) return st;
        context *ctx = rt->contexts().by_handle(handle);
        if (!ctx)
            return fail(CCS_ERR_INVALID_CONTEXT, std::string(call) + ": context " + std::to_string(handle.id) +
                                                     " was never created or has been destroyed");
        if ((st = check_handler_id(call, handler_id)) != CCS_OK) return st;
        if (!handler) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": handler is NULL");
        context::handler_slot &slot = ctx->handler(handler_id);
        if (slot.used())
            return fail(CCS_ERR_HANDLER_IN_USE, std::string(call) + ": id " + std::to_string(handler_id) +
                                                    " is already registered in context '" + ctx->name() + "'");
        slot = {nullptr, arg, handler};
        return CCS_OK;
    });
}

ccs_status_t ccs_am_send_large(ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args,
                               size_t nargs, const void *payload, size_t payload_size,
                               const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_am_send_large";
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_large_send(call, handle, target, handler_id, args, nargs, completion, rt, ctx);
        if (st != CCS_OK) return st;
        if (payload_size > 0 && !payload)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": payload is NULL but payload_size > 0");
        if (payload_size > wire::max_message_bytes)
            return fail(CCS_ERR_MESSAGE_TOO_LARGE, std::string(call) + ": payload of " +
                                                       std::to_string(payload_size) + " bytes is larger than 2^40");
        const large_am::sender_payload data{static_cast<const uint8_t *>(payload), payload_size, nullptr, 0};
        return rt->large().send(*ctx, target, handler_id, args, nargs, data, *completion);
    });
}

ccs_status_t ccs_am_send_large_datadesc(ccs_context_t handle, int target, uint16_t handler_id, const uint64_t *args,
                                        size_t nargs, const void *base, int64_t count, ccs_datadesc_t dd_handle,
                                        const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_am_send_large_datadesc";
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_large_send(call, handle, target, handler_id, args, nargs, completion, rt, ctx);
        if (st != CCS_OK) return st;
        ccs_datadesc_s *dd = nullptr;
        int64_t bytes = 0;
        if ((st = check_elements(call, dd_handle, count, base, dd, bytes)) != CCS_OK) return st;
        const auto *at = static_cast<const uint8_t *>(base);
        large_am::sender_payload data{at, static_cast<size_t>(bytes), dd, count};
        // One contiguous run: plain bytes.
        if (bytes == 0 || dd->compiled->contiguous(count))
            data = {bytes ? at + dd->compiled->ops[0].disp : nullptr, static_cast<size_t>(bytes), nullptr, 0};
        return rt->large().send(*ctx, target, handler_id, args, nargs, data, *completion);
    });
}

ccs_status_t ccs_am_accept(ccs_am_token_t token, void *destination, size_t length,
                           const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_am_accept");
        if (!rt) return st;
        // A NULL destination is the caller's slip: the token stays good.
        if (length > 0 && !destination)
            return fail(CCS_ERR_INVALID_ARG, "ccs_am_accept: destination is NULL but length > 0");
        const large_am::destination to{static_cast<uint8_t *>(destination), length, nullptr, 0};
        return rt->large().accept("ccs_am_accept", token.id, to, completion);
    });
}

ccs_status_t ccs_am_accept_datadesc(ccs_am_token_t token, void *base, int64_t count, ccs_datadesc_t dd_handle,
                                    const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        const char *call = "ccs_am_accept_datadesc";
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, call);
        if (!rt) return st;
        ccs_datadesc_s *dd = nullptr;
        int64_t bytes = 0;
        if ((st = check_elements(call, dd_handle, count, base, dd, bytes)) != CCS_OK) return st;
        const large_am::destination to{static_cast<uint8_t *>(base), static_cast<size_t>(bytes), dd, count};
        return rt->large().accept(call, token.id, to, completion);
    });
}

ccs_status_t ccs_am_refuse(ccs_am_token_t token) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_am_refuse");
        if (!rt) return st;
        return rt->large().refuse(token.id);
    });
}

}  // extern "C"
