// The verbs plugin in one process: one device port, protection domain and
// completion queue; a shared receive queue of eager buffers; one
// unreliable-datagram queue pair that brings up a reliable-connected pair
// to each peer on first use; and the records of what is in flight.
#pragma once

#include "common/core_services.hpp"
#include "common/process_liveness.hpp"
#include "verbs_buffers.hpp"
#include "verbs_credits.hpp"
#include "verbs_device.hpp"
#include "verbs_ops.hpp"
#include "verbs_qp.hpp"
#include "verbs_wire.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ccs::verbs {

using clock = std::chrono::steady_clock;

// What a work request's id carries in its low 3 bits (verbs_progress.cpp
// says what each is); 0: a work record's address.
inline constexpr uint64_t tag_receive = 1, tag_connect = 2, tag_plain = 3;
// The connection queue pair: datagrams arrive behind a 40-byte global
// routing header; it keeps this many receives posted and sends in flight.
inline constexpr size_t grh_size = 40;
inline constexpr uint32_t connect_queue = 64;

struct config {
    device_request device;        // CCS_VERBS_DEVICE, CCS_VERBS_GID_INDEX
    size_t eager_size = 8192;     // a receive buffer: the largest packet
    uint32_t credits = 32;        // receive buffers granted to each connected peer
    uint32_t send_queue = 256;    // work requests in flight per connection
    uint32_t max_receive_buffers = 16384;  // over all peers
    rc_settings rc;
    std::chrono::milliseconds connect_timeout{30000};
    // An idle connection is probed this often, so a peer that died is
    // noticed even when nothing is sent to it.
    std::chrono::milliseconds keepalive{1000};
    bool wakeup = true;
};

// How far the connection to a peer is.
enum class link { none, requesting, answered, ready, failed };

struct peer {
    int32_t rank = -1;
    bool has_address = false;
    wire_address address;
    bool same_node = false;
    link state = link::none;
    std::unique_ptr<rc_queue_pair> qp;
    uint32_t psn = 0;      // this end's first packet sequence number
    rc_remote remote;      // the other end, once known
    uint32_t granted = 0;  // receive buffers posted for it
    send_credits out;
    receive_credits in;
    ibv_ah *ah = nullptr;  // connection messages to it
    // Work requests posted to its queue pair, and known complete: a
    // completion of a signalled one completes every one posted before.
    uint64_t posted = 0, completed = 0, last_signalled = 0;
    // `posted` when the keepalive last looked, and since when it is unchanged.
    uint64_t seen_posted = 0;
    clock::time_point started{}, next_resend{}, last_used{};
    clock::duration resend_gap{};
    std::string failure;

    uint64_t in_flight() const { return posted - completed; }
};

// One remote-memory operation, issued in pieces as the send queue allows.
struct rma_piece {
    uint64_t local;
    uint32_t lkey;
    uint32_t length;
    uint64_t remote;
};
struct rma_op {
    uint64_t token = 0;
    int32_t peer = -1;
    ibv_wr_opcode opcode = IBV_WR_RDMA_WRITE;
    uint32_t rkey = 0;
    std::vector<rma_piece> pieces;
    size_t next = 0;       // pieces[next..] not posted yet
    uint32_t pending = 0;  // posted, not complete
    ccs_plugin_status_t status = CCS_PLUGIN_OK;
    std::vector<void *> holds;  // local regions the core's cache lent
    // Atomics: a compare-and-swap loop where the adapter has no such op.
    uint32_t op = 0, width = 0;
    uint64_t operand = 0, compare = 0, remote = 0, expected = 0;
    void *result = nullptr;
    int32_t reply = -1;    // the registered word the adapter returns the old value in
    bool looping = false;  // the loop's first read is done
};

// A signalled work request: what to do when it completes.
struct work {
    enum class kind : uint8_t { send, rma, credits, probe, connect };
    kind what = kind::send;
    int32_t peer = -1;
    uint64_t stamp = 0;    // the peer's `posted` count with this request
    int32_t buffer = -1;   // a send or connection buffer to give back
    rma_op *op = nullptr;  // rma: the operation a piece belongs to
};

// A peer's key: its region and the adapter's key for it.
struct remote_key {
    int32_t rank;
    uint64_t base, length;
    uint32_t rkey;
};

// A packet received, waiting to be delivered in order.
struct arrival {
    int32_t source;
    int32_t buffer;
    uint32_t length;
};

