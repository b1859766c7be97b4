// What the core hands a plugin (ccs_plugin_services_v1_t), as calls that
// read like C++: log a line, read a CCS_<PLUGIN>_<NAME> parameter, report
// events. Services appended after the first ABI release are checked
// against struct_size here, once, instead of at every call site.
#pragma once

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

namespace ccs::plugin {

// The thread level the job started with (ccs_plugin_job_v1_t's appended
// field); single where the core predates it.
inline int32_t job_thread_level(const ccs_plugin_job_v1_t &job) {
    constexpr size_t needed = offsetof(ccs_plugin_job_v1_t, thread_level) + sizeof job.thread_level;
    return job.struct_size >= needed ? job.thread_level : 0;
}
// ccs_thread_level_t's CCS_THREAD_MULTIPLE, which plugins do not include.
constexpr int32_t thread_level_multiple = 3;

class core_services {
public:
    // `plugin`: the plugin's name, as in its table; it names the variables.
    core_services(const ccs_plugin_services_v1_t &services, const char *plugin) : s_(services), plugin_(plugin) {}

    void log(int32_t level, const std::string &message) const { s_.log(s_.core, level, message.c_str()); }

    const ccs_plugin_services_v1_t &raw() const { return s_; }

    // The text of CCS_<PLUGIN>_<name>, or default_value when unset.
    std::string param(const char *name, const char *default_value, const char *description) const {
        const char *v = s_.param_get(s_.core, name, default_value, description);
        return v ? std::string(v) : std::string(default_value);
    }
    // A size parameter (4096, 64k, 8m, 1g) within [min, max]; false, with
    // `reason` naming the variable, its text and what it must be, otherwise.
    // `rule` overrides the "from <min> to <max> bytes" part of the reason.
    bool param_size(const char *name, const char *default_value, const char *description, size_t min, size_t max,
                    size_t &out, std::string &reason, const char *rule = nullptr) const;
    // A parameter that takes one of `choices` (text, value).
    template <typename T>
    bool param_choice(const char *name, const char *default_value, const char *description,
                      std::initializer_list<std::pair<const char *, T>> choices, T &out, std::string &reason) const {
        const std::string text = param(name, default_value, description);
        std::string listed;
        size_t i = 0;
        for (const auto &[word, value] : choices) {
            if (text == word) {
                out = value;
                return true;
            }
            if (i > 0) listed += i + 1 == choices.size() ? " or " : ", ";
            listed += word;
            ++i;
        }
        reason = variable(name) + "='" + text + "' must be " + listed;
        return false;
    }
    // The variable's full name as the user sets it.
    std::string variable(const char *name) const;

    // Inline: every packet goes through here.
    void deliver(int32_t source, const void *packet, size_t length) const {
        s_.am_deliver(s_.core, source, packet, length);
    }
    void peer_failed(int32_t peer, const std::string &reason) const { s_.peer_failed(s_.core, peer, reason.c_str()); }
    void rma_complete(uint64_t token, ccs_plugin_status_t status) const { s_.rma_complete(s_.core, token, status); }
    // Whether the core can hear of finished am_send_nocopy calls.
    bool has_am_send_complete() const { return CCS_PLUGIN_HAS(&s_, am_send_complete); }
    void am_send_complete(uint64_t token, ccs_plugin_status_t status) const {
        s_.am_send_complete(s_.core, token, status);
    }
    // Receiving in place (ccs_plugin_v1.h: am_place, am_placed).
    bool can_place() const { return CCS_PLUGIN_HAS(&s_, am_place) && CCS_PLUGIN_HAS(&s_, am_placed); }
    void *place(int32_t source, const void *head, size_t head_length, size_t length, uint64_t &placement) const {
        return s_.am_place(s_.core, source, head, head_length, length, &placement);
    }
    void placed(uint64_t placement, ccs_plugin_status_t status) const { s_.am_placed(s_.core, placement, status); }
    // Payloads kept for the core's decision (ccs_plugin_v1.h: am_deliver_parked).
    bool can_park() const { return can_place() && CCS_PLUGIN_HAS(&s_, am_deliver_parked); }
    bool deliver_parked(int32_t source, const void *head, size_t head_length, size_t length, uint64_t parked) const {
        return s_.am_deliver_parked(s_.core, source, head, head_length, length, parked) != 0;
    }
    bool mem_shareable(const void *addr, size_t length, int32_t &fd, uint64_t &offset, uint64_t &id) const {
        return CCS_PLUGIN_HAS(&s_, mem_shareable) && s_.mem_shareable(s_.core, addr, length, &fd, &offset, &id) != 0;
    }

    // Local memory registered through the core's cache (ccs_plugin_v1.h:
    // local_acquire): this plugin's memh for a region holding it, or null.
    void *local_acquire(const void *addr, size_t length, void *&hold) const {
        if (!CCS_PLUGIN_HAS(&s_, local_acquire) || !CCS_PLUGIN_HAS(&s_, local_release)) return nullptr;
        return s_.local_acquire(s_.core, addr, length, &hold);
    }
    void local_release(void *hold) const { s_.local_release(s_.core, hold); }
    // Memory about to be unmapped (ccs_plugin_v1.h: mem_unmapped); any thread.
    void mem_unmapped(const void *addr, size_t length) const {
        if (CCS_PLUGIN_HAS(&s_, mem_unmapped)) s_.mem_unmapped(s_.core, addr, length);
    }

    // The core's lock around sends to `peer` (ccs_plugin_v1.h:
    // peer_send_lock), held for the life of the object where `needed`.
    class send_lock_hold {
    public:
        send_lock_hold(const core_services &core, int32_t peer, bool needed)
            : s_(needed && CCS_PLUGIN_HAS(&core.s_, peer_send_lock) ? &core.s_ : nullptr), peer_(peer) {
            if (s_) s_->peer_send_lock(s_->core, peer_, 1);
        }
        ~send_lock_hold() {
            if (s_) s_->peer_send_lock(s_->core, peer_, 0);
        }
        send_lock_hold(const send_lock_hold &) = delete;
        send_lock_hold &operator=(const send_lock_hold &) = delete;

    private:
        const ccs_plugin_services_v1_t *s_;
        int32_t peer_;
    };

private:
    ccs_plugin_services_v1_t s_;
    const char *plugin_;
};

}  // namespace ccs::plugin
