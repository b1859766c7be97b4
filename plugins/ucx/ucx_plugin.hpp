// The UCX plugin in one process: a UCP context and worker, every
// rank's worker address, endpoints created on first use, and the queues
// that carry what UCX's callbacks report out to the core from progress().
#pragma once

#include "common/core_services.hpp"
#include "common/process_liveness.hpp"
#include "common/small_copy.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ccs::ucx {

// How RMA reaches a peer: UCX's put/get when its lanes to that peer do RMA
// in hardware or shared memory, otherwise (UCX 1.13 over TCP emulates RMA
// in software, a millisecond per small get) the core's active messages.
enum class rma_mode { automatic, native, active_messages };

struct config {
    // The core fragments larger payloads. 0 (the default): 4 MiB where
    // UCX_TLS names a transport with native RMA, else eager_max: without
    // one every peer's rendezvous is emulated, and eager packets of 256 KiB
    // carried 4 MiB accumulates and 1 MiB AMs faster than 4 MiB ones.
    size_t max_packet = 0;
    rma_mode rma = rma_mode::automatic;
    uint32_t max_sends_in_flight = 256;  // per peer, before AGAIN
    // Packets up to this size go eager to peers whose lanes have no RMA
    // (TCP), where UCX's rendezvous is emulated with extra round trips.
    size_t eager_max = 256u << 10;
    // Ask UCX for a wake-up descriptor, so the core's waits can sleep.
    bool wakeup = true;
};

// The UCX transports UCX_TLS names for this process ("all" when unset), and
// whether any of them moves RMA without the target's CPU.
struct transports {
    std::string names;
    bool native_rma = false;
    bool native_atomics = false;  // some of them carry out atomics without the target's CPU
};
transports configured_transports(const ucp_config_t *ucx_config);
// UCX's configuration for CCS: each UCX_<VAR> as set, overridden by
// CCS_UCX_<VAR> (UCX's own prefix rule), so that CCS can be given its own
// transports while an MPI in the same process keeps UCX_*.
ucs_status_t read_ucx_config(ucp_config_t **config);
// config::max_packet with 0 resolved for these transports.
size_t max_packet_for(const config &cfg, const transports &tls);
// am_placeable_max: placeable payloads go by rendezvous, a round trip each.
// Over TCP pieces of a mebibyte hide it and stay in cache; where a lane
// copies in one step (cma, RDMA) larger pieces cost less per byte.
inline size_t placeable_max_for(const transports &tls) { return tls.native_rma ? size_t{4} << 20 : size_t{1} << 20; }

class ucx_plugin;

// Bytes that are about to be overwritten whole: unlike std::vector, growing
// does not zero them (a megabyte memset per packet would cost as much as
// sending it), and the capacity is kept for the next packet.
class packet_buffer {
public:
    void resize_for_overwrite(size_t n) {
        if (n > capacity_) {
            data_.reset(new uint8_t[n]);
            capacity_ = n;
        }
        size_ = n;
    }
    uint8_t *data() { return data_.get(); }
    const uint8_t *data() const { return data_.get(); }
    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }

private:
    std::unique_ptr<uint8_t[]> data_;
    size_t capacity_ = 0, size_ = 0;
};

// One peer as seen from here.
struct peer {
    ucx_plugin *owner = nullptr;
    int32_t rank = -1;
    std::vector<uint8_t> address;  // its worker address; empty: none
    int32_t pid = 0;               // its process id, from its address blob
    bool same_node = false;
    // Created on first use, its facts below filled in before it is
    // published. Atomic (as `failed`): at thread level multiple am_send
    // reads both beside the plugin's other calls.
    std::atomic<ucp_ep_h> ep{nullptr};
    // UCX reports this peer's failure (error mode PEER); shared-memory
    // transports in UCX 1.13 cannot, and then the plugin watches its pid.
    bool ucx_reports_failure = false;
    std::atomic<bool> failed{false};
    bool native_rma = false;       // decided when the endpoint is created
    bool native_atomics = false;   // UCX's lanes to it do atomics (not emulated): likewise
    // Its lanes have no RMA, so UCX's rendezvous to it is emulated (TCP):
    // packets up to config::eager_max are sent eager.
    bool eager_large = false;
    // A put that completed is already in the target's memory (shared-memory
    // lanes only): no flush.
    bool put_visible_on_return = false;
    // Counted up by its sender, down by progress (another thread at
    // thread level multiple).
    std::atomic<uint32_t> sends_in_flight{0};
};

