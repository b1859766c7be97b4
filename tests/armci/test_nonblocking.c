/* Nonblocking handles: one operation each, aggregate handles with many,
 * ARMCI_Test until done, implicit handles completed by WaitAll and
 * WaitProc, a handle reused after Wait, a stale handle. */
#include "check.h"

enum { bytes = 1 << 16 };

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    char **bases = (char **)malloc_parts((armci_size_t)bytes * nproc);
    const int target = (me + nproc - 1) % nproc;
    char *mine = bases[target] + me * bytes;
    static char src[bytes], got[bytes];
    for (int i = 0; i < bytes; ++i) src[i] = (char)(i * 7 + me);

    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_NbPut(src, mine, bytes, target, &h) == 0, "NbPut");
    CHECK(ARMCI_Wait(&h) == 0, "Wait");
    CHECK(ARMCI_Wait(&h) == 0, "a second Wait on a completed handle");
    ARMCI_Fence(target);
    ARMCI_INIT_HANDLE(&h);
    memset(got, 0, sizeof got);
    CHECK(ARMCI_NbGet(mine, got, bytes, target, &h) == 0, "NbGet");
    while (ARMCI_Test(&h) != 0) {
    }
    CHECK(memcmp(got, src, bytes) == 0, "NbGet data after Test said done");

    /* Aggregate: 64 small puts under one handle. */
    ARMCI_INIT_HANDLE(&h);
    ARMCI_SET_AGGREGATE_HANDLE(&h);
    static char pieces[64][64];
    for (int i = 0; i < 64; ++i) {
        memset(pieces[i], 'a' + i % 26, 64);
        CHECK(ARMCI_NbPut(pieces[i], mine + i * 64, 64, target, &h) == 0, "aggregate NbPut %d", i);
    }
    CHECK(ARMCI_Wait(&h) == 0, "Wait aggregate");
    ARMCI_UNSET_AGGREGATE_HANDLE(&h);
    ARMCI_Fence(target);
    CHECK(ARMCI_Get(mine, got, 64 * 64, target) == 0, "Get");
    for (int i = 0; i < 64 * 64; ++i) CHECK(got[i] == 'a' + (i / 64) % 26, "aggregate byte %d", i);

    /* Many handles in flight at once, waited for in reverse. */
    enum { n = 100 };
    armci_hdl_t hs[n];
    static long counts[n], zeros[n];
    long *acc_words = (long *)(mine + 8192);
    CHECK(ARMCI_Put(zeros, acc_words, sizeof zeros, target) == 0, "zeroing");
    for (int i = 0; i < n; ++i) {
        counts[i] = i;
        ARMCI_INIT_HANDLE(&hs[i]);
        long one = 1;
        CHECK(ARMCI_NbAcc(ARMCI_ACC_LNG, &one, &counts[i], acc_words + i, sizeof(long), target, &hs[i]) == 0, "NbAcc");
    }
    for (int i = n - 1; i >= 0; --i) CHECK(ARMCI_Wait(&hs[i]) == 0, "Wait %d", i);

    /* Implicit handles. */
    for (int i = 0; i < n; ++i) CHECK(ARMCI_NbPut(src + i, mine + bytes - n + i, 1, target, NULL) == 0, "implicit");
    CHECK(ARMCI_WaitProc(target) == 0, "WaitProc");
    CHECK(ARMCI_WaitProc(nproc) != 0, "WaitProc of a process that is not");
    for (int i = 0; i < n; ++i) CHECK(ARMCI_NbGet(mine + bytes - n + i, got + i, 1, target, NULL) == 0, "implicit get");
    CHECK(ARMCI_WaitAll() == 0, "WaitAll");
    CHECK(memcmp(got, src, n) == 0, "implicit gets");

    /* A failed issue leaves the handle usable. */
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_NbPut(src, mine, 8, nproc + 3, &h) != 0, "bad target");
    CHECK(ARMCI_Wait(&h) == 0, "Wait on a handle with nothing issued");
    for (int i = 0; i < n; ++i) {
        long v;
        CHECK(ARMCI_Get(acc_words + i, &v, sizeof v, target) == 0, "Get");
        CHECK(v == i, "NbAcc word %d: %ld", i, v);
    }
    ARMCI_Barrier();
    free_parts((void **)bases);
    if (me == 0) printf("nonblocking: %d processes passed\n", nproc);
    stop();
    return 0;
}
