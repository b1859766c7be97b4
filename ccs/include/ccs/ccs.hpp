// Thin C++ wrapper over the C API: RAII for init and contexts, exceptions
// for failures, handlers as any callable. Header-only; no ABI of its own.
#pragma once

#include <ccs/ccs.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ccs {

class error : public std::runtime_error {
public:
    explicit error(ccs_status_t status)
        : std::runtime_error(std::string(ccs_strerror(status)) +
                             (*ccs_last_error() ? std::string(": ") + ccs_last_error() : std::string())),
          status_(status) {}
    ccs_status_t status() const noexcept { return status_; }

private:
    ccs_status_t status_;
};

inline void check(ccs_status_t status) {
    if (status != CCS_OK) throw error(status);
}

// ccs_init in the constructor, ccs_finalize in the destructor.
class library {
public:
    library() { check(ccs_init(nullptr)); }
    ~library() { ccs_finalize(); }
    library(const library &) = delete;
    library &operator=(const library &) = delete;

    int rank() const {
        int r = 0;
        check(ccs_rank(&r));
        return r;
    }
    int size() const {
        int s = 0;
        check(ccs_size(&s));
        return s;
    }
    void progress() const { check(ccs_progress()); }
    void barrier() const { check(ccs_barrier()); }
};

using am_message = ccs_am_message_t;

using handler = std::function<void(const am_message &)>;

// A context that owns its handlers. Creation is collective; handlers given
// here exist everywhere before any process returns from the constructor.
class context {
public:
    explicit context(const char *name = nullptr, std::initializer_list<std::pair<uint16_t, handler>> handlers = {},
                     uint64_t flags = 0) {
        std::vector<ccs_am_handler_entry_t> entries;
        for (const auto &h : handlers) {
            auto owned = std::make_unique<handler>(h.second);
            entries.push_back({h.first, &context::trampoline, owned.get()});
            handlers_[h.first] = std::move(owned);
        }
        const ccs_context_params_t params{sizeof(ccs_context_params_t), flags, name, entries.data(), entries.size()};
        check(ccs_context_create(&params, &handle_));
    }
    ~context() {
        if (handle_.id) ccs_context_destroy(handle_);
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;

    ccs_context_t handle() const { return handle_; }

    // Registers later; peers may use it only after a barrier.
    void on(uint16_t id, handler fn) {
        auto owned = std::make_unique<handler>(std::move(fn));
        check(ccs_am_handler_register(handle_, id, &context::trampoline, owned.get()));
        handlers_[id] = std::move(owned);
    }
    void off(uint16_t id) {
        check(ccs_am_handler_deregister(handle_, id));
        handlers_.erase(id);
    }

    // Payload copied (no completion): the buffer is reusable on return.
    void send(int target, uint16_t id, std::initializer_list<uint64_t> args = {}, const void *payload = nullptr,
              size_t size = 0) const {
        check(ccs_am_send(handle_, target, id, args.begin(), args.size(), payload, size, nullptr));
    }

private:
    static void trampoline(const ccs_am_message_t *m, void *arg) {
        (*static_cast<handler *>(arg))(*m);
    }
    ccs_context_t handle_{0};
    std::unordered_map<uint16_t, std::unique_ptr<handler>> handlers_;
};

}  // namespace ccs
