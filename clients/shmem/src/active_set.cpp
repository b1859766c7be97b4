#include "active_set.hpp"

#include "rma.hpp"

namespace ccs::shmem {
namespace {
// The set's own context: its gets are waited for without completing the
// application's operations.
shmem_ctx_s &internal_context() {
    static shmem_ctx_s ctx{ctx_alive, 0, nullptr, {0, 0, CCS_OK}, 0};
    return ctx;
}
}  // namespace

active_set::active_set(const char *call, int start, int log_stride, int size) : call_(call) {
    const pe_state &s = ready(call);
    if (start < 0 || size < 1 || log_stride < 0 || log_stride > 30 ||
        static_cast<int64_t>(start) + (static_cast<int64_t>(size - 1) << log_stride) >= s.npes)
        fail(call, "the active set (PE_start " + std::to_string(start) + ", logPE_stride " + std::to_string(log_stride) +
                       ", PE_size " + std::to_string(size) + ") is not within the " + std::to_string(s.npes) + " PEs");
    const int offset = s.me - start;
    if (offset < 0 || (offset & ((1 << log_stride) - 1)) != 0 || (offset >> log_stride) >= size)
        fail(call, "PE " + std::to_string(s.me) + " is not in the active set");
    start_ = start;
    log_stride_ = log_stride;
    size_ = size;
    index_ = offset >> log_stride;
}

void active_set::barrier(long *psync, bool complete) const {
    pe_state &s = ccs::shmem::pe();
    if (!psync) fail(call_, "pSync is NULL");
    if (complete) quiet_all_contexts(call_);
    if (size_ == 1) return;
    const int first = pe(0);
    if (index_ != 0) {
        const remote_location arrivals = locate(call_, s, &psync[0], sizeof(long), first);
        check(call_, ccs_atomic_sync(s.context, first, CCS_ATOMIC_ADD, CCS_INT64, arrivals.address, arrivals.key, 1, 0,
                                     nullptr));
        check(call_, ccs_wait_until(&psync[1], CCS_INT64, CCS_CMP_NE, 0));
        __atomic_store_n(&psync[1], 0L, __ATOMIC_RELEASE);
        return;
    }
    check(call_, ccs_wait_until(&psync[0], CCS_INT64, CCS_CMP_EQ, static_cast<uint64_t>(size_ - 1)));
    // Cleared before anyone is released: their next arrival comes after.
    __atomic_store_n(&psync[0], 0L, __ATOMIC_RELEASE);
    for (int i = 1; i < size_; ++i) {
        const remote_location release = locate(call_, s, &psync[1], sizeof(long), pe(i));
        check(call_, ccs_atomic_sync(s.context, pe(i), CCS_ATOMIC_SET, CCS_INT64, release.address, release.key, 1, 0,
                                     nullptr));
    }
}

void active_set::get(void *dest, const void *source, size_t bytes, int i) const {
    get_bytes_nbi(call_, &internal_context(), dest, source, bytes, pe(i));
}

void active_set::wait() const { quiet(call_, internal_context()); }
}  // namespace ccs::shmem
