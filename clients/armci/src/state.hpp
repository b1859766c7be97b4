// What a process of the ARMCI layer holds: its CCS context, the world
// group's teams, the node map, and how calls report mistakes.
#pragma once

// The library is built with hidden visibility; the ARMCI calls are its
// interface, declared here first.
#pragma GCC visibility push(default)
#include <armci.h>
#pragma GCC visibility pop
#include <ccs/coll.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ccs::armci {

struct process_state {
    int init_count = 0;
    bool finalized = false;
    int me = -1;
    int nproc = 0;
    ccs_context_t context{0};
    ccs_team_t world{0};
    MPI_Comm world_comm = MPI_COMM_NULL;  // a duplicate of the communicator ARMCI started on
    // Nodes, numbered by their lowest process: node_of[p], and each node's
    // processes in rank order.
    std::vector<int> node_of;
    std::vector<std::vector<int>> node_procs;
};

extern process_state the_process;

// Prints "armci: <call>: <why>" and ends the job (exit status 1): for the
// calls with no error return, where going on would lose data.
[[noreturn, gnu::cold]] void fail(const char *call, const std::string &why);
// Prints "armci: <call>: <status name>: <why>" and returns the status as
// the int an ARMCI call returns.
[[gnu::cold]] int report(const char *call, ccs_status_t st, const std::string &why);
// report() with CCS's own detail of the last failure.
[[gnu::cold]] int report_ccs(const char *call, ccs_status_t st);
// fail() with CCS's status and detail unless st is CCS_OK.
void check(const char *call, ccs_status_t st);

[[noreturn, gnu::cold]] void not_ready(const char *call);
inline process_state &ready(const char *call) {
    if (the_process.init_count == 0) [[unlikely]]
        not_ready(call);
    return the_process;
}
inline bool valid_proc(const process_state &s, int proc) {
    return static_cast<unsigned>(proc) < static_cast<unsigned>(s.nproc);
}
std::string proc_range(const process_state &s);

}  // namespace ccs::armci

// The profiling interface: ARMCI_<name> is a weak alias of PARMCI_<name>.
#define ARMCI_PROFILED(name) extern "C" __attribute__((weak, alias("P" #name))) decltype(P##name) name;
