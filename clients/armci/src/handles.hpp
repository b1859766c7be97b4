// Completion of nonblocking operations. A handle names a slot (its
// `target` is the slot's index plus one, its `aggregate` the slot's
// generation, shifted, and the aggregate flag), the slot a CCS counter its
// operations increment. Operations without a handle count in one implicit
// slot. A slot is given back when its handle is waited for, or by
// ARMCI_WaitAll; a handle whose slot moved on is complete.
#pragma once

#include "state.hpp"

namespace ccs::armci {

// The completion a nonblocking operation under `hdl` (NULL: the implicit
// one) passes to CCS; count_issued() once CCS took the operation.
struct pending_completion {
    ccs_completion_t completion;
    struct slot *owner;
};
pending_completion completion_for(armci_hdl_t *hdl);
void count_issued(const pending_completion &p);

// What an operation passes to CCS: a handle's completion when it is
// nonblocking; for a blocking one, `done` (initialised here) when the call
// waits for it itself (a get), else none (CCS copies a put's source).
inline const ccs_completion_t *completion_of(bool blocking, bool waits, armci_hdl_t *hdl, ccs_counter_t &done,
                                             pending_completion &p) {
    if (!blocking) {
        p = completion_for(hdl);
        return &p.completion;
    }
    if (!waits) return nullptr;
    ccs_counter_init(&done);
    p.completion = ccs_completion_t{nullptr, nullptr, &done};
    return &p.completion;
}

// 0, or the first error of the handle's operations (reported).
int wait_handle(const char *call, armci_hdl_t *hdl);
// 0 when complete (the slot is given back), 1 while not.
int test_handle(const char *call, armci_hdl_t *hdl);
int wait_all(const char *call);

}  // namespace ccs::armci
