// Run under ccsrun with 3 processes. When one process cannot initialize, or
// no transport connects two of them, every process's ccs_init must fail the
// same way, naming the culprit, instead of some of them hanging.
//   scenario "plugin": rank 1 alone asks for a plugin whose init fails.
//   scenario "route":  each rank pretends to be on its own node with only shm.
#include <ccs/ccs.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s plugin|route BROKEN_PLUGIN_DIR\n", argv[0]);
        return 2;
    }
    const std::string scenario = argv[1];
    const char *rank_env = std::getenv("CCS_RANK");
    const int rank = rank_env ? std::atoi(rank_env) : -1;
    ccs_status_t want;
    std::string culprit;
    if (scenario == "plugin") {
        ::setenv("CCS_PLUGIN_PATH", argv[2], 1);
        ::setenv("CCS_TRANSPORT", rank == 1 ? "initfail" : "shm", 1);
        want = CCS_ERR_PLUGIN_INIT;
        culprit = "rank 1: plugin 'initfail'";
    } else {
        ::setenv("CCS_TRANSPORT", "shm", 1);
        ::setenv("CCS_NODE_ID", ("pretend-node-" + std::to_string(rank)).c_str(), 1);
        want = CCS_ERR_NO_TRANSPORT;
        culprit = "rank 0: no plugin reaches rank 1 (other node)";
    }
    const ccs_status_t st = ccs_init(nullptr);
    const std::string detail = ccs_last_error();
    const bool ok = st == want && detail.find(culprit) != std::string::npos;
    std::printf("rank %d: ccs_init -> %s: %s\n", rank, ccs_strerror(st), detail.c_str());
    if (!ok) std::printf("rank %d: FAILED: wanted %s with '%s'\n", rank, ccs_strerror(want), culprit.c_str());
    if (st == CCS_OK) ccs_finalize();
    return ok ? 0 : 1;
}
