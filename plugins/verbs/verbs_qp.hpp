// Queue pairs through their states: RESET, INIT, RTR (ready to receive),
// RTS (ready to send), with every failed transition reported, with the
// state it stopped in, never asserted. A reliable-connected pair carries
// a peer's packets and RMA; one unreliable-datagram pair per process
// carries the connection messages.
#pragma once

#include "verbs_device.hpp"
#include "verbs_ops.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstdint>
#include <string>

namespace ccs::verbs {

// Reliable-connection timing (CCS_VERBS_TIMEOUT, _RETRY_COUNT, _RNR_RETRY).
struct rc_settings {
    uint8_t timeout = 14;        // 4.096 us * 2^timeout per attempt (14: 67 ms)
    uint8_t retry_count = 7;     // resends before the peer counts as lost
    uint8_t rnr_retry = 7;       // 7: retry forever while its receiver has no buffer
    uint8_t min_rnr_timer = 12;  // 0.64 ms between such retries
    uint8_t max_rd_atomic = 1;   // reads and atomics in flight, each way
};

// Where the other end of a connection is.
struct rc_remote {
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint16_t lid = 0;
    ibv_gid gid{};
    bool ethernet = false;
    ibv_mtu mtu = IBV_MTU_1024;
};

enum class qp_state { reset, init, ready_to_receive, ready_to_send, error };
const char *state_name(qp_state s);

class rc_queue_pair {
public:
    rc_queue_pair(verbs_ops &ops, ibv_qp *qp) : ops_(ops), qp_(qp) {}
    qp_state state() const { return state_; }
    ibv_qp *qp() const { return qp_; }

    // RESET to INIT: bound to the port, remote writes, reads and atomics allowed.
    ccs_plugin_status_t to_init(const port_facts &port, std::string &why);
    // INIT to RTR: connected to `remote` at the smaller of both MTUs.
    ccs_plugin_status_t to_ready_to_receive(const port_facts &port, const rc_remote &remote,
                                            const rc_settings &settings, std::string &why);
    // RTR to RTS: sends start at `psn`.
    ccs_plugin_status_t to_ready_to_send(uint32_t psn, const rc_settings &settings, std::string &why);
    // Any state to ERROR: outstanding work completes flushed.
    ccs_plugin_status_t to_error(std::string &why);

private:
    ccs_plugin_status_t modify(ibv_qp_attr &attr, int mask, qp_state from, qp_state to, std::string &why);

    verbs_ops &ops_;
    ibv_qp *qp_;
    qp_state state_ = qp_state::reset;
};

// The connection pair's path: RESET to RTS at once (datagrams need no peer).
ccs_plugin_status_t bring_up_datagram(verbs_ops &ops, ibv_qp *qp, const port_facts &port, uint32_t qkey,
                                      std::string &why);

// The address vector that reaches `remote` from `port`.
ibv_ah_attr address_vector(const port_facts &port, uint16_t lid, const ibv_gid &gid, bool ethernet);

}  // namespace ccs::verbs
