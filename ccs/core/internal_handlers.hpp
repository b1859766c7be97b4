// Handler ids on the core's internal context, handed out in ranges, one per
// subsystem (the barrier, RMA, collectives to come), so no subsystem picks
// numbers by hand. Every process installs its subsystems in the same order
// at start-up, so a subsystem gets the same ids in every process.
#pragma once

#include "core/context.hpp"

#include <ccs/ccs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ccs {

class internal_handlers {
public:
    explicit internal_handlers(context &internal) : internal_(internal) {}

    // `count` consecutive ids for `subsystem`, the first in `first`.
    // CCS_ERR_INVALID_HANDLER, naming who holds the table, when it is full.
    ccs_status_t reserve(const char *subsystem, uint16_t count, uint16_t &first);
    // Installs a handler at an id this subsystem reserved.
    void set(uint16_t id, ccs_am_handler_fn fn, void *arg) { internal_.handler(id) = {fn, arg}; }
    // The subsystem holding `id`, or null (for messages and logs).
    const char *owner(uint16_t id) const;

    context &internal() { return internal_; }

private:
    struct range {
        std::string subsystem;
        uint16_t first, count;
    };
    context &internal_;
    uint16_t next_ = 0;
    std::vector<range> ranges_;
};

}  // namespace ccs
