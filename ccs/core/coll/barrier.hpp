// The barrier over all processes: dissemination on the core's internal
// context, ceil(log2 N) rounds. Collectives live in this folder, one object
// a file, each installed on the internal context like the RMA engine.
#pragma once

#include "core/am/am_engine.hpp"
#include "core/coll/barrier_arrivals.hpp"
#include "core/internal_handlers.hpp"

#include <ccs/ccs.h>

#include <cstdint>
#include <functional>

namespace ccs::coll {

class barrier {
public:
    // `progress`: one pass of the runtime's progress (with back-off).
    barrier(am_engine &am, int rank, int size, std::function<void()> progress)
        : am_(am), rank_(rank), size_(size), progress_(std::move(progress)) {}

    ccs_status_t install(internal_handlers &handlers);

    // Returns once every live process entered; also ORs `flags` over all
    // processes into *all_flags (rounds that see a flag twice do no harm
    // to an OR). CCS_ERR_PEER_FAILED, instead of waiting forever, when a
    // process the result depends on failed.
    ccs_status_t run(uint64_t flags = 0, uint64_t *all_flags = nullptr);

private:
    static void on_arrival(const ccs_am_message_t *message, void *self);

    am_engine &am_;
    context *internal_ = nullptr;
    uint16_t handler_ = 0;
    int rank_, size_;
    std::function<void()> progress_;
    uint64_t epoch_ = 0;
    barrier_arrivals arrivals_;
};

}  // namespace ccs::coll
