/* ARMCI micro-benchmarks, one source for ARMCI over CCS and ARMCI-MPI:
 * built against each one's armci.h and library, run under the same MPI
 * launcher by perf/compare_armci.sh. Process 0 works on process 1, which
 * waits in MPI_Barrier meanwhile (it makes no ARMCI call).
 *
 *   armci_perf <test> <bytes> [rows]
 *     put_lat, get_lat, acc_lat   ARMCI_Put/Get/Acc (doubles) of <bytes>,
 *                                 put and acc followed by ARMCI_Fence; us
 *     put_bw, get_bw, acc_bw      the same, 16 in a row over distinct
 *                                 places, then one fence; MB/s
 *     puts_lat, gets_lat, accs_lat  a 2-D patch of <rows> rows of <bytes>
 *                                 (remote rows 2 * <bytes> apart, local
 *                                 ones contiguous) by PutS/GetS/AccS, put
 *                                 and acc followed by ARMCI_Fence; us
 *     rmw_lat                     ARMCI_Rmw fetch-and-add; us
 *     lock_lat                    ARMCI_Lock and ARMCI_Unlock; us per pair
 * Prints "<test> <bytes> <figure>" from process 0, after about
 * ARMCI_PERF_SECONDS (0.5) of timed calls.
 */
#include <armci.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wall_clock.h"

#define SPACE (16u << 20)
#define BURST 16

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    const int me = armci_msg_me();
    if (argc < 3 || armci_msg_nproc() < 2) {
        if (me == 0) fprintf(stderr, "usage: armci_perf <test> <bytes> [rows] (2 processes or more)\n");
        ARMCI_Finalize();
        MPI_Finalize();
        return 2;
    }
    const char *test = argv[1];
    const int bytes = atoi(argv[2]), rows = argc > 3 ? atoi(argv[3]) : 1;
    void **bases = malloc(sizeof(void *) * armci_msg_nproc());
    ARMCI_Malloc(bases, SPACE);
    ARMCI_Create_mutexes(1);
    char *local = ARMCI_Malloc_local(SPACE);
    memset(local, 1, SPACE);
    memset(bases[me], 0, SPACE);
    char *remote = bases[1];
    const int slots = (int)(SPACE / (unsigned)bytes) < BURST ? (int)(SPACE / (unsigned)bytes) : BURST;
    int local_stride[1] = {bytes}, remote_stride[1] = {2 * bytes}, count[2] = {bytes, rows};
    double scale = 1.0;
    int ticket;
    const char *s = getenv("ARMCI_PERF_SECONDS");
    const double seconds = s ? atof(s) : 0.5;
    ARMCI_Barrier();
    MPI_Barrier(MPI_COMM_WORLD);
    /* The test as a number, so that the loop times ARMCI, not strcmp. */
    static const char *const names[] = {"put_lat", "get_lat", "acc_lat", "put_bw", "get_bw", "acc_bw",
                                        "puts_lat", "gets_lat", "accs_lat", "rmw_lat", "lock_lat"};
    int kind = -1;
    for (int k = 0; k < (int)(sizeof names / sizeof *names); ++k)
        if (!strcmp(test, names[k])) kind = k;
    if (kind < 0) ARMCI_Error("unknown test", 2);
    double figure = 0;
    if (me == 0) {
        long calls = 0;
        double t0 = 0;
        for (long i = 0;; ++i) {
            if (i == 50) t0 = now();
            if (i > 50 && (i & 15) == 0 && now() - t0 > seconds) {
                calls = i - 50;
                break;
            }
            switch (kind) {
            case 0:
                ARMCI_Put(local, remote, bytes, 1);
                ARMCI_Fence(1);
                break;
            case 1: ARMCI_Get(remote, local, bytes, 1); break;
            case 2:
                ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, bytes, 1);
                ARMCI_Fence(1);
                break;
            case 3:
            case 4:
            case 5:
                for (int k = 0; k < BURST; ++k) {
                    char *there = remote + (size_t)(k % slots) * (size_t)bytes;
                    if (kind == 3) ARMCI_Put(local, there, bytes, 1);
                    else if (kind == 4) ARMCI_Get(there, local, bytes, 1);
                    else ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, there, bytes, 1);
                }
                ARMCI_Fence(1);
                break;
            case 6:
                ARMCI_PutS(local, local_stride, remote, remote_stride, count, 1, 1);
                ARMCI_Fence(1);
                break;
            case 7: ARMCI_GetS(remote, remote_stride, local, local_stride, count, 1, 1); break;
            case 8:
                ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, local_stride, remote, remote_stride, count, 1, 1);
                ARMCI_Fence(1);
                break;
            case 9: ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &ticket, remote, 1, 1); break;
            default:
                ARMCI_Lock(0, 1);
                ARMCI_Unlock(0, 1);
            }
        }
        const double per_call = (now() - t0) / (double)calls;
        if (strstr(test, "_bw")) figure = (double)bytes * BURST / per_call / 1e6;
        else figure = per_call * 1e6;
        printf("%s %d %.3f\n", test, rows > 1 ? rows * bytes : bytes, figure);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Free_local(local);
    ARMCI_Destroy_mutexes();
    ARMCI_Free(bases[me]);
    free(bases);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
