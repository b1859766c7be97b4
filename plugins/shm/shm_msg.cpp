// Sending: one packet becomes one ring record, copied straight from the
// caller's pieces.
#include "shm_plugin.hpp"

#include <cstring>

namespace ccs::shm {
ccs_plugin_status_t shm_plugin::am_send(int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count) {
    if (!reachable(peer) || count > 4) return CCS_PLUGIN_ERR_INVALID;
    const auto local = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
    if (failed_[local]) return CCS_PLUGIN_ERR_PEER_FAILED;
    ring_piece pieces[4];
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) {
        pieces[i] = {iov[i].base, iov[i].length};
        total += iov[i].length;
    }
    if (total > cfg_.max_packet) return CCS_PLUGIN_ERR_INVALID;
    return to_[local].push(pieces, count, total) ? CCS_PLUGIN_OK : CCS_PLUGIN_AGAIN;
}

}  // namespace ccs::shm
