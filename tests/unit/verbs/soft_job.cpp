// The recording core and the job of plugins on a software fabric.
#include "soft_job.hpp"

#include <chrono>

namespace ccs::verbs::testing {
namespace {

recorded_core &self(void *core) { return *static_cast<recorded_core *>(core); }

}  // namespace

ccs_plugin_services_v1_t recorded_core::services() {
    ccs_plugin_services_v1_t s{};
    s.struct_size = sizeof s;
    s.core = this;
    s.log = [](void *core, int32_t, const char *message) { self(core).log.emplace_back(message); };
    s.param_get = [](void *core, const char *name, const char *default_value, const char *) -> const char * {
        const auto it = self(core).params.find(name);
        return it == self(core).params.end() ? default_value : it->second.c_str();
    };
    s.am_deliver = [](void *core, int32_t source, const void *packet, size_t length) {
        const auto *b = static_cast<const uint8_t *>(packet);
        self(core).delivered.emplace_back(source, std::vector<uint8_t>(b, b + length));
        if (self(core).on_deliver) self(core).on_deliver(source, b, length);
    };
    s.peer_failed = [](void *core, int32_t peer, const char *reason) { self(core).failed.emplace_back(peer, reason); };
    s.rma_complete = [](void *core, uint64_t token, ccs_plugin_status_t status) {
        self(core).completed.emplace_back(token, status);
    };
    s.local_acquire = [](void *core, const void *addr, size_t length, void **hold) -> void * {
        void *memh = nullptr;
        if (self(core).plugin->mem_reg(const_cast<void *>(addr), length, &memh) != CCS_PLUGIN_OK) return nullptr;
        *hold = memh;
        ++self(core).loans;
        return memh;
    };
    s.local_release = [](void *core, void *hold) {
        self(core).plugin->mem_dereg(hold);
        --self(core).loans;
    };
    return s;
}

bool recorded_core::done(uint64_t token, ccs_plugin_status_t *status) const {
    for (const auto &[t, st] : completed)
        if (t == token) {
            if (status) *status = st;
            return true;
        }
    return false;
}

soft_job::soft_job(int ranks, std::map<std::string, std::string> params, std::vector<soft_device_spec> devices) {
    for (int r = 0; r < ranks; ++r) nodes_.push_back(static_cast<uint32_t>(r));
    for (int r = 0; r < ranks; ++r) {
        hosts_.push_back(&fabric.add_host(devices));
        cores_.push_back(std::make_unique<recorded_core>());
        recorded_core &core = *cores_.back();
        core.params = params;
        const ccs_plugin_services_v1_t services = core.services();
        config cfg;
        std::string reason;
        if (!verbs_plugin::read_config(plugin::core_services(services, "verbs"), cfg, reason)) {
            why_ = reason;
            return;
        }
        ccs_plugin_job_v1_t job{sizeof(ccs_plugin_job_v1_t), r, ranks, "soft", nodes_.data(),
                                static_cast<uint32_t>(ranks)};
        plugins_.push_back(std::make_unique<verbs_plugin>(services, job, cfg, *hosts_.back()));
        core.plugin = plugins_.back().get();
        if (plugins_.back()->init() != CCS_PLUGIN_OK) {
            why_ = "init of rank " + std::to_string(r) + " failed: " + (core.log.empty() ? "" : core.log.back());
            return;
        }
    }
    std::vector<std::vector<uint8_t>> addresses(static_cast<size_t>(ranks));
    std::vector<const void *> pointers;
    std::vector<size_t> lengths;
    for (int r = 0; r < ranks; ++r) {
        size_t n = 256;
        addresses[static_cast<size_t>(r)].resize(n);
        if (plugin(r).address(addresses[static_cast<size_t>(r)].data(), &n) != CCS_PLUGIN_OK) {
            why_ = "address of rank " + std::to_string(r);
            return;
        }
        pointers.push_back(addresses[static_cast<size_t>(r)].data());
        lengths.push_back(n);
    }
    for (int r = 0; r < ranks; ++r)
        if (plugin(r).connect(pointers.data(), lengths.data()) != CCS_PLUGIN_OK) {
            why_ = "connect of rank " + std::to_string(r);
            return;
        }
    ready_ = true;
}

soft_job::~soft_job() {
    for (auto &p : plugins_) p.reset();
}

void soft_job::finalize(int rank) { plugins_[static_cast<size_t>(rank)].reset(); }

void soft_job::progress_all() {
    for (auto &p : plugins_)
        if (p) p->progress();
}

bool soft_job::until(const std::function<bool()> &done, double seconds, int skip) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        for (size_t r = 0; r < plugins_.size(); ++r)
            if (plugins_[r] && static_cast<int>(r) != skip) plugins_[r]->progress();
    }
    return true;
}

ccs_plugin_status_t soft_job::send(int from, int to, const std::vector<uint8_t> &bytes, double seconds, int skip) {
    const ccs_plugin_iov_v1_t iov{bytes.data(), bytes.size()};
    ccs_plugin_status_t st = CCS_PLUGIN_AGAIN;
    until(
        [&] {
            st = plugin(from).am_send(to, &iov, 1);
            return st != CCS_PLUGIN_AGAIN;
        },
        seconds, skip);
    return st;
}

}  // namespace ccs::verbs::testing
