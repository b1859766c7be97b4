// Sending: one packet becomes one ring record, copied straight from the
// caller's pieces, then the receiver's doorbell is rung unless it says it
// polls this ring on every call. The first record to a peer reserves the
// ring's memory; the first after the ring was retired waits for the
// receiver's acknowledgement, then reserves anew.
#include "shm_plugin.hpp"

#include <cstring>
#include <string>

namespace ccs::shm {
ccs_plugin_status_t shm_plugin::am_send(int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
    if (!reachable(peer) || count > 4) return CCS_PLUGIN_ERR_INVALID;
    const auto local = static_cast<uint32_t>(local_index_[static_cast<size_t>(peer)]);
    if (failed_[local]) return CCS_PLUGIN_ERR_PEER_FAILED;
    ring_piece pieces[4];
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) {
        pieces[i] = {iov[i].base, iov[i].length};
        total += iov[i].length;
    }
    if (total > cfg_.max_packet) return CCS_PLUGIN_ERR_INVALID;
    outbound &out = out_[local];
    if (out.retiring) {
        if (!to_[local].retired()) {
            // The marker's bell is in its doorbell; a sleeping receiver
            // acknowledges once woken.
            if (bells_[local].take_sleeper()) wake_.wake(local);
            return CCS_PLUGIN_AGAIN;
        }
        finish_retire(local);
    }
    if (!out.reserved) {
        const std::string err = segment_.reserve_ring(me_, local);
        if (!err.empty()) {
            log(CCS_PLUGIN_LOG_ERROR, "no ring to rank " + std::to_string(peer) + ": " + err);
            return CCS_PLUGIN_ERR_NO_MEMORY;
        }
        out.reserved = true;
    }
    if (!to_[local].push(pieces, count, total)) return CCS_PLUGIN_AGAIN;
    out.used = true;
    // A receiver that polls this ring on every call needs no bell, whose
    // locked OR would stall a stream of sends on every one.
    if (!to_[local].consumer_watching()) announce(local);
    else out.unannounced = true;
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::shm
