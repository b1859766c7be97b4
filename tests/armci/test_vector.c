/* I/O vector put, get and accumulate (blocking and not), single values,
 * and location consistency: a process's own operations on one location
 * take effect in the order it issued them. */
#include "check.h"

enum { words = 4096 };

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    double **bases = (double **)malloc_parts(words * sizeof(double));
    memset(bases[me], 0, words * sizeof(double));
    ARMCI_Barrier();
    const int target = (me + 1) % nproc;
    double *mine_there = bases[target] + me * (words / 4 / 4);  /* 256 doubles per writer, up to 4 */
    enum { segments = 50 };
    double src[segments], got[segments];
    void *src_ptrs[segments], *dst_ptrs[segments], *got_ptrs[segments];
    for (int i = 0; i < segments; ++i) {
        src[i] = me * 1000 + i;
        src_ptrs[i] = &src[i];
        dst_ptrs[i] = mine_there + (i * 5) % 256;  /* scattered, distinct */
        got_ptrs[i] = &got[i];
    }
    armci_giov_t put = {src_ptrs, dst_ptrs, sizeof(double), segments};
    CHECK(ARMCI_PutV(&put, 1, target) == 0, "PutV");
    armci_giov_t get = {dst_ptrs, got_ptrs, sizeof(double), segments};
    CHECK(ARMCI_GetV(&get, 1, target) == 0, "GetV");
    for (int i = 0; i < segments; ++i) CHECK(got[i] == src[i], "PutV/GetV segment %d: %g", i, got[i]);
    double scale = 2;
    CHECK(ARMCI_AccV(ARMCI_ACC_DBL, &scale, &put, 1, target) == 0, "AccV");
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_NbAccV(ARMCI_ACC_DBL, &scale, &put, 1, target, &h) == 0, "NbAccV");
    CHECK(ARMCI_Wait(&h) == 0, "Wait");
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_NbGetV(&get, 1, target, &h) == 0, "NbGetV");
    CHECK(ARMCI_Wait(&h) == 0, "Wait");
    for (int i = 0; i < segments; ++i) CHECK(got[i] == 5 * src[i], "AccV segment %d: %g", i, got[i]);
    /* Two vectors in one call, and a bad segment: nothing moves. */
    armci_giov_t two[2] = {put, put};
    two[1].ptr_array_len = 10;
    CHECK(ARMCI_NbPutV(two, 2, target, NULL) == 0, "NbPutV");
    CHECK(ARMCI_WaitAll() == 0, "WaitAll");
    void *bad_dst[1] = {bases[target] + words + 100};
    armci_giov_t bad[2] = {put, {src_ptrs, bad_dst, sizeof(double), 1}};
    for (int i = 0; i < segments; ++i) src[i] = -1;
    CHECK(ARMCI_PutV(bad, 2, target) != 0, "a segment outside the allocation");
    CHECK(ARMCI_GetV(&get, 1, target) == 0, "GetV");
    for (int i = 0; i < segments; ++i) CHECK(got[i] == me * 1000 + i, "nothing moved: segment %d %g", i, got[i]);

    /* Values. */
    int *ints = (int *)(bases[target] + 3 * words / 4) + me * 8;
    long *longs = (long *)(ints + 4);
    CHECK(ARMCI_PutValueInt(-7, ints, target) == 0 && ARMCI_GetValueInt(ints, target) == -7, "int value");
    CHECK(ARMCI_PutValueLong(1L << 40, longs, target) == 0 && ARMCI_GetValueLong(longs, target) == 1L << 40, "long");
    CHECK(ARMCI_PutValueFloat(1.5f, ints + 1, target) == 0 && ARMCI_GetValueFloat(ints + 1, target) == 1.5f, "float");
    CHECK(ARMCI_PutValueDouble(2.25, longs + 1, target) == 0 && ARMCI_GetValueDouble(longs + 1, target) == 2.25, "double");
    CHECK(ARMCI_NbPutValueInt(9, ints + 2, target, NULL) == 0 && ARMCI_NbPutValueLong(10, longs, target, NULL) == 0 &&
              ARMCI_NbPutValueFloat(11, ints + 3, target, NULL) == 0 && ARMCI_NbPutValueDouble(12, longs + 1, target, NULL) == 0,
          "nonblocking values");
    ARMCI_Fence(target);
    CHECK(ARMCI_GetValueInt(ints + 2, target) == 9 && ARMCI_GetValueLong(longs, target) == 10 &&
              ARMCI_GetValueFloat(ints + 3, target) == 11 && ARMCI_GetValueDouble(longs + 1, target) == 12,
          "nonblocking values landed");

    /* Location consistency: put, accumulate, put, get of one word, no fence. */
    double *word = bases[target] + 3 * words / 4 + 64 + me;
    for (int round = 0; round < 200; ++round) {
        double a = round, one = 1, b = round * 3, r = -1;
        CHECK(ARMCI_Put(&a, word, 8, target) == 0, "put");
        CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &one, &a, word, 8, target) == 0, "acc");
        double mid = -1;
        CHECK(ARMCI_Get(word, &mid, 8, target) == 0 && mid == 2.0 * round, "round %d: after put+acc %g", round, mid);
        CHECK(ARMCI_Put(&b, word, 8, target) == 0, "put");
        CHECK(ARMCI_Get(word, &r, 8, target) == 0 && r == b, "round %d: read %g, last put %g", round, r, b);
    }
    ARMCI_Barrier();
    free_parts((void **)bases);
    if (me == 0) printf("vector: %d processes passed\n", nproc);
    stop();
    return 0;
}
