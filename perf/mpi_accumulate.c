/* The MPI peer of CCS's accumulate benchmark (accumulate/<bytes> in
 * ccs_perf_rma): 2 processes, rank 0 does MPI_Accumulate (MPI_SUM of
 * doubles) into rank 1's MPI_Win_allocate window, each completed by
 * MPI_Win_flush, inside one MPI_Win_lock_all epoch; rank 1 waits in
 * MPI_Barrier (which progresses). Prints "<bytes> <microseconds per
 * operation>" per size. Built against Open MPI and MPICH alike by
 * perf/compare_accumulate.sh.
 *   usage: mpi_accumulate [bytes ...] */
#include "mpi_pair.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    const int rank = mpi_pair_start(&argc, &argv);
    const long max_bytes = 4 << 20;
    double *src = malloc((size_t)max_bytes);
    for (long i = 0; i < max_bytes / 8; ++i) src[i] = 1.0;
    double *base = NULL;
    MPI_Win win;
    MPI_Win_allocate(max_bytes + 4096, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        for (int a = 1; a < argc; ++a) {
            const long bytes = atol(argv[a]);
            const int count = (int)(bytes / 8);
            /* About a second's worth, at least 10. */
            long iterations = bytes >= (1 << 20) ? 40 : bytes >= 65536 ? 2000 : 20000;
            for (long i = 0; i < iterations / 10 + 1; ++i) {
                MPI_Accumulate(src, count, MPI_DOUBLE, 1, 512, count, MPI_DOUBLE, MPI_SUM, win);
                MPI_Win_flush(1, win);
            }
            const double start = MPI_Wtime();
            for (long i = 0; i < iterations; ++i) {
                MPI_Accumulate(src, count, MPI_DOUBLE, 1, 512, count, MPI_DOUBLE, MPI_SUM, win);
                MPI_Win_flush(1, win);
            }
            printf("%ld %.3f\n", bytes, (MPI_Wtime() - start) / (double)iterations * 1e6);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(src);
    MPI_Finalize();
    return 0;
}