class verbs_plugin {
public:
    static constexpr const char *name = "verbs";
    using config = verbs::config;
    // verbs_attr.cpp
    static bool read_config(const plugin::core_services &core, config &out, std::string &reason);
    static ccs_plugin_status_t query(const plugin::core_services &core, const config &cfg,
                                     ccs_plugin_attr_v1_t &attr) {
        return query_on(system_verbs(), core, cfg, attr);
    }
    static ccs_plugin_status_t query_on(verbs_ops &ops, const plugin::core_services &core, const config &cfg,
                                        ccs_plugin_attr_v1_t &attr);

    // verbs_setup.cpp
    verbs_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
        : verbs_plugin(services, job, cfg, system_verbs()) {}
    verbs_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg,
                 verbs_ops &ops);
    ~verbs_plugin();
    verbs_plugin(const verbs_plugin &) = delete;
    verbs_plugin &operator=(const verbs_plugin &) = delete;

    ccs_plugin_status_t init();
    ccs_plugin_status_t address(void *buffer, size_t *length) const;
    ccs_plugin_status_t connect(const void *const *addresses, const size_t *lengths);
    bool reachable(int32_t rank) const;

    // verbs_send.cpp
    ccs_plugin_status_t am_send(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count);
    // verbs_progress.cpp: progress, and sleeping on the completion channel.
    int32_t progress();
    int32_t wakeup_fd() const;
    ccs_plugin_status_t wakeup_arm();

    // verbs_rma.cpp
    ccs_plugin_status_t mem_reg(void *addr, size_t length, void **memh);
    void mem_dereg(void *memh);
    ccs_plugin_status_t rkey_pack(void *memh, void *buffer, size_t *length) const;
    ccs_plugin_status_t rkey_unpack(int32_t rank, const void *buffer, size_t length, void **rkey);
    void rkey_release(void *rkey);
    ccs_plugin_status_t put(int32_t rank, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    ccs_plugin_status_t get(int32_t rank, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                            const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    // verbs_atomic.cpp
    ccs_plugin_status_t atomic(int32_t rank, uint32_t op, uint32_t width, uint64_t remote, uint64_t operand,
                               uint64_t compare, void *result, void *rkey, uint64_t token);

    // What a test of the plugin's own code may look at.
    const peer *peer_state(int32_t rank) const { return peer_at(rank); }
    const port_facts &port() const { return port_; }
    const ccs_plugin_services_v1_t &raw_services() const { return core_.raw(); }

private:
    void log(int32_t level, const std::string &message) const { core_.log(level, message); }
    peer *peer_at(int32_t rank) {
        return rank >= 0 && static_cast<size_t>(rank) < peers_.size() ? &peers_[static_cast<size_t>(rank)] : nullptr;
    }
    const peer *peer_at(int32_t rank) const {
        return rank >= 0 && static_cast<size_t>(rank) < peers_.size() ? &peers_[static_cast<size_t>(rank)] : nullptr;
    }
    // verbs_setup.cpp
    ccs_plugin_status_t open_port(std::string &why);
    ccs_plugin_status_t create_queues(std::string &why);
    void destroy();

    // verbs_connect.cpp: bringing a connection up (see verbs_wire.hpp).
    // The peer's connection, started if need be: OK when ready, AGAIN
    // while it comes up, PEER_FAILED or TRANSPORT when it cannot.
    ccs_plugin_status_t usable(peer &p) {
        if (p.state == link::ready) [[likely]]
            return CCS_PLUGIN_OK;
        return bring_up(p);
    }
    ccs_plugin_status_t bring_up(peer &p);
    ccs_plugin_status_t create_pair(peer &p, std::string &why);
    ccs_plugin_status_t connect_pair(peer &p, uint32_t qpn, uint32_t psn, uint32_t credits, std::string &why);
    bool send_connect(peer &p, connect_type type);
    void on_connect_message(const uint8_t *bytes, size_t length);
    void resend_connects(clock::time_point now);
    // Receive buffers a new connection may be granted.
    uint32_t grant_left() const;
    // The connection to `p` is gone: every operation on it fails, the core
    // hears of the peer once.
    void fail_peer(peer &p, const std::string &why);

    // verbs_send.cpp
    // Posts `wr` to p's queue pair, signalled when `w` is given (or the
    // unsignalled run grows long); false when the adapter refused it.
    bool post(peer &p, ibv_send_wr &wr, work *w);
    bool send_room(const peer &p, uint32_t requests) const {
        return p.in_flight() + requests <= send_queue_ && in_flight_ + requests <= send_cq_room_;
    }
    // Every request of p's up to `stamp` completed (they complete in order).
    void completed_up_to(peer &p, uint64_t stamp) {
        if (stamp <= p.completed) return;
        in_flight_ -= stamp - p.completed;
        p.completed = stamp;
    }
    // Tells p of the buffers freed for it, by writing its credit word.
    void return_credits(peer &p);
    void probe(peer &p);
    work *take_work(work::kind what, peer &p);
    void give_work(work *w) { spare_work_.push_back(w); }

    // verbs_progress.cpp
    void on_completion(const ibv_wc &wc);
    void on_send_completion(const ibv_wc &wc, work *w);
    void on_receive(const ibv_wc &wc);
    int32_t deliver_arrivals();
    bool post_receives(uint32_t count);
    void post_connect_receive(int32_t buffer);
    void check_idle_peers(clock::time_point now);
    // Polls the completion queue into the records above; the number seen.
    int poll();

    // verbs_rma.cpp
    // put (RDMA write) or get (RDMA read): checked, cut into pieces, started.
    template <typename Local>
    ccs_plugin_status_t transfer(ibv_wr_opcode opcode, int32_t rank, const Local *local, size_t nlocal,
                                 const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token);
    ccs_plugin_status_t start_rma(peer &p, rma_op *op);
    // Posts what the send queue has room for; false if the adapter refused.
    bool issue_pieces(peer &p, rma_op &op);
    void finish_rma(rma_op *op);   // told to the core at the end of progress()
    void discard_rma(rma_op *op);  // never started: the core hears nothing
    uint64_t largest_piece() const { return port_.max_message ? port_.max_message : uint64_t{1} << 30; }
    bool lend(const void *addr, size_t length, rma_op &op, uint32_t &lkey);
    // verbs_atomic.cpp
    bool issue_atomic_step(peer &p, rma_op &op);
    void on_atomic_step(peer &p, rma_op &op);

    plugin::core_services core_;
    config cfg_;
    verbs_ops &ops_;
    int32_t rank_, size_;
    std::vector<uint32_t> node_of_rank_;
    port_facts port_;
    ibv_context *context_ = nullptr;
    ibv_pd *pd_ = nullptr;
    ibv_comp_channel *channel_ = nullptr;
    ibv_cq *cq_ = nullptr;
    int cq_size_ = 0;
    // Send requests in flight over all connections, each of which may
    // complete with an entry (an error flushes them all): at most
    // send_cq_room_, so the completion queue never overflows.
    uint32_t send_cq_room_ = 0;
    uint64_t in_flight_ = 0;
    uint32_t send_queue_ = 0;  // per connection: CCS_VERBS_SEND_QUEUE within the device's limit
    bool armed_ = false;
    ibv_srq *srq_ = nullptr;
    uint32_t srq_capacity_ = 0;
    ibv_qp *connect_qp_ = nullptr;
    uint32_t max_inline_ = 0;
    std::unique_ptr<buffer_pool> send_buffers_, receive_buffers_, connect_buffers_;
    std::unique_ptr<buffer_pool> replies_;  // 8-byte words atomics return old values in
    uint32_t receives_posted_ = 0;
    uint64_t regions_ = 0;  // mem_reg's, against the device's limit
    // credit_words_[r]: what rank r last wrote of the buffers it freed for us.
    uint64_t *credit_words_ = nullptr;
    ibv_mr *credit_mr_ = nullptr;
    std::vector<peer> peers_;
    std::unordered_map<uint32_t, int32_t> rank_of_qpn_;
    std::vector<int32_t> connecting_;  // ranks whose connection is coming up
    uint32_t granted_total_ = 0;       // receive buffers granted over all peers
    uint32_t connect_sends_ = 0;       // connection messages in flight
    std::deque<arrival> arrivals_;
    std::vector<std::unique_ptr<work>> work_pool_;
    std::vector<work *> spare_work_;
    std::vector<std::pair<uint64_t, ccs_plugin_status_t>> finished_rma_;
    std::vector<rma_op *> waiting_rma_;  // with pieces not posted yet
    std::vector<std::pair<int32_t, std::string>> failed_peers_;
    plugin::liveness_pacer pacer_{std::chrono::milliseconds(100), 256};
    uint32_t local_qkey_ = 0x43435342;
};

}  // namespace ccs::verbs
