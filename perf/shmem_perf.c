/* OpenSHMEM micro-benchmarks, one source for every implementation: built
 * with CCS's oshcc and with Open MPI's, run under each one's launcher by
 * perf/compare_shmem.sh. Only OpenSHMEM 1.4 calls, which both have.
 *
 *   shmem_perf <test> [bytes]
 *     put_lat   shmem_putmem ping-pong between PE 0 and 1; one-way us
 *               (the last 8 bytes are the flag the other side waits on)
 *     get_lat   blocking shmem_getmem from PE 1; us per get
 *     put_bw    windows of 64 shmem_putmem_nbi, then shmem_quiet; MB/s
 *     get_bw    the same with shmem_getmem_nbi
 *     p_lat     shmem_long_p ping-pong; one-way us
 *     g_lat     shmem_long_g from PE 1; us per call
 *     fadd_lat  shmem_long_atomic_fetch_add on PE 1; us per call
 *     barrier   shmem_barrier_all on every PE; us per call
 *     reduce    shmem_long_sum_to_all of [bytes / 8] longs on every PE; us
 *   Built with -DCCS_NATIVE (against libccs) two more, the same way:
 *     ccs_put_lat  ccs_put ping-pong; one-way us
 *     ccs_fadd_lat ccs_atomic_sync fetch-add; us per call
 * Prints "<test> <bytes> <figure>" from PE 0. Each test runs for about
 * SHMEM_PERF_SECONDS (0.5) after a warm-up.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wall_clock.h"

#ifdef CCS_NATIVE
#include <ccs/rma.h>
#endif

#define MAX_BYTES (4u << 20)
#define WINDOW 64

static double seconds(void) {
    const char *v = getenv("SHMEM_PERF_SECONDS");
    return v ? atof(v) : 0.5;
}

/* Runs step(i) in rounds until the time is up on the PEs `who` names
 * (0: PE 0, 1: PEs 0 and 1, 2: every PE); PE 0 decides when and tells the
 * others through `go`, so all stop after the same round. Returns the
 * seconds per call over the timed rounds. */
static long go;
typedef void (*step_fn)(long i, size_t bytes, char *buf, char *src);

static double timed(step_fn step, size_t bytes, char *buf, char *src, int who) {
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int busy = who == 2 ? n : who + 1; /* PEs 0 .. busy-1 take part */
    long i = 0, calls = 0;
    if (me < busy)
        for (; i < 100; ++i) step(i, bytes, buf, src);
    shmem_barrier_all();
    const double budget = seconds(), t0 = now();
    while (me < busy) {
        for (int k = 0; k < 100; ++k, ++i, ++calls) step(i, bytes, buf, src);
        if (me == 0) {
            const long stop = now() - t0 > budget;
            for (int pe = 1; pe < busy; ++pe) shmem_long_p(&go, stop ? -1 : i, pe);
            if (stop) break;
        } else {
            shmem_long_wait_until(&go, SHMEM_CMP_NE, 0);
            const long v = go;
            go = 0;
            if (v < 0) break;
        }
    }
    const double per = calls ? (now() - t0) / calls : 0;
    shmem_barrier_all();
    return per;
}

/* Ping-pong: PE 0 puts round i, PE 1 waits for it and puts it back. */
static void put_step(long i, size_t bytes, char *buf, char *src) {
    const int me = shmem_my_pe();
    long *flag = (long *)(buf + bytes - sizeof(long));
    const long v = 2 * i + 1 + me;
    *(long *)(src + bytes - sizeof(long)) = v;
    if (me == 0) {
        shmem_putmem(buf, src, bytes, 1);
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, v + 1);
    } else {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, v - 1);
        shmem_putmem(buf, src, bytes, 0);
    }
}
static void p_step(long i, size_t bytes, char *buf, char *src) {
    (void)bytes, (void)src;
    const int me = shmem_my_pe();
    long *flag = (long *)buf;
    const long v = 2 * i + 1 + me;
    if (me == 0) {
        shmem_long_p(flag, v, 1);
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, v + 1);
    } else {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, v - 1);
        shmem_long_p(flag, v, 0);
    }
}
static void get_step(long i, size_t bytes, char *buf, char *src) {
    (void)i;
    shmem_getmem(src, buf, bytes, 1);
}
static void g_step(long i, size_t bytes, char *buf, char *src) {
    (void)i, (void)bytes, (void)src;
    (void)shmem_long_g((long *)buf, 1);
}
static void put_bw_step(long i, size_t bytes, char *buf, char *src) {
    (void)i;
    for (int k = 0; k < WINDOW; ++k) shmem_putmem_nbi(buf, src, bytes, 1);
    shmem_quiet();
}
static void get_bw_step(long i, size_t bytes, char *buf, char *src) {
    (void)i;
    for (int k = 0; k < WINDOW; ++k) shmem_getmem_nbi(src, buf, bytes, 1);
    shmem_quiet();
}
static void fadd_step(long i, size_t bytes, char *buf, char *src) {
    (void)i, (void)bytes, (void)src;
    (void)shmem_long_atomic_fetch_add((long *)buf, 1, 1);
}
static void barrier_step(long i, size_t bytes, char *buf, char *src) {
    (void)i, (void)bytes, (void)buf, (void)src;
    shmem_barrier_all();
}
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAX_BYTES / 16];
static void reduce_step(long i, size_t bytes, char *buf, char *src) {
    (void)i;
    /* Two pSync arrays would allow back-to-back calls; one needs the barrier. */
    shmem_long_sum_to_all((long *)buf, (long *)src, (int)(bytes / 8), 0, 0, shmem_n_pes(), pwrk, psync);
    shmem_barrier_all();
}

