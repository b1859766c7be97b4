// A job in which one process ends, or stalls, before ccs_init: the others
// must not wait for it forever. Run under any launcher with
// MISSING_RANK=<r>: rank r exits at once (status 0, as a program that never
// uses CCS) or, with STALL_SECONDS=s, joins only s seconds late (Open
// MPI's mpirun ends a job itself when a process exits before the others
// have finalized, so only a stall can keep them waiting there); every other
// rank checks that ccs_init fails with CCS_ERR_BOOTSTRAP within
// WITHIN_SECONDS and, where NAMES_RANK=1, that the detail names rank r.
// Exit status 0 when all of that holds, and "rank <r>: checks passed".
#include <ccs/ccs.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

// The launcher's rank variable: ccsrun, PMIx (Open MPI) or PMI-1 (MPICH).
int launcher_rank() {
    for (const char *name : {"CCS_RANK", "PMIX_RANK", "PMI_RANK"})
        if (const char *v = std::getenv(name)) return std::atoi(v);
    return -1;
}

int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

}  // namespace

int main() {
    const int rank = launcher_rank();
    const int missing = env_int("MISSING_RANK", 1);
    if (rank == missing) {
        if (const int stall = env_int("STALL_SECONDS", 0); stall > 0) {
            std::this_thread::sleep_for(std::chrono::seconds(stall));
            if (ccs_init(nullptr) == CCS_OK) ccs_finalize();  // too late: its own outcome does not matter
        }
        return 0;
    }
    const auto start = std::chrono::steady_clock::now();
    const ccs_status_t st = ccs_init(nullptr);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string detail = ccs_last_error();
    std::fprintf(stderr, "rank %d: ccs_init -> %s after %.1f s: %s\n", rank, ccs_strerror(st), took, detail.c_str());
    if (st == CCS_OK) {
        ccs_finalize();
        return 1;
    }
    bool ok = st == CCS_ERR_BOOTSTRAP && took <= env_int("WITHIN_SECONDS", 30);
    if (env_int("NAMES_RANK", 0) && detail.find("rank " + std::to_string(missing)) == std::string::npos) ok = false;
    if (ok) std::fprintf(stderr, "rank %d: checks passed\n", rank);
    return ok ? 0 : 1;
}