// A packet UCX still sends from: its bytes, gathered from the core's iov.
struct send_buffer {
    ucx_plugin *owner = nullptr;
    peer *to = nullptr;
    packet_buffer bytes;
};

// A packet that arrived, waiting for the end of ucp_worker_progress to be
// delivered (the ABI delivers from progress(), and UCX forbids re-entering
// the worker from its callbacks). Records are pooled and reused.
struct arrival {
    // Small packets are copied into the arrival itself: no buffer to take
    // from the pool and give back on the latency path.
    static constexpr size_t inline_max = 256;

    // User-provided, so a new record does not zero inline_bytes; the
    // members below keep their initialisers.
    arrival() {}

    int32_t source = -1;
    size_t length = 0;
    void *ucx_data = nullptr;           // data UCX let us keep (released after delivery), or null
    size_t ucx_offset = 0;              // where the packet starts in it
    std::unique_ptr<packet_buffer> copy;  // else a copy in a pooled buffer, or null
    // A rendezvous packet offered to the core with its payload kept
    // (am_deliver_parked): the head is in `copy`, the payload is UCX's.
    void *parked = nullptr;
    size_t parked_length = 0;
    alignas(8) uint8_t inline_bytes[inline_max];  // else here

    const void *bytes() const {
        if (ucx_data) return static_cast<const uint8_t *>(ucx_data) + ucx_offset;
        return copy ? copy->data() : inline_bytes;
    }
};

// A rendezvous packet UCX announced, not yet being fetched.
struct pending_rendezvous {
    int32_t source;
    void *descriptor;  // UCX's, kept until ucp_am_recv_data_nbx
    size_t length;
    std::vector<uint8_t> head;  // a no-copy packet's head (from the UCP header)
};

// A packet sent from the core's buffer (am_send_nocopy). Its head is the
// UCP header, which UCX 1.13 reads until the send completes: kept here.
struct nocopy_request {
    ucx_plugin *owner = nullptr;
    uint64_t token = 0;
    std::vector<uint8_t> header;  // sender's rank, then the packet's head
};

// A rendezvous packet being fetched into its arrival.
struct rendezvous {
    ucx_plugin *owner;
    arrival *a;
};

// A rendezvous payload being fetched to where the core placed it.
struct placement {
    ucx_plugin *owner;
    uint64_t id;  // the core's
    int32_t source;
};

// A peer's key as unpacked for this process's endpoint to it.
struct remote_key {
    ucp_rkey_h rkey;
    int32_t rank;
};

// One put, get or atomic: its pieces and, for a put or an atomic that
// fetches nothing, the flush that makes it visible at the target.
// Atomic counts: at thread level multiple a put or get is issued beside
// progress, whose callbacks may finish its pieces before it returns.
struct rma_request {
    ucx_plugin *owner = nullptr;
    uint64_t token = 0;
    std::atomic<int> pending = 0;
    std::atomic<ucs_status_t> status = UCS_OK;
    // Atomics: the operand UCX reads and the old value it writes (until
    // completion), and where the core wants that value (width bytes).
    uint64_t operand = 0, reply = 0;
    void *result = nullptr;
    uint32_t width = 0;
    // A fetching and/or/xor as a compare-and-swap loop (ucx_atomic.cpp):
    // the op, the value compared with, and where.
    uint32_t op = 0;
    uint64_t compare = 0;
    ucp_ep_h ep = nullptr;
    ucp_rkey_h key = nullptr;
    uint64_t remote = 0;

    // One piece: counted before `issue` runs, so that its callback cannot
    // count it down first. UCX's request is pending (the callback counts
    // it down), or it finished at once, or its error is kept (the first).
    template <typename Issue>
    void piece(Issue issue) {
        pending.fetch_add(1, std::memory_order_relaxed);
        void *request = issue();
        if (UCS_PTR_IS_PTR(request)) return;
        pending.fetch_sub(1, std::memory_order_relaxed);  // never the last: the issuer holds one
        if (UCS_PTR_IS_ERR(request)) fail(UCS_PTR_STATUS(request));
    }
    void fail(ucs_status_t why) {
        ucs_status_t ok = UCS_OK;
        status.compare_exchange_strong(ok, why);
    }
    // Counts one down; true for the last.
    bool last_done() { return pending.fetch_sub(1, std::memory_order_acq_rel) == 1; }
};

class ucx_plugin {
public:
    static constexpr const char *name = "ucx";
    using config = ucx::config;
    // ucx_attr.cpp: CCS_UCX_* (false + reason on a bad value) and what UCX
    // offers here.
    static bool read_config(const plugin::core_services &core, config &out, std::string &reason);
    static ccs_plugin_status_t query(const plugin::core_services &core, const config &cfg, ccs_plugin_attr_v1_t &attr);

