// C entry points: memory registration, remote keys, counters, put, get and
// fences (ccs/rma.h).
#include "api_beside.hpp"
#include "api_guard.hpp"
#include "util/fast_path.hpp"
#include "datadesc/handle.hpp"

#include <ccs/datadesc.h>
#include <ccs/rma.h>


using namespace ccs;

ccs_status_t ccs::bad_rma_local(const char *call) {
    return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": local buffer is NULL but length > 0");
}
ccs_status_t ccs::rma_peer_failed(const char *call, int target) {
    return fail(CCS_ERR_PEER_FAILED, std::string(call) + ": rank " + std::to_string(target) + " has failed");
}

ccs_status_t ccs::check_layouts(const char *call, const void *local, int64_t local_count, ccs_datadesc_t local_handle,
                                int64_t remote_count, ccs_datadesc_t remote_handle, int64_t &bytes,
                                const ccs_datadesc_s *&local_dd, const ccs_datadesc_s *&remote_dd) {
    ccs_datadesc_s *l = nullptr, *r = nullptr;
    ccs_status_t st = dd::check_handle(local_handle, call, true, l);
    if (st != CCS_OK || (st = dd::check_handle(remote_handle, call, true, r)) != CCS_OK) return st;
    local_dd = l;
    remote_dd = r;
    if (local_count < 0 || remote_count < 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": a count is negative");
    int64_t remote_bytes = 0;
    if (__builtin_mul_overflow(local_count, local_dd->compiled->size, &bytes) ||
        __builtin_mul_overflow(remote_count, remote_dd->compiled->size, &remote_bytes))
        return fail(CCS_ERR_OVERFLOW, std::string(call) + ": count times datadesc size overflows");
    if (bytes != remote_bytes)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": the local side holds " + std::to_string(bytes) +
                                             " bytes, the remote side " + std::to_string(remote_bytes));
    if (bytes > 0 && !local) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": local buffer is NULL");
    return CCS_OK;
}

namespace {

// ccs_put_datadesc and ccs_get_datadesc: the engine chooses the way
// (layout to layout into mapped memory, whole in active messages, lists).
ccs_status_t put_or_get_layouts(const char *call, rma_kind kind, ccs_context_t handle, int target, void *local,
                                int64_t local_count, ccs_datadesc_t local_handle, uint64_t remote, int64_t remote_count,
                                ccs_datadesc_t remote_handle, ccs_rkey_t rkey, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        int64_t bytes = 0;
        const ccs_datadesc_s *local_dd = nullptr, *remote_dd = nullptr;
        ccs_status_t st = check_rma_to(call, handle, target, nullptr, 0, remote, rkey, rt, ctx);
        if (st != CCS_OK || (st = check_layouts(call, local, local_count, local_handle, remote_count, remote_handle,
                                                bytes, local_dd, remote_dd)) != CCS_OK)
            return st;
        rma_request q;
        q.kind = kind;
        q.target = target;
        q.local = {reinterpret_cast<uintptr_t>(local), static_cast<size_t>(bytes), local_dd, local_count};
        q.remote = {remote, static_cast<size_t>(bytes), remote_dd, remote_count};
        q.key = rkey;
        q.completion = completion;
        return rt->rma().start(*ctx, q);
    });
}

// ccs_put_notify and ccs_get_notify.
ccs_status_t with_notify(const char *call, rma_kind kind, ccs_context_t handle, int target, const void *local,
                         size_t length, uint64_t remote, ccs_rkey_t rkey, uint16_t handler_id, const uint64_t *args,
                         size_t nargs, const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_rma_to(call, handle, target, local, length, remote, rkey, rt, ctx);
        if (st != CCS_OK || (st = check_handler_args(call, handler_id, args, nargs)) != CCS_OK) return st;
        rma_request q = contiguous(kind, target, local, length, remote, rkey, completion);
        q.after.wanted = true;
        q.after.handler = handler_id;
        q.after.nargs = static_cast<uint8_t>(nargs);
        for (size_t i = 0; i < nargs; ++i) q.after.args[i] = args[i];
        return rt->rma().start(*ctx, q);
    });
}

