// The deprecated active-set collectives: barrier and sync, broadcast,
// collect, fcollect, alltoall(s) in 32- and 64-bit elements, and the
// *_to_all reductions. Each member reads what it needs from the others'
// symmetric source between two barriers of the set, so none writes into
// another's memory while that one may still use it.
#include "active_set.hpp"
#include "reduction.hpp"
#include "rma.hpp"

#include <cstring>
#include <type_traits>
#include <vector>

using namespace ccs::shmem;

namespace {
void broadcast(const char *call, void *dest, const void *source, size_t bytes, int root, int start, int log_stride,
               int size, long *psync) {
    const active_set set(call, start, log_stride, size);
    if (root < 0 || root >= set.size())
        fail(call, "PE_root " + std::to_string(root) + " is not in 0 .. " + std::to_string(set.size() - 1));
    set.barrier(psync, true);
    if (set.index() != root && bytes > 0) {
        set.get(dest, source, bytes, root);
        set.wait();
    }
    set.barrier(psync, false);
}

void fcollect(const char *call, void *dest, const void *source, size_t bytes, int start, int log_stride, int size,
              long *psync) {
    const active_set set(call, start, log_stride, size);
    set.barrier(psync, true);
    for (int i = 0; i < set.size() && bytes > 0; ++i) set.get(static_cast<char *>(dest) + i * bytes, source, bytes, i);
    set.wait();
    set.barrier(psync, false);
}

// Sizes differ per member: each tells its own in pSync[2] (read by the
// others between the barriers, cleared after them).
void collect(const char *call, void *dest, const void *source, size_t bytes, int start, int log_stride, int size,
             long *psync) {
    const active_set set(call, start, log_stride, size);
    if (!psync) fail(call, "pSync is NULL");
    __atomic_store_n(&psync[2], static_cast<long>(bytes), __ATOMIC_RELEASE);
    set.barrier(psync, true);
    std::vector<long> sizes(static_cast<size_t>(set.size()));
    for (int i = 0; i < set.size(); ++i) set.get(&sizes[static_cast<size_t>(i)], &psync[2], sizeof(long), i);
    set.wait();
    size_t at = 0;
    for (int i = 0; i < set.size(); ++i) {
        const size_t n = static_cast<size_t>(sizes[static_cast<size_t>(i)]);
        if (n > 0) set.get(static_cast<char *>(dest) + at, source, n, i);
        at += n;
    }
    set.wait();
    set.barrier(psync, false);
    __atomic_store_n(&psync[2], 0L, __ATOMIC_RELEASE);
}

void alltoall(const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
              size_t element, int start, int log_stride, int size, long *psync) {
    const active_set set(call, start, log_stride, size);
    if (dst < 1 || sst < 1) fail(call, "strides must be positive");
    set.barrier(psync, true);
    const size_t block = nelems * element;
    if (dst == 1 && sst == 1) {
        for (int i = 0; i < set.size() && block > 0; ++i)
            set.get(static_cast<char *>(dest) + i * block, static_cast<const char *>(source) + set.index() * block,
                    block, i);
        set.wait();
    } else {
        // Block j of a side starts j * nelems * stride elements in.
        for (int i = 0; i < set.size() && nelems > 0; ++i)
            get_strided(call, SHMEM_CTX_DEFAULT, static_cast<char *>(dest) + i * nelems * dst * element,
                        static_cast<const char *>(source) + set.index() * nelems * sst * element, dst, sst, nelems,
                        element, set.pe(i));
    }
    set.barrier(psync, false);
}

// Every member reads every member's source and combines in set order, so
// all get the same result; dest (which may be source) is written after
// the last barrier, when nobody reads source any more.
template <typename T>
void to_all(const char *call, reduction o, T *dest, const T *source, int nreduce, int start, int log_stride, int size,
            long *psync) {
    const active_set set(call, start, log_stride, size);
    if (nreduce < 0) fail(call, "nreduce " + std::to_string(nreduce) + " is negative");
    const size_t n = static_cast<size_t>(nreduce);
    // Over the whole job CCS's world team reduces what it can, in one
    // collective instead of two barriers and a get from each member.
    if constexpr (acc_type<T>() >= 0) {
        if (set.is_world() && acc_op(o) >= 0) {
            check(call, ccs_team_allreduce(pe().world, source, dest, n, acc_type<T>(), acc_op(o), nullptr));
            return;
        }
    }
    set.barrier(psync, true);
    std::vector<T> all(n * static_cast<size_t>(set.size()));
    for (int i = 0; i < set.size() && n > 0; ++i) set.get(&all[static_cast<size_t>(i) * n], source, n * sizeof(T), i);
    set.wait();
    for (size_t e = 0; e < n; ++e)
        for (int i = 1; i < set.size(); ++i) all[e] = combine(o, all[e], all[static_cast<size_t>(i) * n + e]);
    set.barrier(psync, false);
    if (n > 0) std::memcpy(dest, all.data(), n * sizeof(T));
}
}  // namespace

