/* What the MPI peers of CCS's benchmarks share: MPI started, two
 * processes required (else a message and MPI_Abort). Returns the rank. */
#ifndef CCS_PERF_MPI_PAIR_H
#define CCS_PERF_MPI_PAIR_H

#include <mpi.h>
#include <stdio.h>

static int mpi_pair_start(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return rank;
}

#endif
