/* ARMCI_Rmw: a shared task counter (NXTVAL, as Global Arrays' load
 * balancing draws work): every process draws tasks from one counter on
 * process 0 until none are left; each task is drawn exactly once. Then
 * long counters, swaps, and mistakes. */
#include "check.h"

enum { tasks = 2000 };

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    long **bases = (long **)malloc_parts(16 * sizeof(long) + tasks * sizeof(int));
    memset(bases[me], 0, 16 * sizeof(long) + tasks * sizeof(int));
    ARMCI_Barrier();
    int *counter = (int *)bases[0];
    int *taken_by = (int *)(bases[0] + 16);
    int drawn = 0;
    for (;;) {
        int task;
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &task, counter, 1, 0) == 0, "fetch-and-add");
        if (task >= tasks) break;
        /* Record who took it: a second taker would find it set. */
        int previous = me + 1;
        CHECK(ARMCI_Rmw(ARMCI_SWAP, &previous, taken_by + task, 0, 0) == 0, "swap");
        CHECK(previous == 0, "task %d taken twice (by %d and %d)", task, previous - 1, me);
        ++drawn;
    }
    int total = drawn;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == tasks, "%d tasks drawn, %d exist", total, tasks);
    ARMCI_Barrier();
    if (me == 0)
        for (int t = 0; t < tasks; ++t) CHECK(taken_by[t] != 0, "task %d never taken", t);

    /* Long counter on every process, from everyone, with large values. */
    long *lc = bases[(me + 1) % nproc] + 1;
    long old;
    for (int i = 0; i < 100; ++i) CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, lc, 1 << 20, (me + 1) % nproc) == 0, "long");
    ARMCI_Barrier();
    CHECK(bases[me][1] == 100L << 20, "long counter %ld", bases[me][1]);
    long mine = (long)me << 33;
    CHECK(ARMCI_Rmw(ARMCI_SWAP_LONG, &mine, bases[0] + 2, 0, 0) == 0, "swap long");
    ARMCI_Barrier();
    /* The swaps chained: the word and the values handed back are every
     * process's value once. */
    long seen = mine + (me == 0 ? bases[0][2] : 0);
    MPI_Allreduce(MPI_IN_PLACE, &seen, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long want = 0;
    for (int p = 0; p < nproc; ++p) want += (long)p << 33;
    CHECK(seen == want, "swap values %ld, want %ld", seen, want);

    /* Mistakes. */
    int v = 0;
    CHECK(ARMCI_Rmw(17, &v, counter, 1, 0) != 0, "unknown op");
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &v, counter, 1, nproc) != 0, "bad process");
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &v, &v, 1, 0) != 0, "not ARMCI memory");
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (char *)(bases[0] + 3) + 4, 1, 0) != 0, "misaligned long");
    ARMCI_Barrier();
    free_parts((void **)bases);
    if (me == 0) printf("rmw: %d processes passed\n", nproc);
    stop();
    return 0;
}
