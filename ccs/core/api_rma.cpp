// C entry points: memory registration, remote keys, counters, put, get and
// fences (ccs/rma.h).
#include "api_guard.hpp"

#include <ccs/rma.h>

using namespace ccs;

namespace {

// Checks shared by put and get; on success sets rt and ctx.
ccs_status_t check_rma(const char *call, ccs_context_t handle, int target, const void *local, size_t length,
                       runtime *&rt, context *&ctx) {
    ccs_status_t st = CCS_OK;
    rt = running(st, call);
    if (!rt) return st;
    const std::string name = call;
    ctx = rt->contexts().by_handle(handle);
    if (!ctx)
        return fail(CCS_ERR_INVALID_CONTEXT,
                    name + ": context " + std::to_string(handle.id) + " was never created or has been destroyed");
    if (target < 0 || target >= rt->size())
        return fail(CCS_ERR_INVALID_RANK, name + ": target " + std::to_string(target) + " is outside [0, " +
                                              std::to_string(rt->size()) + ")");
    if (length > 0 && !local) return fail(CCS_ERR_INVALID_ARG, name + ": local buffer is NULL but length > 0");
    if (rt->am().peer_has_failed(target))
        return fail(CCS_ERR_PEER_FAILED, name + ": rank " + std::to_string(target) + " has failed");
    return CCS_OK;
}

// Issues through `issue` with a private counter and waits for it.
template <typename Issue>
ccs_status_t issue_and_wait(runtime &rt, const char *call, Issue issue) {
    ccs_status_t st = check_not_in_callback(rt, call);
    if (st != CCS_OK) return st;
    ccs_counter_t done{0, 0, CCS_OK};
    const ccs_completion_t completion{nullptr, nullptr, &done};
    if ((st = issue(completion)) != CCS_OK) return st;
    rt.progress_until([&] { return done.value > 0; });
    return done.first_error;
}

}  // namespace

extern "C" {

ccs_status_t ccs_mem_register(void *addr, size_t length, ccs_mem_t *mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_register");
        if (!rt) return st;
        if (!mem) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_register: mem is NULL");
        if (length > 0 && !addr) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_register: addr is NULL but length > 0");
        return rt->memory().register_memory(addr, length, *mem);
    });
}

ccs_status_t ccs_mem_deregister(ccs_mem_t mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_deregister");
        if (!rt) return st;
        return rt->memory().deregister(mem);
    });
}

ccs_status_t ccs_mem_expose_all(int enable) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_expose_all");
        if (!rt) return st;
        rt->memory().expose_all = enable != 0;
        return CCS_OK;
    });
}

ccs_status_t ccs_rkey_pack(ccs_mem_t mem, void *buffer, size_t *length) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_rkey_pack");
        if (!rt) return st;
        if (!length) return fail(CCS_ERR_INVALID_ARG, "ccs_rkey_pack: length is NULL");
        return rt->memory().pack_key(mem, buffer, length);
    });
}

ccs_status_t ccs_rkey_unpack(int owner, const void *buffer, size_t length, ccs_rkey_t *rkey) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_rkey_unpack");
        if (!rt) return st;
        if (!rkey || (!buffer && length > 0)) return fail(CCS_ERR_INVALID_ARG, "ccs_rkey_unpack: NULL rkey or buffer");
        if (owner < 0 || owner >= rt->size())
            return fail(CCS_ERR_INVALID_RANK, "ccs_rkey_unpack: owner " + std::to_string(owner) + " is outside [0, " +
                                                  std::to_string(rt->size()) + ")");
        return rt->rma().unpack_key(owner, buffer, length, *rkey);
    });
}

ccs_status_t ccs_rkey_release(ccs_rkey_t rkey) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_rkey_release");
        if (!rt) return st;
        return rt->rma().release_key(rkey);
    });
}

ccs_status_t ccs_counter_init(ccs_counter_t *counter) {
    if (!counter) return fail(CCS_ERR_INVALID_ARG, "ccs_counter_init: counter is NULL");
    *counter = ccs_counter_t{0, 0, CCS_OK};
    return CCS_OK;
}