// A contiguous put or get the inline mapped path did not take, at thread
// level multiple, beside the API lock through the transport
// (done_through_transport).
[[gnu::noinline]] bool done_direct_beside(bool put, ccs_context_t handle, int target, void *local, size_t length,
                                          uint64_t remote, ccs_rkey_t rkey, const ccs_completion_t *completion,
                                          const char *sync, ccs_status_t &status) noexcept {
    return done_through_transport(
        sync, put, handle, target, remote, rkey, completion, status,
        [&](rma_engine &rma, uint16_t ctx, uint64_t at, ccs_rkey_t key, const ccs_completion_t *c,
            fast_path::thread_counts &counts, uint64_t &token) {
            return rma.try_direct_beside(ctx, put, target, local, length, at, key, c, counts, token);
        });
}

// A contiguous put or get that the inline mapped path did not take: every
// check, with its error, then the engine. Out of line, so ccs_put and
// ccs_get keep a small frame.
[[gnu::noinline]] ccs_status_t put_or_get(const char *call, rma_kind kind, ccs_context_t handle, int target,
                                          void *local, size_t length, uint64_t remote, ccs_rkey_t rkey,
                                          const ccs_completion_t *completion) {
    ccs_status_t beside = CCS_OK;
    if (fast_path::enabled() && done_direct_beside(kind == rma_kind::put, handle, target, local, length, remote, rkey,
                                                   completion, nullptr, beside))
        return beside;
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const bool symmetric = rkey.id == CCS_RKEY_SYMMETRIC.id;
        const ccs_status_t st = check_rma_to(call, handle, target, local, length, remote, rkey, rt, ctx);
        if (st != CCS_OK) return st;
        // A symmetric address resolved to a mapped key takes the inline path.
        if (symmetric && rt->rma().try_mapped(kind == rma_kind::put, target, local, length, remote, rkey, completion))
            return CCS_OK;
        return rt->rma().start(*ctx, contiguous(kind, target, local, length, remote, rkey, completion));
    });
}

// ccs_put_indexed, and with `sync` ccs_put_indexed_sync (completion null).
ccs_status_t put_indexed(const char *call, bool sync, ccs_context_t handle, int target, const void *src,
                         size_t length, uint64_t pointer, uint64_t limit, ccs_rkey_t rkey, uint64_t *placed,
                         const ccs_completion_t *completion) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        // A symmetric limit names the target's memory as the pointer does.
        const uint64_t named = pointer;
        const ccs_status_t st = check_rma_to(call, handle, target, src, length, pointer, rkey, rt, ctx);
        if (st != CCS_OK) return st;
        limit += pointer - named;
        if (pointer % 8 != 0)
            return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": the pointer's address " + std::to_string(pointer) +
                                                 " is not aligned to 8 bytes");
        auto request_with = [&](const ccs_completion_t *c) {
            rma_request q = contiguous(rma_kind::indexed_put, target, src, length, pointer, rkey, c);
            q.remote.length = 8;
            q.indexed = {limit, placed};
            return q;
        };
        if (sync) return start_and_wait(*rt, *ctx, call, request_with);
        return rt->rma().start(*ctx, request_with(completion));
    });
}

// ccs_put_sync and ccs_get_sync: the same with a private counter, waited for.
ccs_status_t put_or_get_sync(const char *call, rma_kind kind, ccs_context_t handle, int target, void *local,
                             size_t length, uint64_t remote, ccs_rkey_t rkey) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        const ccs_status_t st = check_rma_to(call, handle, target, local, length, remote, rkey, rt, ctx);
        if (st != CCS_OK) return st;
        return start_and_wait(*rt, *ctx, call, [&](const ccs_completion_t *completion) {
            return contiguous(kind, target, local, length, remote, rkey, completion);
        });
    });
}

