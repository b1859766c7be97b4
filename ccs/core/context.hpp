// Contexts: one per runtime. Each owns a handler table, its message streams
// (sequence numbers and reorder buffers) and its error handler. Context ids
// are the same in every process because creation is collective and ids are
// never reused; handles are ids, so a stale handle is detected, not followed.
#pragma once

#include "core/am/parked_payload.hpp"
#include "core/am/reorder_buffer.hpp"
#include "util/byte_pool.hpp"

#include <ccs/am_large.h>
#include <ccs/ccs.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace ccs {

// The handlers ccs_context_create was given (ccs_context_params_t).
struct context_handlers {
    const ccs_am_handler_entry_t *handlers = nullptr;
    size_t count = 0;
    const ccs_am_header_handler_entry_t *header_handlers = nullptr;
    size_t header_count = 0;
};

// A message kept for later delivery (early in a reorder buffer, or to self).
struct stored_message {
    uint16_t context = 0;
    uint16_t handler = 0;
    uint8_t nargs = 0;
    bool large = false;  // a large message's header (am_large.h)
    std::array<uint64_t, CCS_AM_MAX_ARGS> args{};
    byte_buffer payload;
    parked_payload parked;  // the rest of the payload, kept by its transport
};

class context {
public:
    context(uint16_t id, uint64_t flags, std::string name, int nprocs);

    uint16_t id() const { return id_; }
    const std::string &name() const { return name_; }
    bool ordered() const { return ordered_; }
    // Its handlers may run on the progress thread (else they are deferred
    // to the application's calls).
    bool handlers_on_progress_thread() const { return on_progress_thread_; }
    ccs_context_t handle() const { return ccs_context_t{id_}; }

    // An ordinary handler or a header handler (am_large.h), never both.
    struct handler_slot {
        ccs_am_handler_fn fn = nullptr;
        void *arg = nullptr;
        ccs_am_header_fn header_fn = nullptr;
        bool used() const { return fn || header_fn; }
    };
    handler_slot &handler(uint16_t id) { return handlers_[id]; }

    void set_error_handler(ccs_error_handler_fn fn, void *arg) {
        error_fn_ = fn;
        error_arg_ = arg;
    }
    // Tells the runtime (error handler) or the log that a message failed.
    void report_error(ccs_status_t status, int peer, const std::string &detail);

    // The sequence number of the next message to `target`. A message takes
    // it (take_send_seq) only once the transport accepted its first packet:
    // a send the transport refused leaves no gap the target would wait for.
    uint32_t next_send_seq(int target) const { return send_seq_[static_cast<size_t>(target)]; }
    void take_send_seq(int target) { ++send_seq_[static_cast<size_t>(target)]; }
    reorder_buffer<stored_message> &receive_order(int source) {
        return receive_order_[static_cast<size_t>(source)];
    }

    // Its messages to `target` wait behind large ones that wait for room
    // there (core/am/large_am.hpp), so that the context's order holds.
    // One load on every send: the count is zero but while large messages
    // wait. Set under the target's send lock (am_engine::set_holding).
    bool holding(int target) const {
        return holding_count_.load(std::memory_order_relaxed) != 0 && holding_[static_cast<size_t>(target)];
    }
    void set_holding(int target, bool on) {
        uint8_t &h = holding_[static_cast<size_t>(target)];
        if (h != on) holding_count_.fetch_add(on ? 1u : ~0u, std::memory_order_relaxed);
        h = on;
    }

    // Sends of this context still waiting in a peer queue.
    size_t queued_sends = 0;
    // Its messages waiting for the application's thread (am_engine).
    size_t deferred = 0;

private:
    uint16_t id_;
    bool ordered_;
    bool on_progress_thread_;
    std::string name_;
    std::array<handler_slot, CCS_AM_MAX_HANDLERS> handlers_{};
    ccs_error_handler_fn error_fn_ = nullptr;
    void *error_arg_ = nullptr;
    std::vector<uint32_t> send_seq_;
    std::vector<uint8_t> holding_;            // by target
    std::atomic<uint32_t> holding_count_{0};  // targets holding
    std::vector<reorder_buffer<stored_message>> receive_order_;
};

class context_table {
public:
    // Id 0 is the core's own context (barrier, ...); it has no public handle.
    static constexpr uint16_t internal_id = 0;
    static constexpr size_t max_contexts = 65535;

    ccs_status_t create(uint64_t flags, const char *name, int nprocs, context *&out);
    // null: never created or destroyed. Inline: every call looks it up.
    context *by_handle(ccs_context_t handle) {
        return handle.id == internal_id || handle.id >= slots_.size() ? nullptr : slots_[handle.id].get();
    }
    context *by_id(uint16_t id);                 // null: unknown or destroyed
    void destroy(uint16_t id);
    // True for ids handed out so far, destroyed or not.
    bool was_created(uint16_t id) const { return id < slots_.size(); }
    // Every live context, the internal one included.
    template <typename Fn>
    void for_each(Fn fn) {
        for (auto &slot : slots_)
            if (slot) fn(*slot);
    }

private:
    std::vector<std::unique_ptr<context>> slots_;  // index = id, never reused
};

}  // namespace ccs
