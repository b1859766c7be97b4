// Reductions on teams (table 11). Types and operations CCS reduces (32-
// and 64-bit integers, float, double and complex with sum, prod, min and
// max) go to ccs_team_allreduce; the others (8- and 16-bit integers, long
// double, and, or, xor) gather every member's values and combine them in
// team order on each member, so every member gets the same result.
#include "collectives.hpp"
#include "reduction.hpp"

#include <vector>

using namespace ccs::shmem;

namespace {
template <typename T>
int reduce(const char *call, shmem_team_t team, T *dest, const T *source, size_t n, reduction r) {
    ready(call);
    if (team == SHMEM_TEAM_INVALID) return -1;
    const shmem_team_s &t = live_team(call, team);
    if (n > SIZE_MAX / sizeof(T) / static_cast<size_t>(t.n_pes)) fail(call, "nreduce " + std::to_string(n) + " overflows");
    if constexpr (acc_type<T>() >= 0) {
        if (acc_op(r) >= 0) {
            check(call, ccs_team_allreduce(t.team, source, dest, n, acc_type<T>(), acc_op(r), nullptr));
            return 0;
        }
    }
    std::vector<T> all(n * static_cast<size_t>(t.n_pes));
    check(call, ccs_team_allgather(t.team, source, n * sizeof(T), all.data(), nullptr));
    for (size_t i = 0; i < n; ++i) {
        T v = all[i];
        for (size_t m = 1; m < static_cast<size_t>(t.n_pes); ++m) v = combine(r, v, all[m * n + i]);
        dest[i] = v;
    }
    return 0;
}
}  // namespace

extern "C" {
#define SHMEM_DEFINE_REDUCE_(T, N, OP)                                                       \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) { \
        return reduce<T>("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce, reduction::OP##_r); \
    }
#define SHMEM_DEFINE_REDUCE_BITWISE_(T, N) \
    SHMEM_DEFINE_REDUCE_(T, N, and) SHMEM_DEFINE_REDUCE_(T, N, or) SHMEM_DEFINE_REDUCE_(T, N, xor)
#define SHMEM_DEFINE_REDUCE_MINMAX_(T, N) SHMEM_DEFINE_REDUCE_(T, N, max) SHMEM_DEFINE_REDUCE_(T, N, min)
#define SHMEM_DEFINE_REDUCE_ARITH_(T, N) SHMEM_DEFINE_REDUCE_(T, N, sum) SHMEM_DEFINE_REDUCE_(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES_(SHMEM_DEFINE_REDUCE_BITWISE_)
SHMEM_REDUCE_MINMAX_TYPES_(SHMEM_DEFINE_REDUCE_MINMAX_)
SHMEM_REDUCE_ARITH_TYPES_(SHMEM_DEFINE_REDUCE_ARITH_)
}
