// C entry points of remote atomics (ccs/rma.h): every argument checked
// here, then one request to the RMA engine (rma/rma_atomic.cpp).
#include "api_beside.hpp"
#include "api_guard.hpp"
#include "util/fast_path.hpp"
#include "wait_condition.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <string>

using namespace ccs;

namespace {

// Why check_atomic refused an atomic's arguments.
enum class refusal { op, type, remote_alignment, fetched_alignment, fetch_nowhere, set_fetches, operand_fit };

// The refusal's text, out of line: the checks run before every atomic.
[[gnu::cold, gnu::noinline]] ccs_status_t refuse(const char *call, refusal why, int op, int type, uint64_t remote,
                                                 size_t width) {
    std::string text = std::string(call) + ": ";
    switch (why) {
    case refusal::op: text += "op " + std::to_string(op) + " is not a ccs_atomic_op_t"; break;
    case refusal::type: text += "type " + std::to_string(type) + " is not a ccs_int_type_t"; break;
    case refusal::remote_alignment:
        text += "remote address " + std::to_string(remote) + " is not aligned to the word's " + std::to_string(width) +
                " bytes";
        break;
    case refusal::fetched_alignment:
        text += "fetched is not aligned to the word's " + std::to_string(width) + " bytes";
        break;
    case refusal::fetch_nowhere: text += "CCS_ATOMIC_FETCH needs somewhere to put the value"; break;
    case refusal::set_fetches: text += "CCS_ATOMIC_SET does not fetch (use CCS_ATOMIC_SWAP)"; break;
    case refusal::operand_fit:
        text += std::string("an operand does not fit a ") + (type == CCS_INT32 ? "32-bit signed" : "32-bit unsigned") +
                " word";
        break;
    }
    return fail(CCS_ERR_INVALID_ARG, text);
}

// The checks of an atomic's own arguments; on success `a` holds them.
// Inline: every atomic runs them before anything else.
[[gnu::always_inline]] inline ccs_status_t check_atomic(const char *call, int op, int type, uint64_t remote_addr,
                                                        uint64_t operand, uint64_t compare, const void *fetched,
                                                        rma_atomic &a) {
    if (op < CCS_ATOMIC_ADD || op > CCS_ATOMIC_SET) [[unlikely]]
        return refuse(call, refusal::op, op, type, remote_addr, 0);
    if (!valid_int_type(type)) [[unlikely]]
        return refuse(call, refusal::type, op, type, remote_addr, 0);
    const auto t = static_cast<ccs_int_type_t>(type);
    const size_t width = int_type_size(t);
    if (remote_addr % width != 0) [[unlikely]]
        return refuse(call, refusal::remote_alignment, op, type, remote_addr, width);
    if (fetched && reinterpret_cast<uintptr_t>(fetched) % width != 0) [[unlikely]]
        return refuse(call, refusal::fetched_alignment, op, type, remote_addr, width);
    if (op == CCS_ATOMIC_FETCH && !fetched) [[unlikely]]
        return refuse(call, refusal::fetch_nowhere, op, type, remote_addr, width);
    if (op == CCS_ATOMIC_SET && fetched) [[unlikely]]
        return refuse(call, refusal::set_fetches, op, type, remote_addr, width);
    // Operands as the type holds them: 32-bit unsigned values, or int32_t
    // values passed as int64_t.
    const auto fits = [&](uint64_t v) {
        if (width == 8) return true;
        if (t == CCS_UINT32) return v <= UINT32_MAX;
        const auto s = static_cast<int64_t>(v);
        return s >= INT32_MIN && s <= INT32_MAX;
    };
    if (!fits(operand) || (op == CCS_ATOMIC_CSWAP && !fits(compare))) [[unlikely]]
        return refuse(call, refusal::operand_fit, op, type, remote_addr, width);
    a.op = static_cast<uint8_t>(op);
    a.width = static_cast<uint8_t>(width);
    a.operand = width == 4 ? static_cast<uint32_t>(operand) : operand;
    a.compare = width == 4 ? static_cast<uint32_t>(compare) : compare;
    return CCS_OK;
}

// done_mapped below at thread level multiple, beside the API lock
// (util/fast_path.hpp).
[[gnu::noinline]] bool done_mapped_beside(ccs_context_t handle, int target, const rma_atomic &a, uint64_t remote,
                                          ccs_rkey_t rkey, void *fetched, const ccs_completion_t *completion) noexcept {
    const fast_path::section inside;
    runtime *rt = runtime::current();
    if (!inside.entered() || !rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped_atomic(target, a, remote, rkey, fetched, completion, &inside.counts()))
        return false;
    rt->note_activity_beside();
    return true;
}

// The common case inline, before a request is built: the word mapped
// here (a node peer's ccs_mem_alloc block, a symmetric allocation's part),
// no callback. False, nothing done, otherwise; the general path then
// checks everything again and says what is wrong.
[[gnu::always_inline]] inline bool done_mapped(const char *call, ccs_context_t handle, int target, int op, int type,
                                              uint64_t remote, ccs_rkey_t rkey, uint64_t operand, uint64_t compare,
                                              void *fetched, const ccs_completion_t *completion) {
    rma_atomic a;
    // Outside guarded(): a refusal's text must not throw out of the C call.
    try {
        if (check_atomic(call, op, type, remote, operand, compare, fetched, a) != CCS_OK) [[unlikely]]
            return false;
    } catch (...) {
        return false;
    }
    if (fast_path::enabled()) [[unlikely]]
        return done_mapped_beside(handle, target, a, remote, rkey, fetched, completion);
    const api_lock::entry inside;
    runtime *rt = runtime::current();
    if (!rt || !rt->contexts().by_handle(handle) || !resolved_quietly(*rt, target, remote, rkey) ||
        !rt->rma().try_mapped_atomic(target, a, remote, rkey, fetched, completion))
        return false;
    rt->note_activity();
    return true;
}

// At thread level multiple, an atomic the mapped path did not take, on
// memory registered for network atomics: beside the API lock through the
// atomics transport (done_through_transport).
[[gnu::noinline]] bool done_network_beside(const char *call, bool sync, ccs_context_t handle, int target, int op,
                                           int type, uint64_t remote, ccs_rkey_t rkey, uint64_t operand,
                                           uint64_t compare, void *fetched, const ccs_completion_t *completion,
                                           ccs_status_t &status) noexcept {
    rma_atomic a;
    try {  // a refusal's text must not throw out of the C call
        if (check_atomic(call, op, type, remote, operand, compare, fetched, a) != CCS_OK) return false;
    } catch (...) {
        return false;
    }
    return done_through_transport(
        sync ? call : nullptr, false, handle, target, remote, rkey, completion, status,
        [&](rma_engine &rma, uint16_t ctx, uint64_t at, ccs_rkey_t key, const ccs_completion_t *c,
            fast_path::thread_counts &counts, uint64_t &token) {
            return rma.try_network_atomic_beside(ctx, target, a, at, key, fetched, c, counts, token);
        });
}

// ccs_atomic, and with `sync` ccs_atomic_sync (completion null).
ccs_status_t atomic(const char *call, bool sync, ccs_context_t handle, int target, int op, int type,
                    uint64_t remote_addr, ccs_rkey_t rkey, uint64_t operand, uint64_t compare, void *fetched,
                    const ccs_completion_t *completion) {
    if (done_mapped(call, handle, target, op, type, remote_addr, rkey, operand, compare, fetched, completion))
        return CCS_OK;
    ccs_status_t beside = CCS_OK;
    if (fast_path::enabled() && done_network_beside(call, sync, handle, target, op, type, remote_addr, rkey, operand,
                                                    compare, fetched, completion, beside))
        return beside;
    return guarded([&]() -> ccs_status_t {
        runtime *rt = nullptr;
        context *ctx = nullptr;
        rma_atomic a;
        ccs_status_t st = check_rma_to(call, handle, target, nullptr, 0, remote_addr, rkey, rt, ctx);
        if (st != CCS_OK || (st = check_atomic(call, op, type, remote_addr, operand, compare, fetched, a)) != CCS_OK)
            return st;
        // The word there; here, where its old value goes (if anywhere).
        auto request_with = [&](const ccs_completion_t *c) {
            rma_request q = contiguous(rma_kind::atomic, target, fetched, fetched ? a.width : 0, remote_addr, rkey, c);
            q.remote.length = a.width;
            q.atomic = a;
            return q;
        };
        if (sync) return start_and_wait(*rt, *ctx, call, request_with);
        return rt->rma().start(*ctx, request_with(completion));
    });
}

}  // namespace

extern "C" {

ccs_status_t ccs_atomic(ccs_context_t handle, int target, int op, int type, uint64_t remote_addr, ccs_rkey_t rkey,
                        uint64_t operand, uint64_t compare, void *fetched, const ccs_completion_t *completion) {
    return atomic("ccs_atomic", false, handle, target, op, type, remote_addr, rkey, operand, compare, fetched,
                  completion);
}

ccs_status_t ccs_atomic_sync(ccs_context_t handle, int target, int op, int type, uint64_t remote_addr, ccs_rkey_t rkey,
                             uint64_t operand, uint64_t compare, void *fetched) {
    return atomic("ccs_atomic_sync", true, handle, target, op, type, remote_addr, rkey, operand, compare, fetched,
                  nullptr);
}

}  // extern "C"
