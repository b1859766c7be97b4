// Queue pair state transitions.
#include "verbs_qp.hpp"

#include <algorithm>
#include <cstring>

namespace ccs::verbs {

const char *state_name(qp_state s) {
    switch (s) {
    case qp_state::reset: return "RESET";
    case qp_state::init: return "INIT";
    case qp_state::ready_to_receive: return "RTR";
    case qp_state::ready_to_send: return "RTS";
    case qp_state::error: return "ERROR";
    }
    return "unknown";
}

ibv_ah_attr address_vector(const port_facts &port, uint16_t lid, const ibv_gid &gid, bool ethernet) {
    ibv_ah_attr ah{};
    ah.port_num = port.port;
    ah.dlid = ethernet ? 0 : lid;
    // RoCE always routes by GID; InfiniBand only where asked to (a GID
    // index was configured: across subnets).
    if (ethernet || port.gid_index >= 0) {
        ah.is_global = 1;
        ah.grh.dgid = gid;
        ah.grh.sgid_index = static_cast<uint8_t>(std::max(port.gid_index, 0));
        ah.grh.hop_limit = 64;
    }
    return ah;
}

ccs_plugin_status_t rc_queue_pair::modify(ibv_qp_attr &attr, int mask, qp_state from, qp_state to,
                                          std::string &why) {
    if (state_ != from) {
        why = std::string("queue pair ") + std::to_string(qp_->qp_num) + " cannot go to " + state_name(to) +
              " from " + state_name(state_) + " (only from " + state_name(from) + ")";
        return CCS_PLUGIN_ERR_INVALID;
    }
    attr.qp_state = to == qp_state::init                 ? IBV_QPS_INIT
                    : to == qp_state::ready_to_receive ? IBV_QPS_RTR
                                                       : IBV_QPS_RTS;
    const int err = ops_.modify_qp(qp_, attr, mask | IBV_QP_STATE);
    if (err != 0) {
        why = std::string("ibv_modify_qp(") + std::to_string(qp_->qp_num) + ", " + state_name(from) + " to " +
              state_name(to) + ") failed: " + std::strerror(err) + "; it stays in " + state_name(from);
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    state_ = to;
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t rc_queue_pair::to_init(const port_facts &port, std::string &why) {
    ibv_qp_attr a{};
    a.pkey_index = 0;
    a.port_num = port.port;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                        (port.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    return modify(a, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, qp_state::reset, qp_state::init, why);
}

ccs_plugin_status_t rc_queue_pair::to_ready_to_receive(const port_facts &port, const rc_remote &remote,
                                                       const rc_settings &settings, std::string &why) {
    if (remote.ethernet != port.ethernet) {
        why = "queue pair " + std::to_string(qp_->qp_num) + ": the peer's port is " +
              (remote.ethernet ? "Ethernet (RoCE)" : "InfiniBand") + ", this one is not";
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    ibv_qp_attr a{};
    a.path_mtu = std::min(port.mtu, remote.mtu);
    a.dest_qp_num = remote.qpn;
    a.rq_psn = remote.psn;
    a.max_dest_rd_atomic = settings.max_rd_atomic;
    a.min_rnr_timer = settings.min_rnr_timer;
    a.ah_attr = address_vector(port, remote.lid, remote.gid, remote.ethernet);
    return modify(a,
                  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                      IBV_QP_MIN_RNR_TIMER,
                  qp_state::init, qp_state::ready_to_receive, why);
}

ccs_plugin_status_t rc_queue_pair::to_ready_to_send(uint32_t psn, const rc_settings &settings, std::string &why) {
    ibv_qp_attr a{};
    a.sq_psn = psn;
    a.timeout = settings.timeout;
    a.retry_cnt = settings.retry_count;
    a.rnr_retry = settings.rnr_retry;
    a.max_rd_atomic = settings.max_rd_atomic;
    return modify(a,
                  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
                  qp_state::ready_to_receive, qp_state::ready_to_send, why);
}

ccs_plugin_status_t rc_queue_pair::to_error(std::string &why) {
    if (state_ == qp_state::error) return CCS_PLUGIN_OK;
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_ERR;
    const int err = ops_.modify_qp(qp_, a, IBV_QP_STATE);
    if (err != 0) {
        why = "ibv_modify_qp(" + std::to_string(qp_->qp_num) + ", to ERROR) failed: " + std::strerror(err);
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    state_ = qp_state::error;
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t bring_up_datagram(verbs_ops &ops, ibv_qp *qp, const port_facts &port, uint32_t qkey,
                                      std::string &why) {
    struct step {
        const char *name;
        ibv_qp_attr attr;
        int mask;
    };
    step steps[3] = {{"INIT", {}, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
                     {"RTR", {}, IBV_QP_STATE},
                     {"RTS", {}, IBV_QP_STATE | IBV_QP_SQ_PSN}};
    steps[0].attr.qp_state = IBV_QPS_INIT;
    steps[0].attr.port_num = port.port;
    steps[0].attr.qkey = qkey;
    steps[1].attr.qp_state = IBV_QPS_RTR;
    steps[2].attr.qp_state = IBV_QPS_RTS;
    steps[2].attr.sq_psn = 0;
    for (step &s : steps) {
        const int err = ops.modify_qp(qp, s.attr, s.mask);
        if (err != 0) {
            why = std::string("ibv_modify_qp(connection queue pair to ") + s.name + ") failed: " + std::strerror(err);
            return CCS_PLUGIN_ERR_TRANSPORT;
        }
    }
    return CCS_PLUGIN_OK;
}

}  // namespace ccs::verbs
