// What a PE of the OpenSHMEM layer holds: its CCS context and world team,
// the symmetric heap, the static data, and the default SHMEM context.
#pragma once

#include "static_data.hpp"
#include "symmetric_heap.hpp"

#include <ccs/coll.h>
#include <shmem.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

// A team: a CCS team, and the world PE of each member for operations on
// contexts made from it (their PE numbers are the team's).
struct shmem_team_s {
    uint64_t magic;
    ccs_team_t team;
    int my_pe;
    int n_pes;
    shmem_team_config_t config;
    std::vector<int> world_pes;
};

// A SHMEM context: one CCS context carries every SHMEM context, so that
// creating one needs no collective call; each counts its own operations
// that complete later (gets and fetching atomics issued _nbi) so that its
// quiet waits for those.
struct shmem_ctx_s {
    uint64_t magic;  // alive or destroyed: a stale handle is named, not used
    long options;
    const shmem_team_s *team;  // nullptr: the world, whose numbers need no translation
    ccs_counter_t done;
    std::atomic<uint64_t> issued;
};

namespace ccs::shmem {
inline constexpr uint64_t ctx_alive = 0x5348'4d45'4d43'5458ull;  // "SHMEMCTX"
inline constexpr uint64_t ctx_destroyed = 0x4445'4144'4354'5800ull;
inline constexpr uint64_t team_alive = 0x5348'4d45'4d54'4541ull;  // "SHMEMTEA"
inline constexpr uint64_t team_destroyed = 0x4445'4144'5445'4100ull;

struct pe_state {
    bool initialized = false;
    bool finalized = false;
    int me = -1;
    int npes = 0;
    int thread_level = SHMEM_THREAD_SINGLE;
    ccs_context_t context{0};
    ccs_team_t world{0};
    symmetric_heap heap;
    static_data data;
};

// The checks below are inline, their failures out of line: every put, get
// and atomic runs them.
extern pe_state the_pe;
inline pe_state &pe() { return the_pe; }

// Prints "shmem: <call>: <why>" and ends the job with exit code 1: the
// OpenSHMEM calls have no error return, and going on would lose data.
[[noreturn, gnu::cold]] void fail(const char *call, const std::string &why);
[[noreturn, gnu::cold]] void failed(const char *call, ccs_status_t st);
[[noreturn, gnu::cold]] void not_ready(const char *call);
[[noreturn, gnu::cold]] void not_live(const char *call, shmem_ctx_t ctx);
[[noreturn, gnu::cold]] void bad_pe(const char *call, int pe);
[[noreturn, gnu::cold]] void not_in_team(const char *call, const shmem_ctx_s &ctx, int pe);
// fail() with CCS's status and detail text unless st is CCS_OK.
inline void check(const char *call, ccs_status_t st) {
    if (st != CCS_OK) [[unlikely]]
        failed(call, st);
}
// The state of an initialized PE, or fail(): called before shmem_init or
// after shmem_finalize.
inline pe_state &ready(const char *call) {
    if (!the_pe.initialized) [[unlikely]]
        not_ready(call);
    return the_pe;
}
// `ctx` if it is a live context, else fail().
inline shmem_ctx_s &live(const char *call, shmem_ctx_t ctx) {
    if (ctx == SHMEM_CTX_INVALID || ctx->magic != ctx_alive) [[unlikely]]
        not_live(call, ctx);
    return *ctx;
}
// fail() unless 0 <= pe < npes.
inline void check_pe(const char *call, const pe_state &s, int pe) {
    if (static_cast<unsigned>(pe) >= static_cast<unsigned>(s.npes)) [[unlikely]]
        bad_pe(call, pe);
}
// The world PE that `pe` of `ctx`'s team is, or fail().
inline int world_pe(const char *call, const shmem_ctx_s &ctx, int pe) {
    if (!ctx.team) [[likely]]
        return pe;
    if (static_cast<unsigned>(pe) >= static_cast<unsigned>(ctx.team->n_pes)) [[unlikely]]
        not_in_team(call, ctx, pe);
    return ctx.team->world_pes[static_cast<size_t>(pe)];
}
// `team` if it is a live team, else fail().
shmem_team_s &live_team(const char *call, shmem_team_t team);

// Where `length` bytes at the symmetric address `local` are on `pe`.
struct remote_location {
    uint64_t address;
    ccs_rkey_t key;
};
inline remote_location locate(const char *call, const pe_state &s, const void *local, size_t length, int pe) {
    check_pe(call, s, pe);
    if (s.data.contains(local, length)) [[unlikely]]
        return {s.data.address_on(pe, local), s.data.key_of(pe)};
    // Heap addresses go as they are: CCS finds the symmetric allocation and
    // refuses an address outside it.
    return {reinterpret_cast<uintptr_t>(local), CCS_RKEY_SYMMETRIC};
}

// Completes what `ctx` issued: its counted operations, then every RMA
// operation of the CCS context.
void quiet(const char *call, shmem_ctx_s &ctx);
// quiet() on every live context (shmem_barrier_all).
void quiet_all_contexts(const char *call);
// What shmem_barrier_all does: every context quiet, then the world team's
// barrier (also heap calls, finalize, an active set of the whole job).
void barrier_all(const char *call);
// SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED, at shmem_init and finalize.
void create_predefined_teams(const char *call, pe_state &s);
void destroy_predefined_teams();
// Quiets and destroys the contexts made from `team` (shmem_team_destroy).
void destroy_team_contexts(const char *call, const shmem_team_s *team);
}  // namespace ccs::shmem
