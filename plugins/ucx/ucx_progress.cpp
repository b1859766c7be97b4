// Polling: let UCX progress, then hand the core what its callbacks recorded
// (packets, finished sends, puts and gets, failed peers), outside UCX.
#include "ucx_callbacks.hpp"

namespace ccs::ucx {
namespace {

// Hands each recorded (key, value) to `report`, from a list swapped out
// first: what a report sets off may record more. Returns how many.
template <typename List, typename Report>
int32_t drain(List &list, Report report) {
    if (list.empty()) return 0;
    List taken;
    taken.swap(list);
    for (const auto &[key, value] : taken) report(key, value);
    return static_cast<int32_t>(taken.size());
}

}  // namespace

int32_t ucx_plugin::progress() {
    // Once per call: over TCP each round is an epoll system call, and a
    // second round to find nothing more cost a microsecond per message.
    // The core polls again at once while there are events.
    int32_t events = static_cast<int32_t>(ucp_worker_progress(worker_));
    if (!waiting_rendezvous_.empty()) [[unlikely]]
        start_rendezvous();
    if (delivered_ < arrivals_.size()) events += deliver_arrivals();
    if (reports_) [[unlikely]]
        events += report();
    if (liveness_.due()) [[unlikely]]
        check_peers_alive();
    return events;
}

int32_t ucx_plugin::deliver_arrivals() {
    int32_t n = 0;
    // delivered_ moves before each delivery, so a nested progress (a
    // handler waiting for its RMA) goes on with the next one.
    while (delivered_ < arrivals_.size()) {
        arrival &a = *arrivals_[delivered_++];
        if (a.parked) [[unlikely]]
            deliver_parked(a);
        else
            core_.deliver(a.source, a.bytes(), a.length);
        release(a);
        ++n;
    }
    arrivals_.clear();  // all delivered, here or nested
    delivered_ = 0;
    return n;
}

int32_t ucx_plugin::report() {
    reports_ = false;
    // Loop steps first: the last of each reports its operation below.
    std::vector<rma_request *> steps;
    steps.swap(compare_and_swap_steps_);
    for (rma_request *r : steps) continue_compare_and_swap(r);
    int32_t events = drain(finished_sends_, [&](uint64_t token, ucs_status_t status) {
        core_.am_send_complete(token, status_from_ucs(status));
    });
    events += drain(finished_rma_, [&](uint64_t token, ucs_status_t status) {
        core_.rma_complete(token, status_from_ucs(status));
    });
    events += drain(finished_placements_, [&](uint64_t placement, ucs_status_t status) {
        core_.placed(placement, status_from_ucs(status));
    });
    events += drain(failed_peers_, [&](int32_t rank, const std::string &why) { core_.peer_failed(rank, why); });
    return events;
}

}  // namespace ccs::ucx
