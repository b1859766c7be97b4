// libccs_plugin_altered.so: loads a real plugin (CCS_ALTERED_PLUGIN, its
// path) and alters what passes through it, so the core's answers to what
// real transports do only rarely run on real processes, with no test mode
// in any real plugin's data path. Each alteration is a parameter:
//   CCS_ALTERED_SHUFFLE=1        declares the transport unordered and
//                                delivers each polled batch shuffled (the
//                                core's reorder buffer)
//   CCS_ALTERED_DENY_RMA=1       acts as if the OS refused the transport's
//                                put and get (cross-memory attach): maps
//                                nothing, answers UNSUPPORTED (the core
//                                falls back to active messages)
//   CCS_ALTERED_REFUSE_MARKED=1  refuses, with a transport error, every
//                                packet ending in "REFUSED!" (a test picks
//                                which messages by their bytes)
//   CCS_ALTERED_HOLD_RANK=r, CCS_ALTERED_HOLD_MS=n
//                                rank r delivers each packet n ms after it
//                                arrived (a slow process)
//   CCS_ALTERED_LATE_RMA=1       a put or get the real plugin finished in
//                                the call is reported finished later, from
//                                progress, as an adapter's would be (at
//                                thread level multiple: on another thread)
// The real plugin reads its own parameters (CCS_<NAME>_*) as usual; an
// operation it lacks is answered as the core's stub would.
#include "common/plugin_table.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace ccs::test_plugins {
namespace {

constexpr char refuse_mark[] = "REFUSED!";
constexpr size_t refuse_mark_length = sizeof refuse_mark - 1;

struct altered_config {
    std::string plugin;  // path of the plugin to load
    bool shuffle = false, deny_rma = false, refuse_marked = false, late_rma = false;
    size_t hold_rank = SIZE_MAX, hold_ms = 0;
};

// The real plugin's table, loaded once per process and kept: query and
// init come separately, and its code must outlive every instance.
const ccs_plugin_v1_t *inner_table(const std::string &path, std::string &reason) {
    static const ccs_plugin_v1_t *table = nullptr;
    static std::string loaded;
    if (table) {
        if (loaded == path) return table;
        reason = "CCS_ALTERED_PLUGIN changed from " + loaded + " to " + path;
        return nullptr;
    }
    void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        reason = std::string("cannot load the plugin to alter: ") + ::dlerror();
        return nullptr;
    }
    const auto *t = static_cast<const ccs_plugin_v1_t *>(::dlsym(library, CCS_PLUGIN_SYMBOL_V1));
    if (!t || t->abi_version != CCS_PLUGIN_ABI_VERSION_1 || t->struct_size < sizeof(ccs_plugin_v1_t)) {
        reason = path + " has no complete " CCS_PLUGIN_SYMBOL_V1 " table";
        return nullptr;
    }
    loaded = path;
    return table = t;
}

// The real plugin asks for its parameters by its own name: the core's
// param_get service would give it ours (CCS_ALTERED_*).
const char *inner_param(const char *plugin, const char *name, const char *default_value) {
    std::string variable = "CCS_";
    for (const char *c = plugin; *c; ++c) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    variable += std::string("_") + name;
    const char *v = std::getenv(variable.c_str());
    return v ? v : default_value;
}

class altered_plugin {
public:
    static constexpr const char *name = "altered";
    using config = altered_config;

