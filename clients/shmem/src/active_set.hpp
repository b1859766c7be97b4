// The deprecated collectives on active sets (PE_start, logPE_stride,
// PE_size) with pSync work arrays. Only the members call them, so they
// cannot use CCS teams (made by every PE of a parent): they run on RMA
// and atomics into pSync, which they leave at SHMEM_SYNC_VALUE.
#pragma once

#include "pe_state.hpp"

namespace ccs::shmem {
class active_set {
public:
    // fail() unless the set is within the job and this PE is in it.
    active_set(const char *call, int start, int log_stride, int size);

    int size() const { return size_; }
    int index() const { return index_; }  // this PE's place in the set
    int pe(int i) const { return start_ + (i << log_stride_); }
    // Every PE of the job is in the set.
    bool is_world() const { return start_ == 0 && size_ == ccs::shmem::pe().npes && (log_stride_ == 0 || size_ == 1); }

    // Every member has arrived (pSync[0] counts arrivals at the first
    // member, pSync[1] releases the others); with `complete`, what this PE
    // issued before is complete first (shmem_barrier), else not
    // (shmem_sync).
    void barrier(long *psync, bool complete) const;
    // Gets `bytes` at `source` of the set's i-th PE into `dest`, done by
    // the next wait().
    void get(void *dest, const void *source, size_t bytes, int i) const;
    void wait() const;

private:
    const char *call_;
    int start_, log_stride_, size_, index_;
};
}  // namespace ccs::shmem
