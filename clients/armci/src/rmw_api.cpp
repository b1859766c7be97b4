// ARMCI_Rmw: fetch-and-add and swap on an int or a long, as CCS atomics
// (in place where the target's memory is mapped here).
#include "access.hpp"

using namespace ccs::armci;

extern "C" int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc) {
    const char *call = "ARMCI_Rmw";
    const process_state &s = ready(call);
    const bool is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
    const bool is_swap = op == ARMCI_SWAP || op == ARMCI_SWAP_LONG;
    if (!is_long && !is_swap && op != ARMCI_FETCH_AND_ADD)
        return report(call, CCS_ERR_INVALID_ARG,
                      "op " + std::to_string(op) + " is none of ARMCI_FETCH_AND_ADD(_LONG), ARMCI_SWAP(_LONG)");
    const size_t width = is_long ? sizeof(long) : sizeof(int);
    if (!ploc || reinterpret_cast<uintptr_t>(ploc) % width != 0)
        return report(call, CCS_ERR_INVALID_ARG,
                      "ploc is NULL or not aligned to its " + std::to_string(width) + " bytes");
    ccs_rkey_t key;
    if (const int rc = locate(call, s, proc, prem, width, key)) return rc;
    const uint64_t at = address(prem);
    order_before(s, proc, at, at + width);
    const int type = width == 8 ? CCS_INT64 : CCS_INT32;
    // A swap's new value is the caller's *ploc, which receives the old one.
    uint64_t operand;
    if (!is_swap)
        operand = static_cast<uint64_t>(static_cast<int64_t>(value));
    else if (is_long)
        operand = static_cast<uint64_t>(*static_cast<long *>(ploc));
    else
        operand = static_cast<uint64_t>(static_cast<int64_t>(*static_cast<int *>(ploc)));
    const ccs_status_t st =
        ccs_atomic_sync(s.context, proc, is_swap ? CCS_ATOMIC_SWAP : CCS_ATOMIC_ADD, type, at, key, operand, 0, ploc);
    if (st != CCS_OK) return report_ccs(call, st);
    return 0;
}

ARMCI_PROFILED(ARMCI_Rmw)