    static bool read_config(const plugin::core_services &core, config &out, std::string &reason) {
        out.plugin = core.param("PLUGIN", "", "path of the plugin to load and alter");
        if (out.plugin.empty()) {
            reason = core.variable("PLUGIN") + " is not set: it names the plugin to alter";
            return false;
        }
        out.shuffle = core.param("SHUFFLE", "0", "1: unordered, each polled batch delivered shuffled") == "1";
        out.deny_rma = core.param("DENY_RMA", "0", "1: as if the OS refused put and get; maps nothing") == "1";
        out.refuse_marked = core.param("REFUSE_MARKED", "0", "1: refuse packets ending in \"REFUSED!\"") == "1";
        out.late_rma = core.param("LATE_RMA", "0", "1: puts and gets reported finished from progress") == "1";
        return core.param_size("HOLD_RANK", "18446744073709551615", "the rank that holds arriving packets", 0,
                               SIZE_MAX, out.hold_rank, reason) &&
               core.param_size("HOLD_MS", "0", "how long that rank holds each packet", 0, 60000, out.hold_ms,
                               reason);
    }

    static ccs_plugin_status_t query(const plugin::core_services &core, const config &cfg,
                                     ccs_plugin_attr_v1_t &attr) {
        std::string reason;
        const ccs_plugin_v1_t *inner = inner_table(cfg.plugin, reason);
        if (!inner) {
            core.log(CCS_PLUGIN_LOG_ERROR, reason);
            return CCS_PLUGIN_ERR_INVALID;
        }
        const altered_plugin probe(core.raw(), ccs_plugin_job_v1_t{}, cfg);
        const ccs_plugin_status_t st = inner->query(&probe.inner_services_, &attr);
        if (st != CCS_PLUGIN_OK) return st;
        if (cfg.shuffle) attr.caps &= ~CCS_PLUGIN_CAP_AM_ORDERED;
        if (cfg.deny_rma) attr.caps &= ~CCS_PLUGIN_CAP_MAP_SHARED;
        const std::string description = std::string("altered") + (cfg.shuffle ? " shuffle" : "") +
                                        (cfg.deny_rma ? " deny-rma" : "") +
                                        (cfg.refuse_marked ? " refuse-marked" : "") +
                                        (cfg.late_rma ? " late-rma" : "") + ": " + attr.description;
        std::snprintf(attr.description, sizeof attr.description, "%s", description.c_str());
        return CCS_PLUGIN_OK;
    }

    altered_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
        : real_(services), cfg_(cfg), inner_(inner_table(cfg.plugin, inner_missing_)), job_(job),
          holding_(cfg.hold_ms > 0 && static_cast<size_t>(job.rank) == cfg.hold_rank) {
        wrap_services();
    }
    ~altered_plugin() {
        if (state_) inner_->finalize(state_);
    }
    altered_plugin(const altered_plugin &) = delete;
    altered_plugin &operator=(const altered_plugin &) = delete;

    ccs_plugin_status_t init() {
        if (!inner_) {
            real_.log(real_.core, CCS_PLUGIN_LOG_ERROR, inner_missing_.c_str());
            return CCS_PLUGIN_ERR_INVALID;
        }
        return inner_->init(&inner_services_, &job_, &state_);
    }
    ccs_plugin_status_t address(void *buffer, size_t *length) { return inner_->address(state_, buffer, length); }
    ccs_plugin_status_t connect(const void *const *addresses, const size_t *lengths) {
        return inner_->connect(state_, addresses, lengths);
    }
    bool reachable(int32_t peer) { return inner_->reachable(state_, peer) != 0; }
    ccs_plugin_status_t wireup_complete() {
        return inner_->wireup_complete ? inner_->wireup_complete(state_) : CCS_PLUGIN_OK;
    }

    ccs_plugin_status_t am_send(int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
        if (cfg_.refuse_marked && count > 0 && refused(iov[count - 1])) return CCS_PLUGIN_ERR_TRANSPORT;
        return inner_->am_send(state_, peer, iov, count);
    }
    ccs_plugin_status_t am_send_nocopy(int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
        if (!inner_->am_send_nocopy) return CCS_PLUGIN_ERR_UNSUPPORTED;
        if (cfg_.refuse_marked && count > 0 && refused(iov[count - 1])) return CCS_PLUGIN_ERR_TRANSPORT;
        return inner_->am_send_nocopy(state_, peer, iov, count, token);
    }

