// Completing an operation the way the runtime asked: callback and/or
// counter (ccs_completion_t). Shared by AM sends and RMA.
#pragma once

#include <ccs/rma.h>

namespace ccs {

inline bool wants_completion(const ccs_completion_t *c) { return c && (c->callback || c->counter); }

// Runs inside progress only, with the engine's handler depth raised.
inline void complete(const ccs_completion_t &c, ccs_status_t status) {
    if (c.counter) {
        if (status != CCS_OK && c.counter->errors++ == 0) c.counter->first_error = status;
        ++c.counter->value;
    }
    if (c.callback) c.callback(status, c.arg);
}

}  // namespace ccs