    ucx_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg);
    ~ucx_plugin();
    ucx_plugin(const ucx_plugin &) = delete;
    ucx_plugin &operator=(const ucx_plugin &) = delete;

    void log(int32_t level, const std::string &message) const;

    // ucx_ep.cpp: set-up, addresses, endpoints, teardown.
    ccs_plugin_status_t init();
    ccs_plugin_status_t address(void *buffer, size_t *length) const;
    ccs_plugin_status_t connect(const void *const *addresses, const size_t *lengths);
    bool reachable(int32_t rank) const;

    // ucx_send.cpp: active messages out.
    ccs_plugin_status_t am_send(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count);
    // Packets up to this size first try UCX's immediate (short) path.
    static constexpr size_t immediate_max = 256;
    // All but the last iov entry go as the UCP header, the last from the
    // core's memory, unread after the completion (see ccs_plugin_v1.h).
    ccs_plugin_status_t am_send_nocopy(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
        return send_nocopy(rank, iov, count, token, false);
    }
    // The same by UCX's rendezvous, so the target fetches the last entry
    // straight to where its core places it.
    ccs_plugin_status_t am_send_placeable(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
        return send_nocopy(rank, iov, count, token, true);
    }
    // Sends beside the other calls need a worker UCX locks itself
    // (UCS_THREAD_MODE_MULTI), chosen at init for a job that starts at
    // thread level multiple; one that is raised later keeps every call
    // under the core's lock.
    ccs_plugin_status_t am_send_concurrent() const {
        return concurrent_ ? CCS_PLUGIN_OK : CCS_PLUGIN_ERR_UNSUPPORTED;
    }
    // ucx_receive.cpp: rendezvous payloads kept for the core's decision
    // (ccs_plugin_v1.h: am_deliver_parked).
    ccs_plugin_status_t am_parked_fetch(uint64_t parked, void *to, size_t length, uint64_t placement);
    void am_parked_release(uint64_t parked);

    // ucx_progress.cpp
    int32_t progress();
    // ucx_sleep.cpp: the worker's event descriptor.
    int32_t wakeup_fd() const;
    ccs_plugin_status_t wakeup_arm();
    // ucx_receive.cpp: the AM callback's common case, a small packet.
    // False: anything else (on_arrival and friends take it).
    bool take_small(void *data, size_t length, const ucp_am_recv_param_t *param) {
        int32_t source;
        if (length <= sizeof source || length - sizeof source > arrival::inline_max ||
            (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) [[unlikely]]
            return false;
        std::memcpy(&source, data, sizeof source);
        if (!peer_at(source)) [[unlikely]]
            return false;
        const size_t n = length - sizeof source;
        arrival &a = record_arrival(source, n);
        plugin::small_copy(a.inline_bytes, static_cast<const uint8_t *>(data) + sizeof source, n);
        return true;
    }

    // ucx_rma.cpp: memory and one-sided operations.
    ccs_plugin_status_t mem_reg(void *addr, size_t length, void **memh);
    void mem_dereg(void *memh);
    ccs_plugin_status_t rkey_pack(void *memh, void *buffer, size_t *length) const;
    ccs_plugin_status_t rkey_unpack(int32_t rank, const void *buffer, size_t length, void **rkey);
    void rkey_release(void *rkey);
    ccs_plugin_status_t put(int32_t rank, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    ccs_plugin_status_t get(int32_t rank, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    // ucx_atomic.cpp: ucp_atomic_op_nbx where the lanes do atomics.
    ccs_plugin_status_t atomic(int32_t rank, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                               uint64_t compare, void *result, void *rkey, uint64_t token);
    // Puts, gets and atomics beside the other calls: with the worker that
    // locks itself (am_send_concurrent), their requests' counts are atomic,
    // and what their callbacks record only progress reads.
    ccs_plugin_status_t rma_concurrent() const { return am_send_concurrent(); }

private:
    friend struct callbacks;

    // The peer `rank` names, or null when it names none.
    peer *peer_at(int32_t rank) {
        return rank >= 0 && static_cast<size_t>(rank) < peers_.size() ? &peers_[static_cast<size_t>(rank)] : nullptr;
    }
    // The endpoint to `p`, created now if need be; null when the peer has
    // failed (why: PEER_FAILED) or UCX cannot reach it (why: TRANSPORT,
    // the reason logged).
    ucp_ep_h endpoint(peer &p, ccs_plugin_status_t &why) {
        ucp_ep_h ep = p.ep.load(std::memory_order_acquire);
        if (ep && !p.failed.load(std::memory_order_relaxed)) [[likely]]  // inline: every send asks
            return ep;
        return create_endpoint(p, why);
    }
    ucp_ep_h create_endpoint(peer &p, ccs_plugin_status_t &why);
    // ucx_send.cpp: what am_send's latency path does not take.
    [[gnu::noinline]] ccs_plugin_status_t send_buffered(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count);
    // UCP_AM_SEND_FLAG_EAGER for a packet of `total` bytes to `p` where
    // eager beats UCX's emulated rendezvous.
    void choose_protocol(const peer &p, size_t total, ucp_request_param_t &rp) const {
        if (!p.eager_large || total > cfg_.eager_max) return;
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        rp.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    ccs_plugin_status_t send_nocopy(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token,
                                    bool rendezvous);
    // A rendezvous packet whose payload the core places: fetched straight
    // there; false if the core wants it delivered as usual.
    bool fetch_into_place(int32_t source, const uint8_t *head, size_t head_length, void *descriptor, size_t length);
    // Fetches a rendezvous payload from `source` to `at`; the core hears
    // placed(placement).
    void start_placement(int32_t source, void *descriptor, void *at, size_t length, uint64_t placement);
    void finish_placement(const placement &f, ucs_status_t status);
    // Offers a parked arrival to the core; fetched as usual if declined.
    void deliver_parked(arrival &a);
    // Logs a failed ucp_am_send_nbx and maps its status.
    ccs_plugin_status_t send_failed(int32_t rank, ucs_status_t status) const;
    struct lane_facts {
        bool rma = false;                 // put/get protocols on real RMA lanes
        bool atomics = false;             // an atomic lane (UCX emulates atomics without one)
        bool shared_memory_only = false;  // every lane is shm, cma or self
    };
    lane_facts lanes(ucp_ep_h ep) const;
    void close_endpoints();
    // Same-node peers whose endpoints cannot report failure: is each
    // process still there? Every 100 ms, from progress().
    void check_peers_alive();
    // The status of a fetch from `source` that failed. A read from a
    // sender that died fails as an I/O error on shared memory, where UCX
    // does not watch the peer: its death is then the reason, reported at
    // once rather than at the next look at the processes.
    ucs_status_t fetch_failed(int32_t source, ucs_status_t status);
    void report_gone(peer &p);
    // Called from UCX callbacks; acted on at the end of progress().
    void on_peer_error(peer &p, ucs_status_t status);
    // `head`: bytes that precede the data in the packet (no-copy sends).
    void on_arrival(int32_t source, const uint8_t *head, size_t head_length, void *data, size_t length,
                    const ucp_am_recv_param_t *param, bool &keep);
    // A packet sent without a UCP header: the sender's rank, then the packet.
    void on_small_arrival(void *data, size_t length, const ucp_am_recv_param_t *param, bool &keep);
    // A pooled record for a packet of `length` bytes from `source`, listed
    // for delivery; the caller fills in where its bytes are.
    arrival &record_arrival(int32_t source, size_t length) {
        arrival *a = take_record();
        a->source = source;
        a->length = length;
        arrivals_.push_back(a);
        return *a;
    }
    // A record from the pool, not listed yet (a rendezvous lists it once
    // its data is in).
    arrival *take_record() {
        if (spare_arrivals_.empty()) [[unlikely]]
            return new_record();
        arrival *a = spare_arrivals_.back();
        spare_arrivals_.pop_back();
        return a;
    }
    arrival *new_record();
    // Back to the pool, its bytes to UCX or the buffer pool. Inline: a
    // small packet's bytes are in the record.
    void release(arrival &a) {
        if (a.ucx_data || a.copy) [[unlikely]]
            release_bytes(a);
        spare_arrivals_.push_back(&a);
    }
    void release_bytes(arrival &a);
    // ucx_progress.cpp: hands the listed arrivals to the core.
    int32_t deliver_arrivals();
    // Reports what callbacks recorded: finished sends and RMA, failed peers.
    int32_t report();
    // Records an eager packet at data + offset: a small one copied into
    // the arrival, a larger one kept where UCX allows it (keep = true:
    // released after delivery), else copied into a pooled buffer.
    void keep_or_copy(int32_t source, void *data, size_t offset, size_t length, const ucp_am_recv_param_t *param,
                      bool &keep);
    void on_send_done(send_buffer *b);
    void on_rma_piece_done(rma_request *r, ucs_status_t status);
    // ucx_atomic.cpp: the compare-and-swap loop's step, and its going on
    // after a step UCX finished later.
    bool compare_and_swap_step(rma_request *r);
    void continue_compare_and_swap(rma_request *r);
    // The end of an operation issued as rma_request `r` whose pieces are
    // all issued: IN_PROGRESS while some are pending, else its status
    // (`r` deleted).
    ccs_plugin_status_t issued(rma_request *r);
    // Issues the pieces of a put or get; see ucx_rma.cpp.
    template <typename Local, typename Issue>
    ccs_plugin_status_t rma(peer &p, size_t nlocal, Local local_at, const ccs_plugin_remote_v1_t *remote,
                            size_t nremote, bool flush, uint64_t token, Issue issue);

    std::unique_ptr<send_buffer> take_buffer();
    std::unique_ptr<packet_buffer> take_receive_buffer(size_t length);
    // Back to the pools, unless a pool already keeps spare_limit bytes: a
    // burst of megabyte packets must not stay resident forever, but a
    // window of them should not fault in fresh pages for every packet
    // (16 MiB cost a fifth of 1 MiB AM bandwidth against 64).
    void give_back(std::unique_ptr<send_buffer> b);
    void give_back(std::unique_ptr<packet_buffer> b);
    static constexpr size_t spare_limit = size_t{64} << 20;
    // A rendezvous packet fetched into a buffer, then delivered whole.
    void queue_rendezvous(int32_t source, void *descriptor, size_t length, const uint8_t *head, size_t head_length);
    // Starts waiting rendezvous fetches up to max_active_rendezvous.
    void start_rendezvous();
    static constexpr int max_active_rendezvous = 8;

    plugin::core_services core_;
    config cfg_;
    int32_t rank_;
    // am_send runs beside the other calls (am_send_concurrent): the worker
    // is UCS_THREAD_MODE_MULTI, and what senders share with each other and
    // with progress takes these locks (the endpoint's creation, the pool).
    bool concurrent_ = false;
    std::mutex endpoint_lock_;
    std::mutex send_pool_lock_;
    // `m` held for the life of the result where calls run at once; else
    // nothing is taken (the core's lock serializes every call).
    std::unique_lock<std::mutex> hold_if_concurrent(std::mutex &m) {
        return concurrent_ ? std::unique_lock<std::mutex>(m) : std::unique_lock<std::mutex>(m, std::defer_lock);
    }
    // The AM header: the sender's rank. In UCX 1.13 a header must stay valid
    // until the send completes, so it lives as long as the worker.
    int32_t header_rank_;
    ucp_context_h context_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    std::vector<uint8_t> my_address_;
    std::vector<peer> peers_;
    plugin::liveness_pacer liveness_;
    std::vector<std::unique_ptr<send_buffer>> spare_buffers_;
    std::vector<std::unique_ptr<packet_buffer>> spare_receive_buffers_;
    size_t spare_send_bytes_ = 0, spare_receive_bytes_ = 0;
    // Filled by UCX callbacks, delivered by progress() in order. By index
    // and by pointer: a handler's nested progress (an RMA wait) may record
    // and deliver more while an outer delivery still reads its payload.
    std::vector<arrival *> arrivals_;
    size_t delivered_ = 0;                                // arrivals_[0, delivered_) went
    std::vector<std::unique_ptr<arrival>> arrival_pool_;  // owns every record
    std::vector<arrival *> spare_arrivals_;
    // Set by callbacks that record finished sends, RMA or failed peers.
    bool reports_ = false;
    std::deque<pending_rendezvous> waiting_rendezvous_;
    // Rendezvous payloads the core took (am_deliver_parked), by name.
    struct kept_payload {
        void *descriptor;
        size_t length;
        int32_t source;
    };
    std::unordered_map<uint64_t, kept_payload> parked_;
    uint64_t next_parked_ = 1;
    int active_rendezvous_ = 0;
    std::vector<std::pair<uint64_t, ucs_status_t>> finished_rma_;
    std::vector<rma_request *> compare_and_swap_steps_;  // finished steps of the loop
    std::vector<std::pair<uint64_t, ucs_status_t>> finished_sends_;  // no-copy sends
    std::vector<std::pair<uint64_t, ucs_status_t>> finished_placements_;  // by the core's placement id
    std::vector<std::pair<int32_t, std::string>> failed_peers_;
};

ccs_plugin_status_t status_from_ucs(ucs_status_t status);

}  // namespace ccs::ucx
