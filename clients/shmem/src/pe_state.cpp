#include "pe_state.hpp"

#include <unistd.h>

#include <cstdio>

namespace ccs::shmem {
pe_state the_pe;

void fail(const char *call, const std::string &why) {
    std::fprintf(stderr, "shmem: %s: %s\n", call, why.c_str());
    // The whole job ends, also PEs computing without SHMEM calls. Not
    // exit(): destructors and atexit handlers of a half-working job could
    // wait for peers that are stopping.
    ccs_abort(1, call);
    ::_exit(1);
}

void failed(const char *call, ccs_status_t st) { fail(call, std::string(ccs_strerror(st)) + ": " + ccs_last_error()); }

void not_ready(const char *call) {
    fail(call, the_pe.finalized ? "called after shmem_finalize" : "called before shmem_init");
}

void not_live(const char *call, shmem_ctx_t ctx) {
    if (ctx == SHMEM_CTX_INVALID) fail(call, "the context is SHMEM_CTX_INVALID");
    fail(call, ctx->magic == ctx_destroyed ? "the context was destroyed" : "not a context");
}

void bad_pe(const char *call, int pe) {
    fail(call, "PE " + std::to_string(pe) + " is not in 0 .. " + std::to_string(the_pe.npes - 1));
}

void not_in_team(const char *call, const shmem_ctx_s &ctx, int pe) {
    fail(call, "PE " + std::to_string(pe) + " is not in 0 .. " + std::to_string(ctx.team->n_pes - 1) +
                   " of the context's team");
}

shmem_team_s &live_team(const char *call, shmem_team_t team) {
    if (team == SHMEM_TEAM_INVALID) [[unlikely]]
        fail(call, "the team is SHMEM_TEAM_INVALID");
    if (team->magic != team_alive) [[unlikely]]
        fail(call, team->magic == team_destroyed ? "the team was destroyed" : "not a team");
    return *team;
}

void quiet(const char *call, shmem_ctx_s &ctx) {
    const pe_state &s = pe();
    const uint64_t issued = ctx.issued.load(std::memory_order_acquire);
    if (__atomic_load_n(&ctx.done.value, __ATOMIC_ACQUIRE) < issued) check(call, ccs_counter_wait(&ctx.done, issued));
    if (ctx.done.errors != 0) [[unlikely]]
        fail(call, std::string("an operation issued before failed: ") + ccs_strerror(ctx.done.first_error));
    check(call, ccs_fence_all(s.context));
}
}  // namespace ccs::shmem