extern "C" {
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    const active_set set("shmem_barrier", PE_start, logPE_stride, PE_size);
    if (!set.is_world()) return set.barrier(pSync, true);
    barrier_all("shmem_barrier");  // the whole job: the world team's barrier
}
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    active_set("shmem_sync", PE_start, logPE_stride, PE_size).barrier(pSync, false);
}

#define SHMEM_DEFINE_ACTIVE_SET_SIZED_(B)                                                                        \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,            \
                            int logPE_stride, int PE_size, long *pSync) {                                        \
        broadcast("shmem_broadcast" #B, dest, source, byte_count("shmem_broadcast" #B, nelems, B / 8), PE_root,  \
                  PE_start, logPE_stride, PE_size, pSync);                                                       \
    }                                                                                                            \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,         \
                          int PE_size, long *pSync) {                                                            \
        collect("shmem_collect" #B, dest, source, byte_count("shmem_collect" #B, nelems, B / 8), PE_start,       \
                logPE_stride, PE_size, pSync);                                                                   \
    }                                                                                                            \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,        \
                           int PE_size, long *pSync) {                                                           \
        fcollect("shmem_fcollect" #B, dest, source, byte_count("shmem_fcollect" #B, nelems, B / 8), PE_start,    \
                 logPE_stride, PE_size, pSync);                                                                  \
    }                                                                                                            \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,        \
                           int PE_size, long *pSync) {                                                           \
        alltoall("shmem_alltoall" #B, dest, source, 1, 1, nelems, B / 8, PE_start, logPE_stride, PE_size, pSync); \
    }                                                                                                            \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,         \
                            int PE_start, int logPE_stride, int PE_size, long *pSync) {                          \
        alltoall("shmem_alltoalls" #B, dest, source, dst, sst, nelems, B / 8, PE_start, logPE_stride, PE_size,   \
                 pSync);                                                                                         \
    }
SHMEM_DEFINE_ACTIVE_SET_SIZED_(32)
SHMEM_DEFINE_ACTIVE_SET_SIZED_(64)

#define SHMEM_DEFINE_TO_ALL_(T, N, OP)                                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,    \
                                   int PE_size, T *, long *pSync) {                                          \
        to_all<T>("shmem_" #N "_" #OP "_to_all", reduction::OP##_r, dest, source, nreduce, PE_start,        \
                  logPE_stride, PE_size, pSync);                                                             \
    }
#define SHMEM_DEFINE_TO_ALL_BITWISE_(T, N) \
    SHMEM_DEFINE_TO_ALL_(T, N, and) SHMEM_DEFINE_TO_ALL_(T, N, or) SHMEM_DEFINE_TO_ALL_(T, N, xor)
#define SHMEM_DEFINE_TO_ALL_MINMAX_(T, N) SHMEM_DEFINE_TO_ALL_(T, N, max) SHMEM_DEFINE_TO_ALL_(T, N, min)
#define SHMEM_DEFINE_TO_ALL_ARITH_(T, N) SHMEM_DEFINE_TO_ALL_(T, N, sum) SHMEM_DEFINE_TO_ALL_(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES_(SHMEM_DEFINE_TO_ALL_BITWISE_)
SHMEM_TO_ALL_MINMAX_TYPES_(SHMEM_DEFINE_TO_ALL_MINMAX_)
SHMEM_TO_ALL_ARITH_TYPES_(SHMEM_DEFINE_TO_ALL_ARITH_)
}