#ifdef CCS_NATIVE
static ccs_context_t ccs_ctx;
static void ccs_put_step(long i, size_t bytes, char *buf, char *src) {
    const int me = shmem_my_pe();
    uint64_t *flag = (uint64_t *)(buf + bytes - 8);
    const uint64_t v = (uint64_t)(2 * i + 1 + me);
    *(uint64_t *)(src + bytes - 8) = v;
    if (me == 0) {
        ccs_put(ccs_ctx, 1, src, bytes, (uint64_t)(uintptr_t)buf, CCS_RKEY_SYMMETRIC, NULL);
        ccs_wait_until(flag, CCS_UINT64, CCS_CMP_EQ, v + 1);
    } else {
        ccs_wait_until(flag, CCS_UINT64, CCS_CMP_EQ, v - 1);
        ccs_put(ccs_ctx, 0, src, bytes, (uint64_t)(uintptr_t)buf, CCS_RKEY_SYMMETRIC, NULL);
    }
}
static void ccs_fadd_step(long i, size_t bytes, char *buf, char *src) {
    (void)i, (void)bytes, (void)src;
    int64_t old;
    ccs_atomic_sync(ccs_ctx, 1, CCS_ATOMIC_ADD, CCS_INT64, (uint64_t)(uintptr_t)buf, CCS_RKEY_SYMMETRIC, 1, 0, &old);
}
#endif

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: shmem_perf <test> [bytes]\n");
        return 2;
    }
    const char *test = argv[1];
    size_t bytes = argc > 2 ? strtoul(argv[2], NULL, 10) : 8;
    if (bytes < 8 || bytes > MAX_BYTES) bytes = 8;
    shmem_init();
    char *buf = shmem_malloc(MAX_BYTES), *src = shmem_malloc(MAX_BYTES);
    memset(buf, 0, MAX_BYTES);
    memset(src, 1, MAX_BYTES);
    for (size_t k = 0; k < sizeof psync / sizeof psync[0]; ++k) psync[k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    double per = 0, figure = 0;
    int one_way = 0, bandwidth = 0;
    if (!strcmp(test, "put_lat")) per = timed(put_step, bytes, buf, src, 1), one_way = 1;
    else if (!strcmp(test, "p_lat")) per = timed(p_step, 8, buf, src, 1), one_way = 1;
    else if (!strcmp(test, "get_lat")) per = timed(get_step, bytes, buf, src, 0);
    else if (!strcmp(test, "g_lat")) per = timed(g_step, 8, buf, src, 0);
    else if (!strcmp(test, "put_bw")) per = timed(put_bw_step, bytes, buf, src, 0), bandwidth = 1;
    else if (!strcmp(test, "get_bw")) per = timed(get_bw_step, bytes, buf, src, 0), bandwidth = 1;
    else if (!strcmp(test, "fadd_lat")) per = timed(fadd_step, 8, buf, src, 0);
    else if (!strcmp(test, "barrier")) per = timed(barrier_step, 8, buf, src, 2);
    else if (!strcmp(test, "reduce")) per = timed(reduce_step, bytes, buf, src, 2);
#ifdef CCS_NATIVE
    else if (!strcmp(test, "ccs_put_lat") || !strcmp(test, "ccs_fadd_lat")) {
        ccs_context_params_t params = {sizeof params, 0, "perf", NULL, 0, NULL, 0};
        ccs_context_create(&params, &ccs_ctx);
        if (!strcmp(test, "ccs_put_lat")) per = timed(ccs_put_step, bytes, buf, src, 1), one_way = 1;
        else per = timed(ccs_fadd_step, 8, buf, src, 0);
        ccs_context_destroy(ccs_ctx);
    }
#endif
    else {
        if (shmem_my_pe() == 0) fprintf(stderr, "unknown test '%s'\n", test);
        shmem_finalize();
        return 2;
    }
    figure = bandwidth ? WINDOW * bytes / per / 1e6 : (one_way ? per / 2 : per) * 1e6;
    /* Atomics take tens of nanoseconds: a fourth decimal below 1 us. */
    if (shmem_my_pe() == 0) printf("%s %zu %.*f\n", test, bytes, figure < 1 ? 4 : 3, figure);
    shmem_free(src);
    shmem_free(buf);
    shmem_finalize();
    return 0;
}
