/* OSU-style collective latencies, one source for CCS and for MPI (built
 * with -DCOLL_BENCH_MPI against Debian's Open MPI and MPICH by
 * perf/compare_collectives.sh), so both are timed by the same loop:
 * barrier, 8-byte allreduce (one double, sum), 1 MiB allreduce (doubles,
 * sum), 1 MiB broadcast from rank 0; and, not run by default, 8-byte
 * and 1 MiB reduce to rank 0, 8-byte and 64 KiB gather to rank 0 and
 * allgather, and alltoall of 1 KiB per pair. Each process times its iterations
 * after a warm-up (about half a second's worth, as rank 0 measured them);
 * printed is the mean over processes of each one's
 * microseconds per call (OSU's "Avg Latency"), one line per test:
 *   <test> <bytes> <microseconds>
 *   usage: coll_bench [test ...]   (barrier allreduce8 allreduce1m bcast1m
 *                                   reduce8 reduce1m gather8 gather64k
 *                                   allgather8 allgather64k alltoall1k;
 *                                   default the first four) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wall_clock.h"

#ifdef COLL_BENCH_MPI
#include <mpi.h>
static void start(int *argc, char ***argv, int *rank, int *size) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}
static void stop(void) { MPI_Finalize(); }
static void barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static void allreduce(const double *src, double *dst, size_t n) {
    MPI_Allreduce(src, dst, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static void broadcast(void *buf, size_t bytes) { MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void reduce(const double *src, double *dst, size_t n) {
    MPI_Reduce(src, dst, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
static void gather(const void *src, size_t bytes, void *dst) {
    MPI_Gather(src, (int)bytes, MPI_BYTE, dst, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}
static void allgather(const void *src, size_t bytes, void *dst) {
    MPI_Allgather(src, (int)bytes, MPI_BYTE, dst, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
}
static void alltoall(const void *src, size_t bytes, void *dst) {
    MPI_Alltoall(src, (int)bytes, MPI_BYTE, dst, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
}
#else
#include <ccs/coll.h>
static void check(ccs_status_t st) {
    if (st != CCS_OK) {
        fprintf(stderr, "coll_bench: %s: %s\n", ccs_strerror(st), ccs_last_error());
        exit(1);
    }
}
static void start(int *argc, char ***argv, int *rank, int *size) {
    (void)argc, (void)argv;
    check(ccs_init(NULL));
    check(ccs_rank(rank));
    check(ccs_size(size));
}
static void stop(void) { check(ccs_finalize()); }
static void barrier(void) { check(ccs_team_barrier(CCS_TEAM_WORLD, NULL)); }
static void allreduce(const double *src, double *dst, size_t n) {
    check(ccs_team_allreduce(CCS_TEAM_WORLD, src, dst, n, CCS_ACC_DOUBLE, CCS_ACC_SUM, NULL));
}
static void broadcast(void *buf, size_t bytes) { check(ccs_team_broadcast(CCS_TEAM_WORLD, buf, bytes, 0, NULL)); }
static void reduce(const double *src, double *dst, size_t n) {
    check(ccs_team_reduce(CCS_TEAM_WORLD, src, dst, n, CCS_ACC_DOUBLE, CCS_ACC_SUM, 0, NULL));
}
static void gather(const void *src, size_t bytes, void *dst) {
    check(ccs_team_gather(CCS_TEAM_WORLD, src, bytes, dst, 0, NULL));
}
static void allgather(const void *src, size_t bytes, void *dst) {
    check(ccs_team_allgather(CCS_TEAM_WORLD, src, bytes, dst, NULL));
}
static void alltoall(const void *src, size_t bytes, void *dst) {
    check(ccs_team_alltoall(CCS_TEAM_WORLD, src, bytes, dst, NULL));
}
#endif

static double now_us(void) { return now() * 1e6; }

enum { mib = 1 << 20 };
static double *src, *dst;
static unsigned char *bytes, *gathered;

static void run_once(const char *test) {
    if (!strcmp(test, "barrier")) barrier();
    else if (!strcmp(test, "allreduce8")) allreduce(src, dst, 1);
    else if (!strcmp(test, "allreduce1m")) allreduce(src, dst, mib / sizeof(double));
    else if (!strcmp(test, "reduce8")) reduce(src, dst, 1);
    else if (!strcmp(test, "reduce1m")) reduce(src, dst, mib / sizeof(double));
    else if (!strcmp(test, "gather8")) gather(bytes, 8, gathered);
    else if (!strcmp(test, "gather64k")) gather(bytes, 64 * 1024, gathered);
    else if (!strcmp(test, "allgather8")) allgather(bytes, 8, gathered);
    else if (!strcmp(test, "allgather64k")) allgather(bytes, 64 * 1024, gathered);
    else if (!strcmp(test, "alltoall1k")) alltoall(bytes, 1024, gathered);
    else broadcast(bytes, mib);
}

/* Bytes per process (allgather, alltoall: per block). */
static size_t test_bytes(const char *test) {
    if (!strcmp(test, "barrier")) return 0;
    if (!strcmp(test, "allreduce8") || !strcmp(test, "reduce8") || !strcmp(test, "gather8") ||
        !strcmp(test, "allgather8"))
        return 8;
    if (!strcmp(test, "gather64k") || !strcmp(test, "allgather64k")) return 64 * 1024;
    if (!strcmp(test, "alltoall1k")) return 1024;
    return mib;
}

int main(int argc, char **argv) {
    int rank = 0, size = 0;
    start(&argc, &argv, &rank, &size);
    src = malloc(mib);
    dst = malloc(mib);
    bytes = malloc(mib);
    gathered = malloc((size_t)size * 64 * 1024);
    for (size_t i = 0; i < mib / sizeof(double); ++i) src[i] = (double)(i % 7);
    memset(bytes, rank, mib);
    static const char *const all[] = {"barrier", "allreduce8", "allreduce1m", "bcast1m"};
    const int ntests = argc > 1 ? argc - 1 : 4;
    for (int t = 0; t < ntests; ++t) {
        const char *test = argc > 1 ? argv[t + 1] : all[t];
        /* Warm-up, and as many iterations as take about half a second at
         * rank 0's pace (a library that crawls when processes share CPUs
         * gets fewer), at least 10. */
        for (int i = 0; i < 5; ++i) run_once(test);
        barrier();
        const double probe = now_us();
        for (int i = 0; i < 10; ++i) run_once(test);
        double iterations = 5e5 / ((now_us() - probe) / 10);
        iterations = iterations < 10 ? 10 : iterations > 200000 ? 200000 : iterations;
        broadcast(&iterations, sizeof iterations);
        barrier();
        const double t0 = now_us();
        for (long i = 0; i < (long)iterations; ++i) run_once(test);
        double mine = (now_us() - t0) / (long)iterations, sum = 0;
        allreduce(&mine, &sum, 1);
        if (rank == 0) printf("%s %zu %.3f\n", test, test_bytes(test), sum / size);
        fflush(stdout);
    }
    free(src);
    free(dst);
    free(bytes);
    free(gathered);
    stop();
    return 0;
}
