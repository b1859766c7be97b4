// Allgather of small blobs over all processes, on the core's internal
// context: each process sends its blob to every other and waits for all of
// them. For the core's own collective set-up steps (symmetric allocation),
// where N - 1 messages per process cost nothing next to the mapping work.
#pragma once

#include "core/am/am_engine.hpp"
#include "core/internal_handlers.hpp"

#include <ccs/ccs.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace ccs::coll {

class allgather {
public:
    using blob = std::vector<uint8_t>;

    // `progress`: one pass of the runtime's progress (with back-off).
    allgather(am_engine &am, int rank, int size, std::function<void()> progress)
        : am_(am), rank_(rank), size_(size), progress_(std::move(progress)) {}

    ccs_status_t install(internal_handlers &handlers);

    // Every process's blob in rank order, `mine` at this rank. Every
    // process calls it the same number of times, in the same order.
    // CCS_ERR_PEER_FAILED, instead of waiting forever, when a process
    // failed before its blob arrived.
    ccs_status_t run(const blob &mine, std::vector<blob> &all);

private:
    static void on_blob(const ccs_am_message_t *message, void *self);

    am_engine &am_;
    context *internal_ = nullptr;
    uint16_t handler_ = 0;
    int rank_, size_;
    std::function<void()> progress_;
    uint64_t epoch_ = 0;     // the next call's
    uint64_t finished_ = 0;  // calls before this one are over: late blobs for them are dropped
    // Blobs by epoch, then source: a faster process may be one call ahead.
    std::map<uint64_t, std::vector<std::optional<blob>>> arrived_;
};

}  // namespace ccs::coll