    // As the real plugin answers: these alterations keep no state of
    // their own on the paths that then run on several threads.
    ccs_plugin_status_t am_send_concurrent() {
        return CCS_PLUGIN_HAS(inner_, am_send_concurrent) ? inner_->am_send_concurrent(state_)
                                                          : CCS_PLUGIN_ERR_UNSUPPORTED;
    }
    ccs_plugin_status_t rma_concurrent() {
        return CCS_PLUGIN_HAS(inner_, rma_concurrent) ? inner_->rma_concurrent(state_) : CCS_PLUGIN_ERR_UNSUPPORTED;
    }

    // Sleeping on the real plugin's descriptor, unless something here is
    // still to report.
    int32_t wakeup_fd() { return CCS_PLUGIN_HAS(inner_, wakeup_fd) ? inner_->wakeup_fd(state_) : -1; }
    ccs_plugin_status_t wakeup_arm() {
        bool late_pending = false;
        {
            const std::lock_guard<std::mutex> hold(late_lock_);
            late_pending = !late_.empty();
        }
        if (late_pending || !held_.empty()) return CCS_PLUGIN_AGAIN;
        return CCS_PLUGIN_HAS(inner_, wakeup_arm) ? inner_->wakeup_arm(state_) : CCS_PLUGIN_ERR_UNSUPPORTED;
    }

    int32_t progress() {
        int32_t events = report_late_rma();
        events += inner_->progress(state_);
        if (cfg_.shuffle) std::shuffle(batch_.begin(), batch_.end(), rng_);
        // A peer's failure is told after what it sent before (a slow
        // process learns of both late, in order).
        batch_.insert(batch_.end(), std::make_move_iterator(failures_.begin()),
                      std::make_move_iterator(failures_.end()));
        failures_.clear();
        const auto now = std::chrono::steady_clock::now();
        for (event &e : batch_) {
            e.due = now + std::chrono::milliseconds(holding_ ? cfg_.hold_ms : 0);
            held_.push_back(std::move(e));
        }
        batch_.clear();
        // What a delivery sets off may send, never poll, so held_ does not
        // grow meanwhile.
        while (!held_.empty() && held_.front().due <= now) {
            const event e = std::move(held_.front());
            held_.pop_front();
            if (e.failed) real_.peer_failed(real_.core, e.source, reinterpret_cast<const char *>(e.bytes.data()));
            else real_.am_deliver(real_.core, e.source, e.bytes.data(), e.bytes.size());
            ++events;
        }
        return events;
    }

