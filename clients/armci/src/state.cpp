#include "state.hpp"

#include <cstdio>
#include <cstdlib>

namespace ccs::armci {

process_state the_process;

void fail(const char *call, const std::string &why) {
    std::fflush(stdout);
    std::fprintf(stderr, "armci: %s: %s\n", call, why.c_str());
    // The whole job ends, also processes computing without ARMCI calls;
    // not exit(), whose handlers could wait for peers that are stopping.
    ccs_abort(1, call);
    std::_Exit(1);
}

int report(const char *call, ccs_status_t st, const std::string &why) {
    std::fprintf(stderr, "armci: %s: %s: %s\n", call, ccs_strerror(st), why.c_str());
    return static_cast<int>(st);
}

int report_ccs(const char *call, ccs_status_t st) { return report(call, st, ccs_last_error()); }

void check(const char *call, ccs_status_t st) {
    if (st != CCS_OK) [[unlikely]]
        fail(call, std::string(ccs_strerror(st)) + ": " + ccs_last_error());
}

void not_ready(const char *call) {
    fail(call, the_process.finalized ? "called after ARMCI_Finalize" : "called before ARMCI_Init");
}

std::string proc_range(const process_state &s) { return "0 .. " + std::to_string(s.nproc - 1); }

}  // namespace ccs::armci
