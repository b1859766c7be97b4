/* Operations complete without the target calling ARMCI: process 0
 * computes for a while without any call, and the others accumulate into
 * it, draw from its counter and read from it meanwhile. Each of them must
 * be done (fenced) before the target stops computing. Run over a
 * transport where nothing is mapped too (UCX over TCP), where the
 * progress thread serves it. */
#include "check.h"

#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    double **bases = (double **)malloc_parts(1024 * sizeof(double));
    memset(bases[me], 0, 1024 * sizeof(double));
    ARMCI_Barrier();
    const double compute_seconds = 1.5;
    double done_at = 0;
    if (me == 0) {
        /* Compute: no ARMCI or MPI call until the time is up. */
        const double start_time = now();
        volatile double sink = 0;
        while (now() - start_time < compute_seconds) sink += 1e-9;
        (void)sink;
    } else {
        double ones[512];
        for (int i = 0; i < 512; ++i) ones[i] = 1;
        double scale = 1;
        for (int r = 0; r < 20; ++r) CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &scale, ones, bases[0], sizeof ones, 0) == 0, "Acc");
        int ticket;
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &ticket, (int *)(bases[0] + 1000), 1, 0) == 0, "Rmw");
        double first;
        CHECK(ARMCI_Get(bases[0] + 600, &first, sizeof first, 0) == 0, "Get");
        ARMCI_Fence(0);
        done_at = now();
    }
    /* When did the others finish, against when the target started? */
    double times[2] = {me == 0 ? now() : 0, done_at}, all[2];
    MPI_Allreduce(times, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (nproc > 1) CHECK(all[1] < all[0], "the others finished %.3f s after the target stopped computing", all[1] - all[0]);
    ARMCI_Barrier();
    if (me == 0) {
        for (int i = 0; i < 512; ++i) CHECK(bases[0][i] == 20.0 * (nproc - 1), "element %d: %g", i, bases[0][i]);
        CHECK(*(int *)(bases[0] + 1000) == nproc - 1, "counter");
        printf("progress: %d processes passed\n", nproc);
    }
    ARMCI_Barrier();
    free_parts((void **)bases);
    stop();
    return 0;
}
