// What every data call does before it moves anything: check the target,
// find the key of the remote range, and keep location consistency.
//
// A put or accumulate without completion may still be on its way when
// its call returns (its source is free). ARMCI promises that a process's
// own operations on one location take effect in the order it issued them,
// so each thread notes the span each target may still receive; an
// operation overlapping it fences that target first. Spans are per thread:
// a fence by another thread only makes a later fence here cheaper.
#pragma once

#include "allocations.hpp"

#include <algorithm>
#include <vector>

namespace ccs::armci {

struct in_flight_span {
    uint64_t lo = UINT64_MAX;
    uint64_t hi = 0;
};

// The calling thread's spans, by target. Initial-exec, as the core's
// per-thread state: libarmci is linked by programs, not opened later, and
// every data call looks here (a general-dynamic variable costs a call).
inline thread_local std::vector<in_flight_span> *t_spans __attribute__((tls_model("initial-exec"))) = nullptr;
// Made on the thread's first use, freed when it ends.
[[gnu::cold]] std::vector<in_flight_span> &make_spans();
inline std::vector<in_flight_span> &spans() { return t_spans ? *t_spans : make_spans(); }

inline void order_before(const process_state &s, int proc, uint64_t lo, uint64_t hi) {
    auto &v = spans();
    if (v.size() <= static_cast<size_t>(proc)) return;
    in_flight_span &b = v[static_cast<size_t>(proc)];
    if (b.lo < hi && lo < b.hi) {
        ccs_fence(s.context, proc);
        b = in_flight_span{};
    }
}

inline void note_in_flight(const process_state &s, int proc, uint64_t lo, uint64_t hi) {
    auto &v = spans();
    if (v.size() < static_cast<size_t>(s.nproc)) v.resize(static_cast<size_t>(s.nproc));
    in_flight_span &b = v[static_cast<size_t>(proc)];
    b.lo = std::min(b.lo, lo);
    b.hi = std::max(b.hi, hi);
}

inline void forget_in_flight(int proc) {
    auto &v = spans();
    if (static_cast<size_t>(proc) < v.size()) v[static_cast<size_t>(proc)] = in_flight_span{};
}

inline void forget_all_in_flight() { spans().clear(); }

// 0 when proc is a process of the job, else the error (reported).
inline int check_target(const char *call, const process_state &s, int proc) {
    if (!valid_proc(s, proc)) [[unlikely]]
        return report(call, CCS_ERR_INVALID_RANK, "process " + std::to_string(proc) + " is not in " + proc_range(s));
    return 0;
}

// The key of `length` bytes at `addr` on a valid `proc`, or the error the
// call returns (reported).
inline int find_key(const char *call, int proc, const void *addr, uint64_t length, ccs_rkey_t &key) {
    std::string why;
    const ccs_status_t st = allocations().find(proc, reinterpret_cast<uintptr_t>(addr), length, key, why);
    if (st != CCS_OK) [[unlikely]]
        return report(call, st, why);
    return 0;
}

// check_target, then find_key.
inline int locate(const char *call, const process_state &s, int proc, const void *addr, uint64_t length,
                  ccs_rkey_t &key) {
    if (const int rc = check_target(call, s, proc)) [[unlikely]]
        return rc;
    return find_key(call, proc, addr, length, key);
}

inline uint64_t address(const void *p) { return reinterpret_cast<uintptr_t>(p); }

enum class op_kind { put, get, acc };

// One contiguous CCS operation: `n` bytes between `local` and `at` on
// `proc` (accumulate: sum of `type` with `scale`).
inline ccs_status_t issue_contiguous(const process_state &s, op_kind k, int proc, void *local, size_t n, uint64_t at,
                                     ccs_rkey_t key, int type, const void *scale, const ccs_completion_t *completion) {
    switch (k) {
        case op_kind::put: return ccs_put(s.context, proc, local, n, at, key, completion);
        case op_kind::get: return ccs_get(s.context, proc, local, n, at, key, completion);
        default:
            return ccs_accumulate(s.context, proc, CCS_ACC_SUM, type, local, n, at, key, scale, nullptr, completion);
    }
}

// ARMCI's accumulate types as CCS's (-1: not one).
inline int acc_type(int datatype) {
    switch (datatype) {
        case ARMCI_ACC_INT: return CCS_ACC_INT32;
        case ARMCI_ACC_LNG: return sizeof(long) == 8 ? CCS_ACC_INT64 : CCS_ACC_INT32;
        case ARMCI_ACC_FLT: return CCS_ACC_FLOAT;
        case ARMCI_ACC_DBL: return CCS_ACC_DOUBLE;
        case ARMCI_ACC_CPL: return CCS_ACC_COMPLEX_FLOAT;
        case ARMCI_ACC_DCP: return CCS_ACC_COMPLEX_DOUBLE;
        default: return -1;
    }
}
[[gnu::cold]] int bad_acc_type(const char *call, int datatype);

}  // namespace ccs::armci
