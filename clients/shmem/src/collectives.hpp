// Collectives on teams, in bytes: what every typed and mem form of
// broadcast, collect, fcollect, alltoall and alltoalls comes down to.
#pragma once

#include "rma.hpp"

namespace ccs::shmem {
int broadcast_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, int root);
int collect_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes);
int fcollect_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes);
int alltoall_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes);
int alltoalls_bytes(const char *call, shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t element);
}  // namespace ccs::shmem