    ccs_plugin_status_t mem_reg(void *addr, size_t length, void **memh) {
        if (!inner_->mem_reg) {  // as the core's stub: nothing to register
            *memh = nullptr;
            return CCS_PLUGIN_OK;
        }
        return inner_->mem_reg(state_, addr, length, memh);
    }
    void mem_dereg(void *memh) {
        if (inner_->mem_dereg) inner_->mem_dereg(state_, memh);
    }
    ccs_plugin_status_t rkey_pack(void *memh, void *buffer, size_t *length) {
        if (!inner_->rkey_pack) {
            *length = 0;
            return CCS_PLUGIN_OK;
        }
        return inner_->rkey_pack(state_, memh, buffer, length);
    }
    ccs_plugin_status_t rkey_unpack(int32_t peer, const void *buffer, size_t length, void **rkey) {
        if (!inner_->rkey_unpack) {
            *rkey = nullptr;
            return CCS_PLUGIN_OK;
        }
        return inner_->rkey_unpack(state_, peer, buffer, length, rkey);
    }
    void rkey_release(void *rkey) {
        if (inner_->rkey_release) inner_->rkey_release(state_, rkey);
    }
    ccs_plugin_status_t rkey_ptr(void *rkey, uint64_t remote, size_t length, void **local) {
        if (cfg_.deny_rma || !inner_->rkey_ptr) {
            *local = nullptr;
            return CCS_PLUGIN_ERR_UNSUPPORTED;
        }
        return inner_->rkey_ptr(state_, rkey, remote, length, local);
    }
    ccs_plugin_status_t put(int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
        if (cfg_.deny_rma || !inner_->put) return refuse_rma();
        return late(inner_->put(state_, peer, local, nlocal, remote, nremote, rkey, token), token);
    }
    ccs_plugin_status_t get(int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
        if (cfg_.deny_rma || !inner_->get) return refuse_rma();
        return late(inner_->get(state_, peer, local, nlocal, remote, nremote, rkey, token), token);
    }
    ccs_plugin_status_t atomic(int32_t peer, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                               uint64_t compare, void *result, void *rkey, uint64_t token) {
        if (!CCS_PLUGIN_HAS(inner_, atomic)) return CCS_PLUGIN_ERR_UNSUPPORTED;
        return inner_->atomic(state_, peer, op, width, remote, operand, compare, result, rkey, token);
    }

private:
    // What the real plugin is given: the core's services, but for the ones
    // that must pass through here.
    void wrap_services() {
        inner_services_ = real_;
        inner_services_.core = this;
        inner_services_.param_get = [](void *self, const char *n, const char *default_value, const char *) {
            return inner_param(static_cast<altered_plugin *>(self)->inner_->name, n, default_value);
        };
        inner_services_.log = [](void *self, int32_t level, const char *message) {
            const auto *me = static_cast<altered_plugin *>(self);
            me->real_.log(me->real_.core, level, message);
        };
        inner_services_.am_deliver = [](void *self, int32_t source, const void *bytes, size_t length) {
            const auto *b = static_cast<const uint8_t *>(bytes);
            static_cast<altered_plugin *>(self)->batch_.push_back(event{source, false, {b, b + length}, {}});
        };
        inner_services_.peer_failed = [](void *self, int32_t peer, const char *reason) {
            const auto *r = reinterpret_cast<const uint8_t *>(reason);
            static_cast<altered_plugin *>(self)->failures_.push_back(event{peer, true, {r, r + std::strlen(reason) + 1}, {}});
        };
        inner_services_.rma_complete = [](void *self, uint64_t token, ccs_plugin_status_t status) {
            const auto *me = static_cast<altered_plugin *>(self);
            me->real_.rma_complete(me->real_.core, token, status);
        };
        inner_services_.mem_shareable = [](void *self, const void *addr, size_t length, int32_t *fd,
                                           uint64_t *offset, uint64_t *id) -> int32_t {
            const auto *me = static_cast<altered_plugin *>(self);
            if (!CCS_PLUGIN_HAS(&me->real_, mem_shareable)) return 0;
            return me->real_.mem_shareable(me->real_.core, addr, length, fd, offset, id);
        };
        inner_services_.am_send_complete = [](void *self, uint64_t token, ccs_plugin_status_t status) {
            const auto *me = static_cast<altered_plugin *>(self);
            if (CCS_PLUGIN_HAS(&me->real_, am_send_complete)) me->real_.am_send_complete(me->real_.core, token, status);
        };
        // The rest only pass through, with the core's own pointer.
        if (CCS_PLUGIN_HAS(&real_, am_place))
            inner_services_.am_place = [](void *self, int32_t source, const void *head, size_t head_length,
                                          size_t length, uint64_t *placement) {
                const auto *me = static_cast<altered_plugin *>(self);
                return me->real_.am_place(me->real_.core, source, head, head_length, length, placement);
            };
        if (CCS_PLUGIN_HAS(&real_, am_placed))
            inner_services_.am_placed = [](void *self, uint64_t placement, ccs_plugin_status_t status) {
                const auto *me = static_cast<altered_plugin *>(self);
                me->real_.am_placed(me->real_.core, placement, status);
            };
        if (CCS_PLUGIN_HAS(&real_, peer_send_lock))
            inner_services_.peer_send_lock = [](void *self, int32_t peer, int32_t take) {
                const auto *me = static_cast<altered_plugin *>(self);
                me->real_.peer_send_lock(me->real_.core, peer, take);
            };
        if (CCS_PLUGIN_HAS(&real_, local_acquire))
            inner_services_.local_acquire = [](void *self, const void *addr, size_t length, void **hold) {
                const auto *me = static_cast<altered_plugin *>(self);
                return me->real_.local_acquire(me->real_.core, addr, length, hold);
            };
        if (CCS_PLUGIN_HAS(&real_, local_release))
            inner_services_.local_release = [](void *self, void *hold) {
                const auto *me = static_cast<altered_plugin *>(self);
                me->real_.local_release(me->real_.core, hold);
            };
        if (CCS_PLUGIN_HAS(&real_, mem_unmapped))
            inner_services_.mem_unmapped = [](void *self, const void *addr, size_t length) {
                const auto *me = static_cast<altered_plugin *>(self);
                me->real_.mem_unmapped(me->real_.core, addr, length);
            };
        // Kept payloads would pass by the alterations of deliveries (and
        // this plugin has no am_parked_fetch to hand on): the real plugin
        // fetches every payload and delivers it whole.
        inner_services_.am_deliver_parked = nullptr;
        inner_services_.struct_size = sizeof inner_services_;
    }

