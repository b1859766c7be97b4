// The software fabric's objects: each extends the libibverbs struct the
// plugin sees, which is its first part.
#pragma once

#include "soft_fabric.hpp"

#include <chrono>
#include <deque>
#include <vector>

namespace ccs::verbs::testing {

struct soft_context : ibv_context {
    soft_host *host;
    const soft_device_spec *spec;
};

struct soft_mr : ibv_mr {
    soft_host *host;
    int access;
};

struct soft_channel : ibv_comp_channel {
    std::deque<ibv_cq *> events;
};

struct cq_entry {
    ibv_wc wc;
    soft_qp *qp;        // whose send queue it frees slots of, or null
    uint32_t releases;  // how many
};

struct soft_cq : ibv_cq {
    std::deque<cq_entry> entries;
    bool armed = false;
};

struct recv_item {
    uint64_t wr_id;
    std::vector<ibv_sge> sges;
};

struct soft_srq : ibv_srq {
    std::deque<recv_item> wrs;
    uint32_t max_wr;
};

struct soft_ah : ibv_ah {
    uint16_t dlid;
    ibv_gid dgid;
    bool global;
};

struct send_item {
    uint64_t wr_id;
    ibv_wr_opcode opcode;
    bool signalled;
    bool inlined;
    std::vector<ibv_sge> sges;
    std::vector<uint8_t> inline_bytes;
    uint32_t imm;
    uint64_t remote_addr;
    uint32_t rkey;
    uint64_t compare_add, swap;
    soft_ah *ah;
    uint32_t remote_qpn, remote_qkey;
    bool tried = false;
    std::chrono::steady_clock::time_point first_try{};
};

struct soft_qp : ibv_qp {
    soft_host *host;
    uint16_t lid;
    ibv_gid gid;
    uint32_t dest_qpn = 0;
    uint16_t dlid = 0;
    ibv_gid dgid{};
    bool dglobal = false;
    uint32_t qkey = 0;
    int access = 0;
    uint32_t max_send_wr, max_recv_wr, max_inline;
    std::deque<send_item> sq;
    std::deque<recv_item> rq;
    uint32_t outstanding = 0;  // posted, not yet freed by a polled completion
    uint32_t unreported = 0;   // done without a completion yet
};

}  // namespace ccs::verbs::testing
