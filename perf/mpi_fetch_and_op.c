/* The MPI peer of CCS's fetch-add latency (atomic_latency/0/0 in
 * ccs_perf_rma): 2 processes, rank 0 does MPI_Fetch_and_op (MPI_SUM on one
 * uint64_t) on a word of rank 1's window from MPI_Win_allocate, each
 * completed by MPI_Win_flush, inside one MPI_Win_lock_all epoch; rank 1
 * waits in MPI_Barrier (which progresses). Prints the average time of one
 * operation in microseconds. Built against Open MPI and MPICH alike by
 * perf/compare_fetch_and_op.sh.
 *   usage: mpi_fetch_and_op [iterations] */
#include "mpi_pair.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    const int rank = mpi_pair_start(&argc, &argv);
    const long iterations = argc > 1 ? atol(argv[1]) : 200000;
    uint64_t *base = NULL;
    MPI_Win win;
    MPI_Win_allocate(4096, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        const uint64_t one = 1;
        uint64_t old = 0;
        for (long i = 0; i < iterations / 10; ++i) { /* warm-up */
            MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        const double start = MPI_Wtime();
        for (long i = 0; i < iterations; ++i) {
            MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        const double took = MPI_Wtime() - start;
        printf("%.4f\n", took / (double)iterations * 1e6);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