ccs_status_t ccs_counter_wait(ccs_counter_t *counter, uint64_t value) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_counter_wait");
        if (!rt) return st;
        if (!counter) return fail(CCS_ERR_INVALID_ARG, "ccs_counter_wait: counter is NULL");
        if ((st = check_not_in_callback(*rt, "ccs_counter_wait")) != CCS_OK) return st;
        // Operations to a dead peer complete (with an error), so this ends.
        rt->progress_until([&] { return counter->value >= value || rt->am().any_peer_failed(); });
        if (counter->value < value)
            return fail(CCS_ERR_PEER_FAILED, "ccs_counter_wait: " + rt->am().failure() + "; counter at " +
                                                 std::to_string(counter->value) + " of " + std::to_string(value));
        return counter->errors ? counter->first_error : CCS_OK;
    });
}

ccs_status_t ccs_put(ccs_context_t handle, int target, const void *src, size_t length, uint64_t remote_addr,
                     ccs_rkey_t rkey, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const ccs_status_t st = check_rma("ccs_put", handle, target, src, length, rt, ctx);
        if (st != CCS_OK) return st;
        return rt->rma().put(*ctx, target, src, length, remote_addr, rkey, completion);
    });
}

ccs_status_t ccs_get(ccs_context_t handle, int target, void *dst, size_t length, uint64_t remote_addr,
                     ccs_rkey_t rkey, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const ccs_status_t st = check_rma("ccs_get", handle, target, dst, length, rt, ctx);
        if (st != CCS_OK) return st;
        return rt->rma().get(*ctx, target, dst, length, remote_addr, rkey, completion);
    });
}

ccs_status_t ccs_put_sync(ccs_context_t handle, int target, const void *src, size_t length, uint64_t remote_addr,
                          ccs_rkey_t rkey) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const ccs_status_t st = check_rma("ccs_put_sync", handle, target, src, length, rt, ctx);
        if (st != CCS_OK) return st;
        return issue_and_wait(*rt, "ccs_put_sync", [&](const ccs_completion_t &c) {
            return rt->rma().put(*ctx, target, src, length, remote_addr, rkey, &c);
        });
    });
}

ccs_status_t ccs_get_sync(ccs_context_t handle, int target, void *dst, size_t length, uint64_t remote_addr,
                          ccs_rkey_t rkey) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const ccs_status_t st = check_rma("ccs_get_sync", handle, target, dst, length, rt, ctx);
        if (st != CCS_OK) return st;
        return issue_and_wait(*rt, "ccs_get_sync", [&](const ccs_completion_t &c) {
            return rt->rma().get(*ctx, target, dst, length, remote_addr, rkey, &c);
        });
    });
}

ccs_status_t ccs_fence(ccs_context_t handle, int target) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_rma("ccs_fence", handle, target, nullptr, 0, rt, ctx);
        if (st != CCS_OK) return st;
        if ((st = check_not_in_callback(*rt, "ccs_fence")) != CCS_OK) return st;
        const uint16_t id = ctx->id();
        rt->progress_until([&] { return rt->rma().outstanding(id, target) == 0; });
        if (rt->am().peer_has_failed(target))
            return fail(CCS_ERR_PEER_FAILED, "ccs_fence: rank " + std::to_string(target) + " failed");
        return CCS_OK;
    });
}

ccs_status_t ccs_fence_all(ccs_context_t handle) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_fence_all");
        if (!rt) return st;
        context *ctx = rt->contexts().by_handle(handle);
        if (!ctx)
            return fail(CCS_ERR_INVALID_CONTEXT, "ccs_fence_all: context " + std::to_string(handle.id) +
                                                     " was never created or has been destroyed");
        if ((st = check_not_in_callback(*rt, "ccs_fence_all")) != CCS_OK) return st;
        const uint16_t id = ctx->id();
        rt->progress_until([&] { return rt->rma().outstanding(id, -1) == 0; });
        return CCS_OK;
    });
}

}  // extern "C"
