// The shm plugin in one process: who is on this node, the shared
// segment, and one producer and one consumer ring end per local peer,
// the rings reserved on first contact and polled when their sender rings.
#pragma once

#include "shm_copy.hpp"
#include "shm_ring.hpp"
#include "shm_segment.hpp"
#include "shm_wakeup.hpp"

#include "common/core_services.hpp"
#include "common/process_liveness.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <atomic>
#include <map>
#include <utility>
#include <sys/uio.h>
#include <string>
#include <vector>

namespace ccs::shm {

struct config {
    size_t ring_capacity = 256 * 1024;
    size_t ring_idle_ms = 1000;  // unused this long, a ring's memory goes back
    size_t max_packet = 32 * 1024;
    bulk_copy::method bulk = bulk_copy::method::trial;
};

class shm_plugin {
public:
    static constexpr const char *name = "shm";
    using config = shm::config;
    // shm_attr.cpp: CCS_SHM_* (false + reason on a bad value) and what the
    // plugin can do on this machine.
    static bool read_config(const plugin::core_services &core, config &out, std::string &reason);
    static ccs_plugin_status_t query(const plugin::core_services &core, const config &cfg, ccs_plugin_attr_v1_t &attr);

    shm_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg);
    ~shm_plugin() { unmap_all(); }
    shm_plugin(const shm_plugin &) = delete;
    shm_plugin &operator=(const shm_plugin &) = delete;

    void log(int32_t level, const std::string &message) const;

    ccs_plugin_status_t init();
    ccs_plugin_status_t address(void *buffer, size_t *length) const;
    ccs_plugin_status_t connect(const void *const *addresses, const size_t *lengths);
    bool reachable(int32_t peer) const;
    ccs_plugin_status_t wireup_complete();
    ccs_plugin_status_t am_send(int32_t peer, const ccs_plugin_iov_v1_t *iov, size_t count);
    // From now on sends to different peers may run at once. Each local
    // peer's send side (its ring, its outbound record, its failure) is
    // then changed by progress() only under the core's send lock for it;
    // am_send runs under that lock already.
    ccs_plugin_status_t am_send_concurrent() {
        concurrent_ = true;
        return CCS_PLUGIN_OK;
    }
    int32_t progress();
    // shm_sleep.cpp: sleeping until a local peer sends.
    int32_t wakeup_fd() const;
    ccs_plugin_status_t wakeup_arm();

