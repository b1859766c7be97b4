/* What the ARMCI test programs share: CHECK prints where and what failed,
 * with the process, and ends the job with exit code 1; start and stop
 * bring MPI and ARMCI up and down. */
#ifndef ARMCI_TEST_CHECK_H
#define ARMCI_TEST_CHECK_H

#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int check_rank(void) {
    int r = -1, up = 0;
    MPI_Initialized(&up);
    if (up) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "process %d: %s:%d: CHECK(%s) failed: ", check_rank(), __FILE__,   \
                    __LINE__, #cond);                                                            \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
            fflush(stderr);                                                                      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
        }                                                                                        \
    } while (0)

static inline void start(int *argc, char ***argv, int *me, int *nproc) {
    MPI_Init(argc, argv);
    CHECK(ARMCI_Init() == 0, "ARMCI_Init");
    *me = armci_msg_me();
    *nproc = armci_msg_nproc();
}

/* A collective ARMCI_Malloc of `bytes` on every process: the table of
 * every process's part, indexed by process. */
static inline void **malloc_parts(armci_size_t bytes) {
    void **bases = malloc(sizeof(void *) * armci_msg_nproc());
    CHECK(bases != NULL, "malloc");
    CHECK(ARMCI_Malloc(bases, bytes) == 0, "ARMCI_Malloc");
    return bases;
}

/* The collective ARMCI_Free of this process's part, then the table. */
static inline void free_parts(void **bases) {
    CHECK(ARMCI_Free(bases[armci_msg_me()]) == 0, "ARMCI_Free");
    free(bases);
}

static inline void stop(void) {
    ARMCI_Finalize();
    MPI_Finalize();
}

#endif
