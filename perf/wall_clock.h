/* The C benchmarks' clock: seconds on CLOCK_MONOTONIC, for timing calls
 * in a loop (the same in every implementation's build of a program). */
#ifndef CCS_PERF_WALL_CLOCK_H
#define CCS_PERF_WALL_CLOCK_H

#include <time.h>

static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
