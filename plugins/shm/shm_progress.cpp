// Polling: drain each inbound ring in turn, a bounded batch per ring so
// one busy sender cannot starve the others.
#include "shm_plugin.hpp"

#include <string>

namespace ccs::shm {
namespace {
constexpr int batch = 32;
}  // namespace

void shm_plugin::check_peers_alive() {
    for (uint32_t peer = 0; peer < present_.size(); ++peer) {
        if (!present_[peer] || failed_[peer]) continue;
        const int32_t pid = segment_.pid(peer).load(std::memory_order_acquire);
        // Attached peers publish their pid before the wire-up completes; a
        // zero means it never got that far, which is also a failure.
        if (pid != 0 && plugin::process_exists(pid)) continue;
        // Stop sending; keep polling: what it sent before dying still counts.
        failed_[peer] = true;
        const std::string why = "process " + std::to_string(pid) + " (local " + std::to_string(peer) + ") is gone";
        core_.peer_failed(local_ranks_[peer], why);
    }
}

// Called on every ccs_progress, mostly idle: a list of the connected peers
// and no division, so an idle poll is a load per peer and little else.
int32_t shm_plugin::progress() {
    const auto n = static_cast<uint32_t>(polled_.size());
    int32_t events = 0;
    uint32_t at = poll_start_;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t peer = polled_[at];
        at = at + 1 == n ? 0 : at + 1;
        const int32_t source = local_ranks_[peer];
        events += from_[peer].poll(
            [&](const uint8_t *data, size_t length) { core_.deliver(source, data, length); },
            batch);
    }
    poll_start_ = poll_start_ + 1 >= n ? 0 : poll_start_ + 1;
    if (liveness_.due()) check_peers_alive();
    return events;
}

}  // namespace ccs::shm
