// The meaning of every work completion status.
#include "verbs_status.hpp"

namespace ccs::verbs {

completion_meaning meaning_of(ibv_wc_status status) {
    using f = connection_fate;
    switch (status) {
    case IBV_WC_SUCCESS: return {CCS_PLUGIN_OK, f::intact, "success"};
    case IBV_WC_WR_FLUSH_ERR:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::flushed, "flushed: the connection had already failed"};
    case IBV_WC_RETRY_EXC_ERR:
        return {CCS_PLUGIN_ERR_PEER_FAILED, f::peer_lost,
                "transport retries exhausted: the peer did not acknowledge (process or link gone)"};
    case IBV_WC_RNR_RETRY_EXC_ERR:
        return {CCS_PLUGIN_ERR_PEER_FAILED, f::peer_lost,
                "receiver-not-ready retries exhausted: the peer posted no receive buffer in time"};
    case IBV_WC_RESP_TIMEOUT_ERR:
        return {CCS_PLUGIN_ERR_PEER_FAILED, f::peer_lost, "the peer's response timed out"};
    case IBV_WC_REM_ABORT_ERR:
        return {CCS_PLUGIN_ERR_PEER_FAILED, f::peer_lost, "the peer aborted the operation"};
    case IBV_WC_REM_ACCESS_ERR:
        return {CCS_PLUGIN_ERR_ACCESS, f::broken,
                "the peer refused the remote access (key revoked or out of its region)"};
    case IBV_WC_REM_INV_REQ_ERR:
        return {CCS_PLUGIN_ERR_INVALID, f::broken, "the peer found the request invalid (length or opcode)"};
    case IBV_WC_REM_INV_RD_REQ_ERR:
        return {CCS_PLUGIN_ERR_ACCESS, f::broken, "the peer refused the read request"};
    case IBV_WC_REM_OP_ERR:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "the peer could not complete the operation"};
    case IBV_WC_LOC_LEN_ERR:
        return {CCS_PLUGIN_ERR_INVALID, f::broken, "local length error: a packet larger than the receive buffer"};
    case IBV_WC_LOC_PROT_ERR:
    case IBV_WC_LOC_ACCESS_ERR:
        return {CCS_PLUGIN_ERR_ACCESS, f::broken, "local protection error: a local buffer not registered for this"};
    case IBV_WC_LOC_QP_OP_ERR:
    case IBV_WC_LOC_EEC_OP_ERR:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "local queue pair operation error"};
    case IBV_WC_BAD_RESP_ERR:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "unexpected response from the peer"};
    case IBV_WC_MW_BIND_ERR:
    case IBV_WC_LOC_RDD_VIOL_ERR:
    case IBV_WC_INV_EECN_ERR:
    case IBV_WC_INV_EEC_STATE_ERR:
    case IBV_WC_TM_ERR:
    case IBV_WC_TM_RNDV_INCOMPLETE:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "completion error of a kind this plugin never requests"};
    case IBV_WC_FATAL_ERR:
        return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "fatal adapter error"};
    case IBV_WC_GENERAL_ERR: return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "general adapter error"};
    }
    return {CCS_PLUGIN_ERR_TRANSPORT, f::broken, "unknown completion status"};
}

}  // namespace ccs::verbs