    // shm_rma.cpp: single-copy RMA, by mapping or cross-memory attach.
    ccs_plugin_status_t mem_reg(void *addr, size_t length, void **memh);
    void mem_dereg(void *memh);
    ccs_plugin_status_t rkey_pack(void *memh, void *buffer, size_t *length) const;
    ccs_plugin_status_t rkey_unpack(int32_t peer, const void *buffer, size_t length, void **rkey);
    void rkey_release(void *rkey);
    ccs_plugin_status_t rkey_ptr(void *rkey, uint64_t remote, size_t length, void **local) const;
    ccs_plugin_status_t put(int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    ccs_plugin_status_t get(int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    // Puts and gets finish in the call, and what they share with other
    // calls is read-only to them or made safe (a peer's failure flag, the
    // bulk copy's trial): any thread may make them at any time.
    ccs_plugin_status_t rma_concurrent() const { return CCS_PLUGIN_OK; }

private:
    // Every so often: is each local peer's process still there? Returns
    // the records it delivered on the way.
    int check_peers_alive();
    // Delivers up to a batch of records from one local peer's ring; a ring
    // its sender retired is acknowledged and no longer watched.
    int poll_from(uint32_t peer);
    // Every so often: rings to peers unused for a while are retired, and
    // those whose receiver acknowledged go back to the system.
    void retire_idle_rings();
    // The receiver acknowledged: the memory goes back; the ring starts
    // empty at its next reservation.
    void finish_retire(uint32_t peer);
    // Polls the rings of the senders that rang; they are watched from then on.
    int answer_doorbell();
    void watch(uint32_t peer);
    // Rings `peer`'s doorbell for my ring, and wakes it if it sleeps.
    void announce(uint32_t peer);
    // The same if a push to it went without a bell since the last look.
    void announce_unannounced(uint32_t peer);
    // The first progress after wakeup_arm: awake again.
    void disarm();
    wakeup_socket wake_;
    bool armed_ = false;
    // A failed peer's ring to it, and its ring here once drained, go back
    // to the system; its doorbell is ignored from then on.
    void release_inbound(uint32_t peer);
    void release_outbound(uint32_t peer);

    plugin::core_services core_;
    config cfg_;
    int32_t rank_;
    std::string job_id_;
    std::vector<int32_t> local_ranks_;   // world ranks on this node, ascending
    std::vector<int32_t> local_index_;   // world rank -> local index or -1
    uint32_t me_ = 0;                    // my local index
    bool leader_ = false;                // lowest rank on the node: creates
    std::string segment_name_;
    segment segment_;
    std::vector<bool> present_;          // local peer index -> connected
    std::vector<uint8_t> failed_;        // its process is gone: no more sends
    std::vector<ring_producer> to_;      // indexed by local peer
    std::vector<ring_consumer> from_;
    struct outbound {
        bool reserved = false;  // my ring to it has its memory
        bool retiring = false;  // retire marker pushed, not acknowledged yet
        bool used = false;      // pushed to since the last look
        bool unannounced = false;  // a push went without a bell since the last look
        uint32_t idle_looks = 0;
    };
    std::vector<outbound> out_;
    // Sends may run on several threads: progress() takes the core's send
    // lock for a peer before it changes to_, out_ or failed_ of it.
    bool concurrent_ = false;
    plugin::core_services::send_lock_hold send_side(uint32_t peer) const {
        return {core_, local_ranks_[peer], concurrent_};
    }
    std::vector<bool> released_;         // its ring to me was given back
    std::vector<doorbell> bells_;        // each local peer's doorbell, to ring
    doorbell inbox_;                     // mine
    // Rings polled on every call, whose senders then skip the doorbell
    // (its locked OR would stall a stream of sends, its cache miss delay
    // each message): those that delivered lately. Each says so in its
    // control; it stops saying so some thousands of polls before it is
    // dropped from the list, so a push that read the old word is found.
    struct watched_ring {
        uint32_t peer;
        uint32_t idle_polls;
    };
    // Idle polls before a watched ring tells its sender to ring the doorbell
    // again, and before it leaves the list: long enough that a ping-pong
    // partner stays in it, short enough that a burst long past stops costing a
    // load per call. In between it is still polled, so a push whose sender
    // read "watched" just before the change is found without a bell.
    static constexpr uint32_t unwatch_after = 4096;
    static constexpr uint32_t drop_after = 2 * unwatch_after;
    std::vector<watched_ring> watched_;
    std::vector<int32_t> watch_slot_;  // local peer -> index in watched_ or -1
    void unwatch(size_t index);
    uint32_t doorbell_turn_ = 0;
    plugin::liveness_pacer liveness_;
    // Every 64 polls, not 4096: a process that polls rarely (it computes,
    // or sleeps between polls) still gives back rings it no longer uses.
    plugin::liveness_pacer ring_aging_;
    // Moves bytes between local and remote segments with process_vm_*v.
    ccs_plugin_status_t cma(bool write, int32_t peer, struct iovec *local, size_t nlocal, struct iovec *remote,
                            size_t nremote, void *rkey);
    std::atomic<bool> cma_refused_{false};  // said once in the log
    bulk_copy bulk_copy_;                // megabyte copies into and out of mappings
    void copy(void *to, const void *from, size_t n);
    auto copier() {
        return [this](void *to, const void *from, size_t n) { copy(to, from, n); };
    }
    // Whether every remote segment lies in the key's mapping here.
    bool direct(void *rkey, const ccs_plugin_remote_v1_t *remote, size_t nremote) const;
    uint8_t *map_shared(int32_t pid, int32_t fd, uint64_t id);
    void unmap_all();
    struct mapping {
        uint8_t *base;
        size_t length;
        uint32_t keys;  // unpacked keys using it
    };
    std::map<std::pair<int32_t, uint64_t>, mapping> mappings_;  // (owner pid, allocation id)
};

}  // namespace ccs::shm
