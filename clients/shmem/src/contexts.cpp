// SHMEM contexts: local objects over the one CCS context (creating one
// involves no other PE), each counting the operations it must wait for at
// its quiet; those made from a team number PEs as the team does.
#include "handle_pool.hpp"
#include "pe_state.hpp"

namespace ccs::shmem {
namespace {
handle_pool<shmem_ctx_s> &contexts() {
    static handle_pool<shmem_ctx_s> pool;
    return pool;
}

int create(const char *call, const shmem_team_s *team, long options, shmem_ctx_t *ctx) {
    if (!ctx) fail(call, "ctx is NULL");
    if (options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)) {
        *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    auto made = std::make_unique<shmem_ctx_s>();
    made->magic = ctx_alive;
    made->options = options;
    made->team = team;
    made->done = ccs_counter_t{0, 0, CCS_OK};
    made->issued = 0;
    *ctx = contexts().keep(std::move(made));
    return 0;
}
}  // namespace

void quiet_all_contexts(const char *call) {
    quiet(call, shmem_ctx_default_object_);
    std::lock_guard<std::mutex> hold(contexts().lock);
    for (auto &c : contexts().all)
        if (c->magic == ctx_alive) quiet(call, *c);
}

void barrier_all(const char *call) {
    quiet_all_contexts(call);
    check(call, ccs_team_barrier(pe().world, nullptr));
}

void destroy_team_contexts(const char *call, const shmem_team_s *team) {
    std::lock_guard<std::mutex> hold(contexts().lock);
    for (auto &c : contexts().all)
        if (c->magic == ctx_alive && c->team == team) {
            quiet(call, *c);
            c->magic = ctx_destroyed;
        }
}
}  // namespace ccs::shmem

using namespace ccs::shmem;

extern "C" {
int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
    ready("shmem_ctx_create");
    return create("shmem_ctx_create", nullptr, options, ctx);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    const char *call = "shmem_team_create_ctx";
    ready(call);
    const shmem_team_s &t = live_team(call, team);
    return create(call, team == SHMEM_TEAM_WORLD ? nullptr : &t, options, ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
    const char *call = "shmem_ctx_get_team";
    ready(call);
    if (!team) fail(call, "team is NULL");
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    const shmem_ctx_s &c = live(call, ctx);
    *team = c.team ? const_cast<shmem_team_t>(c.team) : SHMEM_TEAM_WORLD;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
    const char *call = "shmem_ctx_destroy";
    ready(call);
    if (ctx == SHMEM_CTX_DEFAULT) fail(call, "SHMEM_CTX_DEFAULT cannot be destroyed");
    shmem_ctx_s &c = live(call, ctx);
    quiet(call, c);
    c.magic = ctx_destroyed;
}
}