    // A put or get the real plugin finished: with LATE_RMA, in progress.
    ccs_plugin_status_t late(ccs_plugin_status_t st, uint64_t token) {
        if (!cfg_.late_rma || st != CCS_PLUGIN_OK) return st;
        const std::lock_guard<std::mutex> hold(late_lock_);
        late_.push_back(token);
        return CCS_PLUGIN_IN_PROGRESS;
    }
    int32_t report_late_rma() {
        std::vector<uint64_t> done;
        {
            const std::lock_guard<std::mutex> hold(late_lock_);
            done.swap(late_);
        }
        for (uint64_t token : done) real_.rma_complete(real_.core, token, CCS_PLUGIN_OK);
        return static_cast<int32_t>(done.size());
    }

    static bool refused(const ccs_plugin_iov_v1_t &last) {
        return last.length >= refuse_mark_length &&
               std::memcmp(static_cast<const char *>(last.base) + last.length - refuse_mark_length, refuse_mark,
                           refuse_mark_length) == 0;
    }
    ccs_plugin_status_t refuse_rma() {
        if (cfg_.deny_rma && !rma_refusal_logged_) {
            rma_refusal_logged_ = true;
            real_.log(real_.core, CCS_PLUGIN_LOG_WARN, "altered: put and get refused (CCS_ALTERED_DENY_RMA=1)");
        }
        return CCS_PLUGIN_ERR_UNSUPPORTED;
    }

    // A packet the real plugin delivered, or a peer failure it reported
    // (bytes: the reason, with its terminating zero).
    struct event {
        int32_t source;
        bool failed;
        std::vector<uint8_t> bytes;
        std::chrono::steady_clock::time_point due;
    };

    ccs_plugin_services_v1_t real_;
    ccs_plugin_services_v1_t inner_services_{};
    config cfg_;
    std::string inner_missing_;  // why inner_ is null
    const ccs_plugin_v1_t *inner_;
    ccs_plugin_job_v1_t job_;
    void *state_ = nullptr;
    bool holding_;
    bool rma_refusal_logged_ = false;
    std::vector<event> batch_;     // packets the real plugin delivered in this progress()
    std::vector<event> failures_;  // failures it reported in this progress()
    std::deque<event> held_;       // waiting for their time
    std::mutex late_lock_;         // puts and gets may run beside progress
    std::vector<uint64_t> late_;   // tokens to report finished
    std::minstd_rand rng_{12345};
};

}  // namespace
}  // namespace ccs::test_plugins

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 =
    ccs::plugin::make_table<ccs::test_plugins::altered_plugin>();
