// What the thread benchmarks share: CCS at thread level multiple in a job
// of two processes.
#pragma once

#include "must.hpp"

#include <cstdio>
#include <cstdlib>

// This process's rank; exits with a message unless the job has 2.
inline int init_pair_at_level_multiple() {
    ccs_init_params_t params{};
    params.struct_size = sizeof params;
    params.thread_level = CCS_THREAD_MULTIPLE;
    must(ccs_init(&params), "ccs_init");
    int rank = 0, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    if (size != 2) {
        std::fprintf(stderr, "run with 2 processes\n");
        std::exit(2);
    }
    return rank;
}
