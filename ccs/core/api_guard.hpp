// Shared checks for the C entry points: every call needs a running runtime,
// and blocking calls must not run inside handlers.
#pragma once

#include "runtime.hpp"
#include "util/error.hpp"
#include "util/guarded.hpp"

namespace ccs {

// Why no runtime is running, for the status and the last error.
[[gnu::cold]] ccs_status_t not_running(const char *call);

// The running runtime, or null with `status` set to the reason.
inline runtime *running(ccs_status_t &status, const char *call) {
    runtime *rt = runtime::current();
    if (!rt) [[unlikely]]
        status = not_running(call);
    return rt;
}

// For calls that block: they would deadlock inside a handler or callback.
inline ccs_status_t check_not_in_callback(runtime &rt, const char *call) {
    if (rt.in_callback())
        return fail(CCS_ERR_IN_HANDLER, std::string(call) + " may not be called from a handler or completion callback");
    return CCS_OK;
}

// Why check_context_target failed, with the message; out of line.
[[gnu::cold]] ccs_status_t bad_context_target(const char *call, ccs_context_t handle, int target, const runtime &rt,
                                              const context *ctx);

// The checks every call aimed at a peer in a context starts with: CCS
// running, a live context, a rank in range. Inline and without strings on
// success: sends, puts and gets run it every time.
inline ccs_status_t check_context_target(const char *call, ccs_context_t handle, int target, runtime *&rt,
                                         context *&ctx) {
    ccs_status_t st = CCS_OK;
    rt = running(st, call);
    if (!rt) [[unlikely]]
        return st;
    ctx = rt->contexts().by_handle(handle);
    if (!ctx || target < 0 || target >= rt->size()) [[unlikely]]
        return bad_context_target(call, handle, target, *rt, ctx);
    return CCS_OK;
}

// A handler id, as every call that takes one checks it: one check, one
// error (CCS_ERR_INVALID_HANDLER), the message out of line.
[[gnu::cold]] ccs_status_t bad_handler_id(const char *call, uint16_t handler_id);
inline ccs_status_t check_handler_id(const char *call, uint16_t handler_id) {
    if (handler_id >= CCS_AM_MAX_HANDLERS) [[unlikely]]
        return bad_handler_id(call, handler_id);
    return CCS_OK;
}

// Why check_handler_args failed, with the message; out of line.
[[gnu::cold]] ccs_status_t bad_handler_args(const char *call, uint16_t handler_id, const uint64_t *args, size_t nargs);

// A handler id and its arguments, as sends and notifications take them.
// Inline and without strings on success: every send runs it.
inline ccs_status_t check_handler_args(const char *call, uint16_t handler_id, const uint64_t *args, size_t nargs) {
    if (handler_id >= CCS_AM_MAX_HANDLERS || nargs > CCS_AM_MAX_ARGS || (nargs > 0 && !args)) [[unlikely]]
        return bad_handler_args(call, handler_id, args, nargs);
    return CCS_OK;
}

// `count` elements of the committed datadesc behind `handle` at `base`, as
// a message's payload or a large message's destination: the datadesc in
// `dd`, their bytes in `bytes` (at most wire::max_message_bytes).
ccs_status_t check_elements(const char *call, ccs_datadesc_t handle, int64_t count, const void *base,
                            ccs_datadesc_s *&dd, int64_t &bytes);

[[gnu::cold]] ccs_status_t bad_rma_local(const char *call);
[[gnu::cold]] ccs_status_t rma_peer_failed(const char *call, int target);

// Checks shared by the one-sided calls; on success sets rt and ctx.
// Inline, with the error messages out of line: every put and get runs it.
inline ccs_status_t check_rma(const char *call, ccs_context_t handle, int target, const void *local, size_t length,
                              runtime *&rt, context *&ctx) {
    const ccs_status_t st = check_context_target(call, handle, target, rt, ctx);
    if (st != CCS_OK) [[unlikely]]
        return st;
    if (length > 0 && !local) [[unlikely]]
        return bad_rma_local(call);
    if (rt->am().peer_has_failed(target)) [[unlikely]]
        return rma_peer_failed(call, target);
    rt->note_activity();
    return CCS_OK;
}

// check_rma for a call that names remote memory: with CCS_RKEY_SYMMETRIC
// `remote` is an address here in a symmetric allocation, and becomes the
// target's address, `rkey` the target's key.
inline ccs_status_t check_rma_to(const char *call, ccs_context_t handle, int target, const void *local, size_t length,
                                 uint64_t &remote, ccs_rkey_t &rkey, runtime *&rt, context *&ctx) {
    const ccs_status_t st = check_rma(call, handle, target, local, length, rt, ctx);
    if (st != CCS_OK || rkey.id != CCS_RKEY_SYMMETRIC.id) [[likely]]
        return st;
    return rt->symmetric().resolve(call, target, remote, rkey);
}

// For the inline paths: with CCS_RKEY_SYMMETRIC, `remote` and `rkey`
// become the target's (false, the general path to say why, where the
// target is no rank or the address in no symmetric allocation); any other
// key as it is.
[[gnu::always_inline]] inline bool resolved_quietly(runtime &rt, int target, uint64_t &remote, ccs_rkey_t &rkey) {
    if (rkey.id != CCS_RKEY_SYMMETRIC.id) [[likely]]
        return true;
    return static_cast<unsigned>(target) < static_cast<unsigned>(rt.size()) &&
           rt.symmetric().resolve_quietly(target, remote, rkey);
}

// Checks a datadesc operation: both sides committed (their objects in
// local_dd and remote_dd), counts not negative, the same number of bytes
// (`bytes`, on success). The messages are built only on failure.
ccs_status_t check_layouts(const char *call, const void *local, int64_t local_count, ccs_datadesc_t local_handle,
                           int64_t remote_count, ccs_datadesc_t remote_handle, int64_t &bytes,
                           const ccs_datadesc_s *&local_dd, const ccs_datadesc_s *&remote_dd);

// A contiguous request, its arguments checked: `length` bytes here and
// there.
inline rma_request contiguous(rma_kind kind, int target, const void *local, size_t length, uint64_t remote,
                              ccs_rkey_t rkey, const ccs_completion_t *completion) {
    rma_request q;
    q.kind = kind;
    q.target = target;
    q.local = {reinterpret_cast<uintptr_t>(local), length, nullptr, 0};
    q.remote = {remote, length, nullptr, 0};
    q.key = rkey;
    q.completion = completion;
    return q;
}

// A synchronous one-sided call, its arguments checked: the request that
// Waits for a synchronous call's private counter: how its operation
// ended, a failure reported with the operation's own detail.
inline ccs_status_t wait_for_private_counter(runtime &rt, const char *call, ccs_counter_t &done) {
    rt.progress_until([&] { return __atomic_load_n(&done.value, __ATOMIC_ACQUIRE) > 0; });
    if (done.errors == 0) return CCS_OK;
    return fail(done.first_error, std::string(call) + ": " + rt.am().notes().take(&done));
}

// `request_with(completion)` builds, started with a private counter and
// waited for.
template <typename Build>
ccs_status_t start_and_wait(runtime &rt, context &ctx, const char *call, Build request_with) {
    ccs_status_t st = check_not_in_callback(rt, call);
    if (st != CCS_OK) return st;
    ccs_counter_t done{0, 0, CCS_OK};
    const ccs_completion_t completion{nullptr, nullptr, &done};
    if ((st = rt.rma().start(ctx, request_with(&completion))) != CCS_OK) return st;
    return wait_for_private_counter(rt, call, done);
}

}  // namespace ccs
