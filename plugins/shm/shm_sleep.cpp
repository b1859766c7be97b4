// Sleeping until a local peer sends. Arming says "asleep" in this process's
// doorbell, then looks once more at everything a sender could have pushed
// to: a sender rings the bell (a full barrier) before it reads that word,
// and this side writes the word before it looks, so one of the two sees the
// other. Watched rings are told to ring again first, since their senders
// skip the bell; a push that read the old word just before is still bounded
// by the core's sleep slice, and by the sender's own next look at its
// unannounced pushes.
#include "shm_plugin.hpp"

#include <algorithm>

namespace ccs::shm {

int32_t shm_plugin::wakeup_fd() const { return wake_.fd(); }

ccs_plugin_status_t shm_plugin::wakeup_arm() {
    if (wake_.fd() < 0) return CCS_PLUGIN_ERR_UNSUPPORTED;
    // Alone on the node (or without the segment): nothing can arrive here.
    if (!inbox_.exists()) return CCS_PLUGIN_OK;
    // Our own pushes that went without a bell reach a peer that may sleep.
    for (uint32_t peer = 0; peer < out_.size(); ++peer) {
        const auto hold = send_side(peer);
        announce_unannounced(peer);
    }
    // A parked ring's memory may be gone: it is neither told nor read.
    for (watched_ring &w : watched_) {
        if (from_[w.peer].parked()) continue;
        from_[w.peer].say_watched(false);
        w.idle_polls = std::max(w.idle_polls, unwatch_after);
    }
    inbox_.say_sleeping(true);
    bool ready = inbox_.rung();
    for (const watched_ring &w : watched_) ready = ready || (!from_[w.peer].parked() && !from_[w.peer].empty());
    if (ready) {
        inbox_.say_sleeping(false);
        return CCS_PLUGIN_AGAIN;
    }
    armed_ = true;
    return CCS_PLUGIN_OK;
}

void shm_plugin::disarm() {
    armed_ = false;
    if (inbox_.exists()) inbox_.say_sleeping(false);
    wake_.drain();
    // A sleep may have lasted long: a dead peer is looked for at once.
    liveness_.look_next();
}

void shm_plugin::announce(uint32_t peer) {
    bells_[peer].ring(me_);
    if (bells_[peer].take_sleeper()) wake_.wake(peer);
}

void shm_plugin::announce_unannounced(uint32_t peer) {
    if (!out_[peer].unannounced) return;
    out_[peer].unannounced = false;
    announce(peer);
}

}  // namespace ccs::shm
