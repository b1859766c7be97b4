// Completing an operation the way the runtime asked: callback and/or
// counter (ccs_completion_t). Shared by AM sends and RMA.
#pragma once

#include "util/error.hpp"

#include <ccs/rma.h>

#include <string>
#include <unordered_map>

namespace ccs {

inline bool wants_completion(const ccs_completion_t *c) { return c && (c->callback || c->counter); }

// One more completion on the counter. Atomic with release: a thread that
// polls `value` while the progress thread completes sees the errors
// recorded before it and the operation's data.
inline void counter_add(ccs_counter_t &counter) { __atomic_fetch_add(&counter.value, 1, __ATOMIC_RELEASE); }

// The detail of each counter's first failure, for whoever waits on the
// counter later (ccs_counter_wait, the synchronous calls): the counter
// itself has room for a status only.
class failure_notes {
public:
    void record(const ccs_counter_t *counter, std::string detail) { first_[counter] = std::move(detail); }
    // The detail, forgotten here; empty if none was recorded.
    std::string take(const ccs_counter_t *counter) {
        const auto it = first_.find(counter);
        if (it == first_.end()) return {};
        std::string out = std::move(it->second);
        first_.erase(it);
        return out;
    }

private:
    std::unordered_map<const ccs_counter_t *, std::string> first_;
};

// An operation that completes: its outcome and, for a failure, what went
// wrong (ccs_last_error inside the callback; kept for the counter).
struct pending_completion {
    ccs_completion_t completion;
    ccs_status_t status;
    std::string detail;
    // The operation's context; 0, the core's own, completes anywhere.
    uint16_t context = 0;
};

// Runs inside progress only, with the engine's handler depth raised.
inline void complete(const pending_completion &p, failure_notes &notes) {
    const ccs_completion_t &c = p.completion;
    if (p.status != CCS_OK) {
        const std::string &detail = p.detail.empty() ? std::string(ccs_strerror(p.status)) : p.detail;
        fail(p.status, detail);
        if (c.counter && c.counter->errors == 0) notes.record(c.counter, detail);
    }
    if (c.counter) {
        if (p.status != CCS_OK && c.counter->errors++ == 0) c.counter->first_error = p.status;
        counter_add(*c.counter);
    }
    if (c.callback) c.callback(p.status, c.arg);
}

}  // namespace ccs