// done_mapped at thread level multiple, beside the API lock
// (util/fast_path.hpp).
[[gnu::noinline]] bool done_mapped_beside(bool put, ccs_context_t handle, int target, void *local, size_t length,
                                          uint64_t remote, ccs_rkey_t rkey,
                                          const ccs_completion_t *completion) noexcept {
    const fast_path::section inside;
    runtime *rt = runtime::current();
    if (!inside.entered() || !rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped(put, target, local, length, remote, rkey, completion, &inside.counts()))
        return false;
    rt->note_activity_beside();
    return true;
}
// The inline path of ccs_put and ccs_get (rma_engine::try_mapped), after
// the two checks it leaves to its caller; false: nothing was done.
[[gnu::always_inline]] inline bool done_mapped(bool put, ccs_context_t handle, int target, void *local, size_t length,
                                              uint64_t remote, ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (fast_path::enabled()) [[unlikely]]
        return done_mapped_beside(put, handle, target, local, length, remote, rkey, completion);
    const api_lock::entry inside;
    runtime *rt = runtime::current();
    if (!rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped(put, target, local, length, remote, rkey, completion))
        return false;
    rt->note_activity();
    return true;
}
// The same for ccs_put_sync and ccs_get_sync (`call`): true when done,
// with the operation's end in `status`.
inline bool done_mapped_sync(const char *call, bool put, ccs_context_t handle, int target, void *local, size_t length,
                             uint64_t remote, ccs_rkey_t rkey, ccs_status_t &status) {
    status = CCS_OK;
    if (done_mapped(put, handle, target, local, length, remote, rkey, nullptr)) return true;
    return fast_path::enabled() && done_direct_beside(put, handle, target, local, length, remote, rkey, nullptr, call,
                                                      status);
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

ccs_status_t ccs_mem_register_atomics(void *addr, size_t length, int by, ccs_mem_t *mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_register_atomics");
        if (!rt) return st;
        if (!mem) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_register_atomics: mem is NULL");
        if (length > 0 && !addr)
            return fail(CCS_ERR_INVALID_ARG, "ccs_mem_register_atomics: addr is NULL but length > 0");
        if (by != CCS_ATOMICS_BY_CPU && by != CCS_ATOMICS_BY_NETWORK)
            return fail(CCS_ERR_INVALID_ARG,
                        "ccs_mem_register_atomics: by " + std::to_string(by) + " is not a ccs_atomics_by_t");
        return rt->memory().register_memory(addr, length, *mem, by == CCS_ATOMICS_BY_NETWORK);
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

ccs_status_t ccs_mem_alloc(size_t length, void **addr, ccs_mem_t *mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_alloc");
        if (!rt) return st;
        if (!addr || !mem) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_alloc: addr or mem is NULL");
        return rt->memory().allocate(length, *addr, *mem);
    });
}

ccs_status_t ccs_mem_free(ccs_mem_t mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_free");
        if (!rt) return st;
        return rt->memory().free_allocation(mem);
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

ccs_status_t ccs_rkey_ptr(ccs_rkey_t rkey, uint64_t remote_addr, size_t length, void **ptr) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_rkey_ptr");
        if (!rt) return st;
        if (!ptr) return fail(CCS_ERR_INVALID_ARG, "ccs_rkey_ptr: ptr is NULL");
        *ptr = nullptr;
        return rt->rma().mapped_address("ccs_rkey_ptr: ", rkey, remote_addr, length, *ptr);
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
        // Operations to a dead peer complete with an error; once a peer has
        // died and nothing is left that could still count, stop waiting.
        rt->progress_until([&] {
            return counter->value >= value ||
                   (rt->am().any_peer_failed() && rt->rma().idle() && !rt->am().sends_pending());
        });
        if (counter->value < value)
            return fail(CCS_ERR_PEER_FAILED, "ccs_counter_wait: " + rt->am().failure() + "; counter at " +
                                                 std::to_string(counter->value) + " of " + std::to_string(value));
        if (counter->errors == 0) return CCS_OK;
        const std::string first = rt->am().notes().take(counter);
        return fail(counter->first_error, "ccs_counter_wait: " + std::to_string(counter->errors) +
                                              " counted operation(s) failed; the first: " +
                                              (first.empty() ? ccs_strerror(counter->first_error) : first));
    });
}

ccs_status_t ccs_put(ccs_context_t handle, int target, const void *src, size_t length, uint64_t remote_addr,
                     ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (done_mapped(true, handle, target, const_cast<void *>(src), length, remote_addr, rkey, completion)) return CCS_OK;
    return put_or_get("ccs_put", rma_kind::put, handle, target, const_cast<void *>(src), length, remote_addr, rkey, completion);
}

ccs_status_t ccs_get(ccs_context_t handle, int target, void *dst, size_t length, uint64_t remote_addr,
                     ccs_rkey_t rkey, const ccs_completion_t *completion) {
    if (done_mapped(false, handle, target, dst, length, remote_addr, rkey, completion)) return CCS_OK;
    return put_or_get("ccs_get", rma_kind::get, handle, target, dst, length, remote_addr, rkey, completion);
}

ccs_status_t ccs_put_sync(ccs_context_t handle, int target, const void *src, size_t length, uint64_t remote_addr,
                          ccs_rkey_t rkey) {
    ccs_status_t st;
    if (done_mapped_sync("ccs_put_sync", true, handle, target, const_cast<void *>(src), length, remote_addr, rkey, st))
        return st;
    return put_or_get_sync("ccs_put_sync", rma_kind::put, handle, target, const_cast<void *>(src), length,
                           remote_addr, rkey);
}

