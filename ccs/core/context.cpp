#include "context.hpp"

#include "util/error.hpp"
#include "util/fast_path.hpp"
#include "util/log.hpp"

namespace ccs {

context::context(uint16_t id, uint64_t flags, std::string name, int nprocs)
    : id_(id),
      ordered_((flags & CCS_CONTEXT_UNORDERED) == 0),
      on_progress_thread_((flags & CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD) != 0),
      name_(std::move(name)),
      send_seq_(static_cast<size_t>(nprocs), 0),
      holding_(static_cast<size_t>(nprocs), 0),
      receive_order_(static_cast<size_t>(nprocs)) {}

void context::report_error(ccs_status_t status, int peer, const std::string &detail) {
    if (error_fn_) {
        error_fn_(handle(), status, peer, detail.c_str(), error_arg_);
        return;
    }
    const std::string text = ccs_strerror(status);
    const std::string status_name = text.substr(0, text.find(':'));
    log_message(log_level::warn,
                "context '" + name_ + "' (" + std::to_string(id_) + "): " + detail + " (" + status_name + ")");
}

ccs_status_t context_table::create(uint64_t flags, const char *name, int nprocs, context *&out) {
    if (slots_.size() > max_contexts)
        return fail(CCS_ERR_TOO_MANY_CONTEXTS,
                    "all " + std::to_string(max_contexts) + " context ids have been used");
    const auto id = static_cast<uint16_t>(slots_.size());
    std::string label = name ? name : "";
    if (label.empty()) label = id == internal_id ? "ccs-internal" : "context-" + std::to_string(id);
    auto made = std::make_unique<context>(id, flags, std::move(label), nprocs);
    const fast_path::exclusive alone;  // fast calls look contexts up
    slots_.push_back(std::move(made));
    out = slots_.back().get();
    return CCS_OK;
}

context *context_table::by_id(uint16_t id) {
    return id < slots_.size() ? slots_[id].get() : nullptr;
}

void context_table::destroy(uint16_t id) {
    const fast_path::exclusive alone;
    if (id < slots_.size()) slots_[id].reset();
}

}  // namespace ccs
