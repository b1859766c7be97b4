// C entry points: contexts and handler registration.
#include "api_guard.hpp"
#include "util/api_lock.hpp"

#include <cstddef>

using namespace ccs;

namespace {

context *lookup(runtime &rt, ccs_context_t handle, ccs_status_t &status, const char *call) {
    context *ctx = rt.contexts().by_handle(handle);
    if (!ctx)
        status = fail(CCS_ERR_INVALID_CONTEXT, std::string(call) + ": context " + std::to_string(handle.id) +
                                                   " was never created or has been destroyed");
    return ctx;
}

}  // namespace

extern "C" {

ccs_status_t ccs_context_create(const ccs_context_params_t *params, ccs_context_t *context) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_context_create");
        if (!rt) return st;
        if ((st = check_not_in_callback(*rt, "ccs_context_create")) != CCS_OK) return st;
        // Bad arguments still join the collective (see runtime::context_create).
        ccs_status_t local = CCS_OK;
        uint64_t flags = 0;
        const char *name = nullptr;
        context_handlers given;
        if (!context) {
            local = fail(CCS_ERR_INVALID_ARG, "ccs_context_create: context is NULL");
        } else if (params) {
            if (params->struct_size < offsetof(ccs_context_params_t, handlers))
                local = fail(CCS_ERR_INVALID_ARG, "ccs_context_create: params->struct_size is too small");
            else if (params->flags & ~static_cast<uint64_t>(CCS_CONTEXT_UNORDERED | CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD))
                local = fail(CCS_ERR_INVALID_ARG, "ccs_context_create: unknown flags");
            else {
                flags = params->flags;
                name = params->name;
                // Members appended after the first release count only
                // where the caller's struct has them.
                const auto covers = [&](size_t end) { return params->struct_size >= end; };
                if (covers(offsetof(ccs_context_params_t, num_handlers) + sizeof params->num_handlers)) {
                    given.handlers = params->handlers;
                    given.count = params->num_handlers;
                    if (given.count > 0 && !given.handlers)
                        local = fail(CCS_ERR_INVALID_ARG, "ccs_context_create: handlers is NULL but num_handlers > 0");
                }
                if (covers(offsetof(ccs_context_params_t, num_header_handlers) + sizeof params->num_header_handlers)) {
                    given.header_handlers = params->header_handlers;
                    given.header_count = params->num_header_handlers;
                    if (given.header_count > 0 && !given.header_handlers)
                        local = fail(CCS_ERR_INVALID_ARG,
                                     "ccs_context_create: header_handlers is NULL but num_header_handlers > 0");
                }
            }
        }
        return rt->context_create(local, flags, name, given, context);
    });
}

ccs_status_t ccs_context_destroy(ccs_context_t handle) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_context_destroy");
        if (!rt) return st;
        context *ctx = lookup(*rt, handle, st, "ccs_context_destroy");
        if (!ctx) return st;
        if ((st = check_not_in_callback(*rt, "ccs_context_destroy")) != CCS_OK) return st;
        return rt->context_destroy(*ctx);
    });
}

ccs_status_t ccs_context_set_error_handler(ccs_context_t handle, ccs_error_handler_fn handler, void *arg) {
    const api_lock::entry inside;
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_context_set_error_handler");
    if (!rt) return st;
    context *ctx = lookup(*rt, handle, st, "ccs_context_set_error_handler");
    if (!ctx) return st;
    ctx->set_error_handler(handler, arg);
    return CCS_OK;
}

ccs_status_t ccs_am_handler_register(ccs_context_t handle, uint16_t handler_id, ccs_am_handler_fn handler,
                                     void *arg) {
    const api_lock::entry inside;
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_am_handler_register");
    if (!rt) return st;
    context *ctx = lookup(*rt, handle, st, "ccs_am_handler_register");
    if (!ctx) return st;
    if ((st = check_handler_id("ccs_am_handler_register", handler_id)) != CCS_OK) return st;
    if (!handler) return fail(CCS_ERR_INVALID_ARG, "ccs_am_handler_register: handler is NULL");
    auto &slot = ctx->handler(handler_id);
    if (slot.used())
        return fail(CCS_ERR_HANDLER_IN_USE, "ccs_am_handler_register: id " + std::to_string(handler_id) +
                                                " is already registered in context '" + ctx->name() + "'");
    slot = {handler, arg, nullptr};
    return CCS_OK;
}

ccs_status_t ccs_am_handler_deregister(ccs_context_t handle, uint16_t handler_id) {
    const api_lock::entry inside;
    ccs_status_t st = CCS_OK;
    runtime *rt = running(st, "ccs_am_handler_deregister");
    if (!rt) return st;
    context *ctx = lookup(*rt, handle, st, "ccs_am_handler_deregister");
    if (!ctx) return st;
    if ((st = check_handler_id("ccs_am_handler_deregister", handler_id)) != CCS_OK) return st;
    if (!ctx->handler(handler_id).used())
        return fail(CCS_ERR_UNKNOWN_HANDLER,
                    "ccs_am_handler_deregister: no handler registered under id " + std::to_string(handler_id));
    ctx->handler(handler_id) = {};
    return CCS_OK;
}

}  // extern "C"
