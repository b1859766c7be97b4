// The C entry points of team collectives: sync, and the typed and mem
// forms of broadcast, collect, fcollect, alltoall and alltoalls.
#include "collectives.hpp"

using namespace ccs::shmem;

extern "C" {
int shmem_team_sync(shmem_team_t team) {
    const char *call = "shmem_team_sync";
    ready(call);
    if (team == SHMEM_TEAM_INVALID) return -1;
    check(call, ccs_team_barrier(live_team(call, team).team, nullptr));
    return 0;
}

#define SHMEM_DEFINE_COLL_(T, N)                                                                              \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) {      \
        const char *call = "shmem_" #N "_broadcast";                                                          \
        return broadcast_bytes(call, team, dest, source, byte_count(call, nelems, sizeof(T)), PE_root);       \
    }                                                                                                         \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {                     \
        const char *call = "shmem_" #N "_collect";                                                            \
        return collect_bytes(call, team, dest, source, byte_count(call, nelems, sizeof(T)));                  \
    }                                                                                                         \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {                    \
        const char *call = "shmem_" #N "_fcollect";                                                           \
        return fcollect_bytes(call, team, dest, source, byte_count(call, nelems, sizeof(T)));                 \
    }                                                                                                         \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {                    \
        const char *call = "shmem_" #N "_alltoall";                                                           \
        return alltoall_bytes(call, team, dest, source, byte_count(call, nelems, sizeof(T)));                 \
    }                                                                                                         \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,      \
                              size_t nelems) {                                                                \
        return alltoalls_bytes("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems, sizeof(T));    \
    }
SHMEM_RMA_TYPES_(SHMEM_DEFINE_COLL_)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
    return broadcast_bytes("shmem_broadcastmem", team, dest, source, nelems, PE_root);
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    return collect_bytes("shmem_collectmem", team, dest, source, nelems);
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    return fcollect_bytes("shmem_fcollectmem", team, dest, source, nelems);
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    return alltoall_bytes("shmem_alltoallmem", team, dest, source, nelems);
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
    return alltoalls_bytes("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
}
