// What a work completion's status means for the operation and the peer.
// On a reliable connection any error moves the queue pair to ERROR and
// flushes everything behind it, so each error also says what becomes of
// the connection: the peer is gone (retries exhausted), or only this
// connection broke and the next operation connects again.
#pragma once

#include <ccs/plugin/ccs_plugin_v1.h>

#include <infiniband/verbs.h>

namespace ccs::verbs {

enum class connection_fate {
    intact,       // success
    flushed,      // completed because the pair was already in ERROR: the earlier error decides
    broken,       // this connection failed; the peer may be alive: reconnect on next use
    peer_lost,    // the peer did not answer (retries exhausted): report it failed
};

struct completion_meaning {
    ccs_plugin_status_t status;  // for the operation that completed
    connection_fate fate;
    const char *text;            // what it means, for the log and the error's detail
};

completion_meaning meaning_of(ibv_wc_status status);

}  // namespace ccs::verbs
