// Polling: the rings of senders that delivered lately ("watched": their
// senders skip the doorbell), then the doorbell, which names the others
// that have pushed since the last look. An idle call reads the watched
// rings' next stamps and one doorbell word, however many processes share
// the node. A bounded batch per ring, so one busy sender cannot starve the
// others.
#include "shm_plugin.hpp"

#include <atomic>
#include <string>

namespace ccs::shm {
namespace {
constexpr int batch = 32;
// While watched rings deliver, the doorbell is still read every so often,
// so the other senders wait a few calls at most.
constexpr uint32_t doorbell_every = 16;
}  // namespace

int shm_plugin::poll_from(uint32_t peer) {
    const int32_t source = local_ranks_[peer];
    ring_consumer &ring = from_[peer];
    const int n = ring.poll([&](const uint8_t *data, size_t length) { core_.deliver(source, data, length); }, batch);
    if (ring.must_acknowledge()) {
        // The bell rung for the marker goes first: once acknowledged, the
        // ring may be released, and only a new record's bell may unpark it.
        inbox_.clear(peer);
        ring.acknowledge_retire();
    }
    return n;
}

void shm_plugin::finish_retire(uint32_t peer) {
    outbound &out = out_[peer];
    out.retiring = false;
    release_outbound(peer);
    to_[peer].restart();
    log(CCS_PLUGIN_LOG_DEBUG, "ring to rank " + std::to_string(local_ranks_[peer]) + " unused for " +
                                  std::to_string(cfg_.ring_idle_ms) + " ms: its memory went back");
}

void shm_plugin::retire_idle_rings() {
    for (uint32_t peer = 0; peer < out_.size(); ++peer) {
        const auto hold = send_side(peer);
        outbound &out = out_[peer];
        if (!out.reserved || failed_[peer]) continue;
        if (out.retiring) {
            if (to_[peer].retired()) finish_retire(peer);
            continue;
        }
        // A push without a bell relied on the receiver looking at the ring
        // again, which it does for thousands of polls after its last record;
        // a bell now and then makes that independent of timing.
        announce_unannounced(peer);
        if (out.used) {
            out.used = false;
            out.idle_looks = 0;
            continue;
        }
        // Unused for two looks (one whole interval), and the receiver has
        // taken everything: nothing is lost by starting over later.
        if (++out.idle_looks < 2 || !to_[peer].drained() || !to_[peer].retire()) continue;
        out.retiring = true;
        bells_[peer].ring(me_);
    }
}

void shm_plugin::watch(uint32_t peer) {
    if (from_[peer].parked()) return;
    int32_t &slot = watch_slot_[peer];
    if (slot < 0) {
        slot = static_cast<int32_t>(watched_.size());
        watched_.push_back({peer, 0});
    } else {
        watched_[static_cast<size_t>(slot)].idle_polls = 0;
    }
    from_[peer].say_watched(true);
}

void shm_plugin::unwatch(size_t index) {
    const uint32_t peer = watched_[index].peer;
    const watched_ring last = watched_.back();
    watched_.pop_back();
    if (index < watched_.size()) {
        watched_[index] = last;
        watch_slot_[last.peer] = static_cast<int32_t>(index);
    }
    watch_slot_[peer] = -1;
}

int shm_plugin::answer_doorbell() {
    int events = 0;
    inbox_.take([&](uint32_t peer) {
        // A bell from a peer whose ring was given back (it failed), or a
        // forged index: nothing to read.
        if (peer >= present_.size() || !present_[peer] || released_[peer]) return;
        // A bell after a retire means a new record in a ring started anew,
        // unless it was rung for the marker itself.
        if (!from_[peer].unpark()) return;
        events += poll_from(peer);
        watch(peer);
    });
    return events;
}

void shm_plugin::release_outbound(uint32_t peer) {
    if (!out_[peer].reserved) return;
    out_[peer].reserved = false;
    const std::string err = segment_.release_ring(me_, peer);
    if (!err.empty()) log(CCS_PLUGIN_LOG_WARN, err);
}

void shm_plugin::release_inbound(uint32_t peer) {
    if (released_[peer]) return;
    released_[peer] = true;
    const std::string err = segment_.release_ring(peer, me_);
    if (!err.empty()) log(CCS_PLUGIN_LOG_WARN, err);
}

int shm_plugin::check_peers_alive() {
    int events = 0;
    bool answered = false;
    for (uint32_t peer = 0; peer < present_.size(); ++peer) {
        if (!present_[peer] || failed_[peer]) continue;
        const int32_t pid = segment_.pid(peer).load(std::memory_order_acquire);
        // Attached peers publish their pid before the wire-up completes; a
        // zero means it never got that far, which is also a failure.
        if (pid != 0 && plugin::process_exists(pid)) continue;
        // Stop sending; keep polling: what it sent before dying still counts.
        {
            const auto hold = send_side(peer);
            std::atomic_ref<uint8_t>(failed_[peer]).store(1, std::memory_order_relaxed);  // cma() reads it beside
            release_outbound(peer);
        }
        // A ring it rang for is watched now, and given back once drained
        // (progress); one it did not ring for holds nothing to deliver.
        if (!answered) {
            events += answer_doorbell();
            answered = true;
        }
        if (watch_slot_[peer] < 0) release_inbound(peer);
        const std::string why = "process " + std::to_string(pid) + " (local " + std::to_string(peer) + ") is gone";
        core_.peer_failed(local_ranks_[peer], why);
    }
    return events;
}

int32_t shm_plugin::progress() {
    if (armed_) disarm();
    int32_t events = 0;
    for (size_t i = 0; i < watched_.size();) {
        const uint32_t peer = watched_[i].peer;
        const int n = poll_from(peer);
        events += n;
        ring_consumer &ring = from_[peer];
        // Retired (nothing more to read until a bell), or its sender died
        // and nothing is left: a dead peer's ring goes back.
        if (ring.parked() || (n == 0 && failed_[peer])) {
            unwatch(i);
            if (failed_[peer]) release_inbound(peer);
            continue;
        }
        uint32_t &idle = watched_[i].idle_polls;
        if (n > 0) {
            if (idle >= unwatch_after) ring.say_watched(true);
            idle = 0;
        } else if (++idle == unwatch_after) {
            ring.say_watched(false);
        } else if (idle >= drop_after) {
            unwatch(i);
            continue;
        }
        ++i;
    }
    if (events == 0 || ++doorbell_turn_ % doorbell_every == 0) events += answer_doorbell();
    if (ring_aging_.due()) retire_idle_rings();
    if (liveness_.due()) events += check_peers_alive();
    return events;
}

}  // namespace ccs::shm
