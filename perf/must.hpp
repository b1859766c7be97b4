// What every benchmark does with a call that fails: says which call and
// why, and stops (a figure measured past a failure would mean nothing).
#pragma once

#include <ccs/ccs.h>

#include <cstdio>
#include <cstdlib>

inline void must(ccs_status_t st, const char *what) {
    if (st == CCS_OK) return;
    std::fprintf(stderr, "%s: %s: %s\n", what, ccs_strerror(st), ccs_last_error());
    std::exit(1);
}
