// Ordering and completion (fence, quiet, barrier_all, sync_all) and
// put-with-signal, which is a put ordered before an atomic.
#include "atomics.hpp"
#include "rma.hpp"

using namespace ccs::shmem;

namespace {
void put_signal(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                uint64_t signal, int sig_op, int pe) {
    const pe_state &s = ready(call);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        fail(call, "sig_op " + std::to_string(sig_op) + " is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
    pe = world_pe(call, live(call, ctx), pe);
    const remote_location sig = locate(call, s, sig_addr, sizeof *sig_addr, pe);
    put_to_world_pe(call, s, dest, source, bytes, pe);
    // The signal must not arrive before the data it announces.
    check(call, ccs_fence(s.context, pe));
    check(call, ccs_atomic(s.context, pe, sig_op == SHMEM_SIGNAL_SET ? CCS_ATOMIC_SET : CCS_ATOMIC_ADD, CCS_UINT64,
                           sig.address, sig.key, signal, 0, nullptr, nullptr));
}
}  // namespace

extern "C" {
void shmem_ctx_quiet(shmem_ctx_t ctx) { quiet("shmem_ctx_quiet", live("shmem_ctx_quiet", ctx)); }
void shmem_quiet(void) {
    ready("shmem_quiet");
    quiet("shmem_quiet", shmem_ctx_default_object_);
}
// Completing is the strongest ordering: a fence is a quiet.
void shmem_ctx_fence(shmem_ctx_t ctx) { quiet("shmem_ctx_fence", live("shmem_ctx_fence", ctx)); }
void shmem_fence(void) {
    ready("shmem_fence");
    quiet("shmem_fence", shmem_ctx_default_object_);
}

void shmem_barrier_all(void) {
    ready("shmem_barrier_all");
    barrier_all("shmem_barrier_all");
}

void shmem_sync_all(void) {
    const pe_state &s = ready("shmem_sync_all");
    check("shmem_sync_all", ccs_team_barrier(s.world, nullptr));
}

void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe) {
    put_signal("shmem_putmem_signal", ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                         int sig_op, int pe) {
    put_signal("shmem_putmem_signal", SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                 uint64_t signal, int sig_op, int pe) {
    put_signal("shmem_putmem_signal_nbi", ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe) {
    put_signal("shmem_putmem_signal_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}

#define SHMEM_DEFINE_PUT_SIGNAL_(T, N)                                                                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                    uint64_t signal, int sig_op, int pe) {                                          \
        put_signal("shmem_" #N "_put_signal", ctx, dest, source,                                                    \
                   byte_count("shmem_" #N "_put_signal", nelems, sizeof(T)), sig_addr, signal, sig_op, pe);         \
    }                                                                                                               \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                int sig_op, int pe) {                                                               \
        shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);          \
    }                                                                                                               \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,                  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {                  \
        put_signal("shmem_" #N "_put_signal_nbi", ctx, dest, source,                                                \
                   byte_count("shmem_" #N "_put_signal_nbi", nelems, sizeof(T)), sig_addr, signal, sig_op, pe);     \
    }                                                                                                               \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                    int sig_op, int pe) {                                                           \
        shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);      \
    }
SHMEM_RMA_TYPES_(SHMEM_DEFINE_PUT_SIGNAL_)
}
