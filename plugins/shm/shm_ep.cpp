// Endpoints of the shm plugin: who is local, segment creation and attach,
// ring ends per local peer.
#include "shm_plugin.hpp"

#include <cstring>

#include <unistd.h>

namespace ccs::shm {

shm_plugin::shm_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
    : core_(services, name), cfg_(cfg), rank_(job.rank), job_id_(job.job_id ? job.job_id : ""),
      ring_aging_(std::chrono::milliseconds(cfg.ring_idle_ms) / 2, 64), bulk_copy_(cfg.bulk) {
    const uint32_t my_node = job.node_of_rank[job.rank];
    local_index_.assign(static_cast<size_t>(job.size), -1);
    for (int32_t r = 0; r < job.size; ++r) {
        if (job.node_of_rank[r] != my_node) continue;
        local_index_[static_cast<size_t>(r)] = static_cast<int32_t>(local_ranks_.size());
        local_ranks_.push_back(r);
    }
    me_ = static_cast<uint32_t>(local_index_[static_cast<size_t>(rank_)]);
    leader_ = me_ == 0;
    segment_name_ = segment_name(job_id_, my_node);
}

void shm_plugin::log(int32_t level, const std::string &message) const {
    core_.log(level, message);
}

ccs_plugin_status_t shm_plugin::init() {
    // Without its wake-up socket a process still works; the core then
    // sleeps only in short slices.
    const std::string wake_err = wake_.open(segment_name_, me_);
    if (!wake_err.empty()) log(CCS_PLUGIN_LOG_WARN, "no wake-up socket, so waits sleep in short slices: " + wake_err);
    if (local_ranks_.size() < 2 || !leader_) return CCS_PLUGIN_OK;  // attach happens in connect
    const std::string err =
        segment_.create(segment_name_, static_cast<uint32_t>(local_ranks_.size()), cfg_.ring_capacity);
    if (!err.empty()) {
        log(CCS_PLUGIN_LOG_ERROR, "cannot create the shared segment: " + err);
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    return CCS_PLUGIN_OK;
}

// Every process publishes one byte: 1 if it can take part. The segment name
// is derived from the job id, which every process already knows.
ccs_plugin_status_t shm_plugin::address(void *buffer, size_t *length) const {
    if (*length < 1) return CCS_PLUGIN_ERR_INVALID;
    static_cast<uint8_t *>(buffer)[0] = 1;
    *length = 1;
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t shm_plugin::connect(const void *const *addresses, const size_t *lengths) {
    const auto n = static_cast<uint32_t>(local_ranks_.size());
    present_.assign(n, false);
    failed_.assign(n, 0);
    to_.assign(n, ring_producer{});
    from_.assign(n, ring_consumer{});
    out_.assign(n, outbound{});
    released_.assign(n, false);
    bells_.assign(n, doorbell{});
    watch_slot_.assign(n, -1);
    watched_.clear();
    if (n < 2) return CCS_PLUGIN_OK;
    const int32_t leader_rank = local_ranks_[0];
    if (!addresses[leader_rank] || lengths[leader_rank] < 1) {
        log(CCS_PLUGIN_LOG_INFO, "the node's first process has no shm segment; no local peer is reachable");
        return CCS_PLUGIN_OK;
    }
    if (!leader_) {
        const std::string err = segment_.attach(segment_name_, n, cfg_.ring_capacity);
        if (!err.empty()) {
            log(CCS_PLUGIN_LOG_ERROR, "cannot attach the shared segment: " + err);
            return CCS_PLUGIN_ERR_SYSTEM;
        }
    }
    segment_.pid(me_).store(static_cast<int32_t>(::getpid()), std::memory_order_release);
    inbox_ = segment_.bell(me_);
    // Only pointers here: a ring's memory is reserved on its first record.
    for (uint32_t peer = 0; peer < n; ++peer) {
        const int32_t r = local_ranks_[peer];
        if (peer == me_ || !addresses[r] || lengths[r] < 1) continue;
        present_[peer] = true;
        bells_[peer] = segment_.bell(peer);
        to_[peer] = ring_producer(segment_.control(me_, peer), segment_.data(me_, peer), cfg_.ring_capacity);
        from_[peer] = ring_consumer(segment_.control(peer, me_), segment_.data(peer, me_), cfg_.ring_capacity);
    }
    return CCS_PLUGIN_OK;
}

bool shm_plugin::reachable(int32_t peer) const {
    if (peer < 0 || static_cast<size_t>(peer) >= local_index_.size()) return false;
    const int32_t local = local_index_[static_cast<size_t>(peer)];
    return local >= 0 && static_cast<uint32_t>(local) != me_ && present_[static_cast<size_t>(local)];
}

ccs_plugin_status_t shm_plugin::wireup_complete() {
    const std::string err = segment_.unlink();  // everyone has attached
    if (!err.empty()) {
        log(CCS_PLUGIN_LOG_WARN, err);
        return CCS_PLUGIN_ERR_SYSTEM;
    }
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::shm
