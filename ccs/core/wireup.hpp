// Job wire-up at ccs_init: choose and load plugins, exchange node identities
// and plugin addresses through the bootstrap, connect, and pick one transport
// per peer. Every phase ends in an allgather that carries each process's
// status, so a failure anywhere makes every process fail the same way with
// the same message instead of leaving some waiting forever.
#pragma once

#include "core/bootstrap/bootstrap.hpp"
#include "core/memory/key_format.hpp"
#include "transport.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ccs {

struct wireup_result {
    std::vector<std::unique_ptr<transport>> transports;  // connected, polled
    std::vector<transport *> route;                      // per peer; null for self
    std::vector<uint32_t> node_of_rank;
    uint32_t num_nodes = 0;
    key_secret secret{};  // rank 0's, for every process: the tags of packed keys
};

// thread_level: the job's at start (told to each plugin at init).
ccs_status_t wireup(bootstrap &boot, packet_sink &sink, int thread_level, wireup_result &out);

// The identity that groups processes into nodes: CCS_NODE_ID if set, else
// the host name and the kernel's boot id.
std::string node_identity();

}  // namespace ccs
