// A job of verbs plugin instances in one process, one per rank, each on
// its own host of a software fabric, each with a core that records what
// the plugin tells it. Progress is driven by the test.
#pragma once

#include "soft_fabric.hpp"
#include "verbs_plugin.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccs::verbs::testing {

struct recorded_core {
    std::map<std::string, std::string> params;  // CCS_VERBS_<name> values
    std::vector<std::string> log;
    std::vector<std::pair<int32_t, std::vector<uint8_t>>> delivered;
    std::vector<std::pair<uint64_t, ccs_plugin_status_t>> completed;
    std::vector<std::pair<int32_t, std::string>> failed;
    verbs_plugin *plugin = nullptr;  // lends local memory by its mem_reg
    size_t loans = 0;                // local regions lent and not given back
    // Called on each delivery, from inside progress (a handler).
    std::function<void(int32_t source, const uint8_t *packet, size_t length)> on_deliver;

    ccs_plugin_services_v1_t services();
    // Whether `token` completed, and how.
    bool done(uint64_t token, ccs_plugin_status_t *status = nullptr) const;
};

class soft_job {
public:
    // `ranks` plugins; `params` for every rank's core (e.g. {"CREDITS", "4"}).
    explicit soft_job(int ranks, std::map<std::string, std::string> params = {},
                      std::vector<soft_device_spec> devices = {soft_device_spec{}});
    ~soft_job();

    soft_fabric fabric;
    verbs_plugin &plugin(int rank) { return *plugins_[static_cast<size_t>(rank)]; }
    recorded_core &core(int rank) { return *cores_[static_cast<size_t>(rank)]; }
    soft_host &host(int rank) { return *hosts_[static_cast<size_t>(rank)]; }
    int size() const { return static_cast<int>(plugins_.size()); }
    bool ready() const { return ready_; }
    std::string why_not_ready() const { return why_; }

    void progress_all();
    // Progress every rank (but `skip`) until `done`, for at most `seconds`.
    bool until(const std::function<bool()> &done, double seconds = 5, int skip = -1);
    // Sends `bytes` from `from` to `to`, progressing everyone (but `skip`)
    // while AGAIN, for at most `seconds`.
    ccs_plugin_status_t send(int from, int to, const std::vector<uint8_t> &bytes, double seconds = 5, int skip = -1);
    // Ends rank `rank`'s plugin (its host stays, dead or alive).
    void finalize(int rank);

private:
    std::vector<std::unique_ptr<recorded_core>> cores_;
    std::vector<soft_host *> hosts_;
    std::vector<std::unique_ptr<verbs_plugin>> plugins_;
    std::vector<uint32_t> nodes_;
    bool ready_ = false;
    std::string why_;
};

}  // namespace ccs::verbs::testing
