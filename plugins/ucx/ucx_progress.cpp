// Polling: let UCX progress, then hand the core what its callbacks recorded
// (packets, finished puts and gets, failed peers), outside UCX.
#include "ucx_callbacks.hpp"

namespace ccs::ucx {
int32_t state::progress() {
    // Once per call: over TCP each round is an epoll system call, and a
    // second round to find nothing more cost a microsecond per message.
    // The core polls again at once while there are events.
    int32_t events = static_cast<int32_t>(ucp_worker_progress(worker_));
    if (!waiting_rendezvous_.empty()) start_rendezvous();
    while (!arrivals_.empty()) {
        arrival a = std::move(arrivals_.front());
        arrivals_.pop_front();
        const void *bytes = a.ucx_data ? a.ucx_data : static_cast<const void *>(a.copy->data());
        services_.am_deliver(services_.core, a.source, bytes, a.length);
        if (a.ucx_data) ucp_am_data_release(worker_, a.ucx_data);
        else give_back(std::move(a.copy));
        ++events;
    }
    if (!finished_sends_.empty()) {
        std::vector<std::pair<uint64_t, ucs_status_t>> done;
        done.swap(finished_sends_);
        for (const auto &[token, status] : done)
            services_.am_send_complete(services_.core, token, status_from_ucs(status));
        events += static_cast<int32_t>(done.size());
    }
    if (!finished_rma_.empty()) {
        std::vector<std::pair<uint64_t, ucs_status_t>> done;
        done.swap(finished_rma_);
        for (const auto &[token, status] : done)
            services_.rma_complete(services_.core, token, status_from_ucs(status));
        events += static_cast<int32_t>(done.size());
    }
    if (++polls_since_check_ >= 4096) {  // the clock only now and then
        polls_since_check_ = 0;
        check_peers_alive();
    }
    if (!failed_peers_.empty()) {
        std::vector<std::pair<int32_t, std::string>> failed;
        failed.swap(failed_peers_);
        for (const auto &[rank, why] : failed) services_.peer_failed(services_.core, rank, why.c_str());
        events += static_cast<int32_t>(failed.size());
    }
    return events;
}

}  // namespace ccs::ucx
