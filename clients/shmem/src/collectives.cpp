#include "collectives.hpp"

#include <ccs/datadesc.h>

#include <cstring>
#include <vector>

namespace ccs::shmem {
namespace {
const shmem_team_s *member_of(const char *call, shmem_team_t team) {
    ready(call);
    return team == SHMEM_TEAM_INVALID ? nullptr : &live_team(call, team);
}
}  // namespace

int broadcast_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, int root) {
    const shmem_team_s *t = member_of(call, team);
    if (!t) return -1;
    if (root < 0 || root >= t->n_pes)
        fail(call, "PE_root " + std::to_string(root) + " is not in 0 .. " + std::to_string(t->n_pes - 1));
    // CCS broadcasts in place: the root's data starts in its dest.
    if (t->my_pe == root && dest != source && bytes > 0) std::memmove(dest, source, bytes);
    check(call, ccs_team_broadcast(t->team, dest, bytes, root, nullptr));
    return 0;
}

int collect_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes) {
    const shmem_team_s *t = member_of(call, team);
    if (!t) return -1;
    std::vector<size_t> lengths(static_cast<size_t>(t->n_pes)), offsets(lengths.size());
    check(call, ccs_team_allgather(t->team, &bytes, sizeof bytes, lengths.data(), nullptr));
    size_t at = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        offsets[i] = at;
        at += lengths[i];
    }
    check(call, ccs_team_allgatherv(t->team, source, bytes, dest, lengths.data(), offsets.data(), nullptr));
    return 0;
}

int fcollect_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes) {
    const shmem_team_s *t = member_of(call, team);
    if (!t) return -1;
    check(call, ccs_team_allgather(t->team, source, bytes, dest, nullptr));
    return 0;
}

int alltoall_bytes(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes) {
    const shmem_team_s *t = member_of(call, team);
    if (!t) return -1;
    check(call, ccs_team_alltoall(t->team, source, bytes, dest, nullptr));
    return 0;
}

int alltoalls_bytes(const char *call, shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t element) {
    const shmem_team_s *t = member_of(call, team);
    if (!t) return -1;
    if (dst < 1 || sst < 1) fail(call, "strides " + std::to_string(dst) + " and " + std::to_string(sst) + " must be positive");
    if ((dst == 1 && sst == 1) || nelems == 0) return alltoall_bytes(call, team, dest, source, nelems * element);
    // Block j of a side is `nelems` elements `stride` apart, starting
    // j * nelems * stride elements in: one element of a resized vector.
    ccs_datadesc_t sides[2] = {nullptr, nullptr};
    const ptrdiff_t strides[2] = {sst, dst};
    for (int i = 0; i < 2; ++i) {
        ccs_datadesc_t vector = nullptr;
        const int64_t step = static_cast<int64_t>(strides[i]) * static_cast<int64_t>(element);
        check(call, ccs_datadesc_hvector(static_cast<int64_t>(nelems), static_cast<int64_t>(element), step, CCS_BYTE,
                                         &vector));
        check(call, ccs_datadesc_resized(vector, 0, step * static_cast<int64_t>(nelems), &sides[i]));
        ccs_datadesc_free(&vector);
        check(call, ccs_datadesc_commit(sides[i]));
    }
    const ccs_status_t st = ccs_team_alltoall_datadesc(t->team, source, 1, sides[0], dest, 1, sides[1], nullptr);
    ccs_datadesc_free(&sides[0]);
    ccs_datadesc_free(&sides[1]);
    check(call, st);
    return 0;
}
}  // namespace ccs::shmem
