// What the programs in which a process dies share (run by
// launchers/run_peer_failure.sh with 3 processes): checks that count
// instead of stopping, so a survivor reports every one, and the start.
#pragma once

#include <ccs/ccs.h>

#include <cstdio>

namespace failure_job {

inline int failures = 0;

// ccs_init, and this process's rank in a job of exactly 3; false (with
// the reason printed) otherwise.
inline bool start(int &rank) {
    if (ccs_init(nullptr) != CCS_OK) return false;
    int size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    if (size != 3) std::printf("needs 3 processes\n");
    return size == 3;
}

}  // namespace failure_job

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++failure_job::failures;                                                              \
            std::printf("check failed at line %d: %s (%s)\n", __LINE__, #cond, ccs_last_error()); \
        }                                                                                         \
    } while (0)