ccs_status_t ccs_get_sync(ccs_context_t handle, int target, void *dst, size_t length, uint64_t remote_addr,
                          ccs_rkey_t rkey) {
    ccs_status_t st;
    if (done_mapped_sync("ccs_get_sync", false, handle, target, dst, length, remote_addr, rkey, st)) return st;
    return put_or_get_sync("ccs_get_sync", rma_kind::get, handle, target, dst, length, remote_addr, rkey);
}

ccs_status_t ccs_put_datadesc(ccs_context_t handle, int target, const void *src, int64_t src_count,
                              ccs_datadesc_t src_dd, uint64_t remote_addr, int64_t dst_count, ccs_datadesc_t dst_dd,
                              ccs_rkey_t rkey, const ccs_completion_t *completion) {
    // The source is only read (the engine's pack side).
    return put_or_get_layouts("ccs_put_datadesc", rma_kind::put, handle, target, const_cast<void *>(src), src_count, src_dd,
                              remote_addr, dst_count, dst_dd, rkey, completion);
}

ccs_status_t ccs_get_datadesc(ccs_context_t handle, int target, void *dst, int64_t dst_count, ccs_datadesc_t dst_dd,
                              uint64_t remote_addr, int64_t src_count, ccs_datadesc_t src_dd, ccs_rkey_t rkey,
                              const ccs_completion_t *completion) {
    return put_or_get_layouts("ccs_get_datadesc", rma_kind::get, handle, target, dst, dst_count, dst_dd, remote_addr,
                              src_count, src_dd, rkey, completion);
}

ccs_status_t ccs_put_notify(ccs_context_t handle, int target, const void *src, size_t length, uint64_t remote_addr,
                            ccs_rkey_t rkey, uint16_t handler_id, const uint64_t *args, size_t nargs,
                            const ccs_completion_t *completion) {
    return with_notify("ccs_put_notify", rma_kind::put, handle, target, src, length, remote_addr, rkey, handler_id,
                       args, nargs, completion);
}

ccs_status_t ccs_get_notify(ccs_context_t handle, int target, void *dst, size_t length, uint64_t remote_addr,
                            ccs_rkey_t rkey, uint16_t handler_id, const uint64_t *args, size_t nargs,
                            const ccs_completion_t *completion) {
    return with_notify("ccs_get_notify", rma_kind::get, handle, target, dst, length, remote_addr, rkey, handler_id,
                       args, nargs, completion);
}

ccs_status_t ccs_put_indexed(ccs_context_t handle, int target, const void *src, size_t length, uint64_t pointer_addr,
                             uint64_t limit, ccs_rkey_t rkey, uint64_t *placed, const ccs_completion_t *completion) {
    return put_indexed("ccs_put_indexed", false, handle, target, src, length, pointer_addr, limit, rkey, placed,
                       completion);
}

ccs_status_t ccs_put_indexed_sync(ccs_context_t handle, int target, const void *src, size_t length,
                                  uint64_t pointer_addr, uint64_t limit, ccs_rkey_t rkey, uint64_t *placed) {
    return put_indexed("ccs_put_indexed_sync", true, handle, target, src, length, pointer_addr, limit, rkey, placed,
                       nullptr);
}

ccs_status_t ccs_fence(ccs_context_t handle, int target) {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        ccs_status_t st = check_rma("ccs_fence", handle, target, nullptr, 0, rt, ctx);
        if (st != CCS_OK) return st;
        if ((st = check_not_in_callback(*rt, "ccs_fence")) != CCS_OK) return st;
        const uint16_t id = ctx->id();
        // Complete means completed: their callbacks and counters too.
        rt->progress_until([&] { return rt->rma().outstanding(id, target) == 0 && !rt->rma().busy(); });
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
        rt->progress_until([&] { return rt->rma().outstanding(id, -1) == 0 && !rt->rma().busy(); });
        return CCS_OK;
    });
}

ccs_status_t ccs_fence_global(ccs_context_t handle) {
    return guarded([&]() -> ccs_status_t {
        const ccs_status_t st = ccs_fence_all(handle);
        if (st != CCS_OK) return st;
        // Every process has completed its own operations once all arrive.
        return ccs_barrier();
    });
}

}  // extern "C"
