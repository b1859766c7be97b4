// Polling: let UCX progress, then hand the core what its callbacks recorded
// (packets, finished puts and gets, failed peers), outside UCX.
#include "ucx_callbacks.hpp"

namespace ccs::ucx {
namespace {
// Enough rounds to drain a burst without starving the other plugins.
constexpr int max_rounds = 16;
}  // namespace

int32_t state::progress() {
    int32_t events = 0;
    for (int i = 0; i < max_rounds && ucp_worker_progress(worker_) != 0; ++i) ++events;
    while (!arrivals_.empty()) {
        arrival a = std::move(arrivals_.front());
        arrivals_.pop_front();
        const void *bytes = a.ucx_data ? a.ucx_data : static_cast<const void *>(a.copy->data());
        services_.am_deliver(services_.core, a.source, bytes, a.length);
        if (a.ucx_data) ucp_am_data_release(worker_, a.ucx_data);
        else spare_receive_buffers_.push_back(std::move(a.copy));
        ++events;
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
