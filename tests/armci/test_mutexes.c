/* Mutexes under contention: every process increments counters on every
 * process by get, add, put (not atomic) inside a lock; no increment is
 * lost. Processes host different numbers of mutexes. */
#include "check.h"

enum { rounds = 100 };

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    const int hosted = 1 + me % 3;
    CHECK(ARMCI_Create_mutexes(hosted) == 0, "ARMCI_Create_mutexes");
    CHECK(ARMCI_Create_mutexes(1) != 0, "a second set while one exists");
    long **bases = (long **)malloc_parts(8 * sizeof(long));
    memset(bases[me], 0, 8 * sizeof(long));
    ARMCI_Barrier();
    for (int r = 0; r < rounds; ++r) {
        const int proc = (me + r) % nproc;
        const int m = r % (1 + proc % 3);
        ARMCI_Lock(m, proc);
        long v;
        CHECK(ARMCI_Get(bases[proc] + m, &v, sizeof v, proc) == 0, "Get");
        ++v;
        CHECK(ARMCI_Put(&v, bases[proc] + m, sizeof v, proc) == 0, "Put");
        ARMCI_Unlock(m, proc);
    }
    /* Two locks held at once. */
    if (nproc > 1) {
        ARMCI_Lock(0, 0);
        ARMCI_Lock(0, 1);
        ARMCI_Unlock(0, 1);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    /* Process p's counter m got one increment from every round any
     * process aimed at (p, m). */
    for (int m = 0; m < hosted; ++m) {
        long want = 0;
        for (int q = 0; q < nproc; ++q)
            for (int r = 0; r < rounds; ++r)
                if ((q + r) % nproc == me && r % hosted == m) ++want;
        CHECK(bases[me][m] == want, "counter %d: %ld, want %ld", m, bases[me][m], want);
    }
    ARMCI_Barrier();
    CHECK(ARMCI_Destroy_mutexes() == 0, "ARMCI_Destroy_mutexes");
    CHECK(ARMCI_Destroy_mutexes() != 0, "destroying twice");
    free_parts((void **)bases);
    if (me == 0) printf("mutexes: %d processes passed\n", nproc);
    stop();
    return 0;
}
