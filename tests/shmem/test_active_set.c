/* The deprecated active-set collectives with pSync: barrier and sync on
 * the whole job and on strided sets, broadcast from each root, collect
 * with sizes that differ, fcollect, alltoall(s), the *_to_all reductions,
 * and pSync back at SHMEM_SYNC_VALUE after each. Programs reuse pSync
 * arrays after a barrier; so does this one. */
#include "check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#define MAXPE 8
static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static long work[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
static int64_t src64[4 * MAXPE], dst64[4 * MAXPE];
static int32_t src32[4 * MAXPE], dst32[4 * MAXPE];
static int isrc[4], idst[4];
static long lsrc[4], ldst[4];
static short ssrc[2], sdst[2];
static double dsrc[3];
static double _Complex zsrc, zdst;
static long double ldsrc, lddst;
static double dwork[64];
static short swork[64];
static int iwork[64];
static long double ldwork[64];
static double _Complex zwork[64];

static void check_clean(void) {
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i)
            CHECK(psync[k][i] == SHMEM_SYNC_VALUE, "pSync[%d][%d] left at %ld", k, i, psync[k][i]);
}

/* Everything on the set (start, log_stride, size); me_index is this PE's place. */
static void run(int start, int log_stride, int size, int me_index) {
    const int stride = 1 << log_stride;
    for (int round = 0; round < 20; ++round) {
        shmem_barrier(start, log_stride, size, psync[round % 2]);
        shmem_sync(start, log_stride, size, psync[(round + 1) % 2]);
    }
    for (int root = 0; root < size; ++root) {
        for (int i = 0; i < 4; ++i) src64[i] = root * 10 + i;
        memset(dst64, 0, sizeof dst64);
        shmem_broadcast64(dst64, src64, 4, root, start, log_stride, size, psync[root % 2]);
        if (me_index != root)
            for (int i = 0; i < 4; ++i) CHECK(dst64[i] == root * 10 + i, "broadcast64 from %d", root);
        shmem_barrier(start, log_stride, size, psync[(root + 1) % 2]);
    }
    /* fcollect32: three each */
    for (int i = 0; i < 3; ++i) src32[i] = me_index * 100 + i;
    shmem_fcollect32(dst32, src32, 3, start, log_stride, size, psync[0]);
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < 3; ++i) CHECK(dst32[p * 3 + i] == p * 100 + i, "fcollect32 %d.%d", p, i);
    /* collect64: member p gives p + 1 */
    for (int i = 0; i <= me_index && i < 4; ++i) src64[i] = me_index * 100 + i;
    memset(dst64, 0, sizeof dst64);
    shmem_collect64(dst64, src64, (size_t)(me_index < 4 ? me_index + 1 : 4), start, log_stride, size, psync[1]);
    int at = 0;
    for (int p = 0; p < size; ++p)
        for (int i = 0; i <= p && i < 4; ++i, ++at) CHECK(dst64[at] == p * 100 + i, "collect64 element %d", at);
    /* alltoall64: block j of member i is i * 100 + j */
    for (int j = 0; j < size; ++j) src64[j] = me_index * 100 + j;
    shmem_alltoall64(dst64, src64, 1, start, log_stride, size, psync[0]);
    for (int i = 0; i < size; ++i) CHECK(dst64[i] == i * 100 + me_index, "alltoall64 from %d", i);
    /* alltoalls32: out every 2nd, in every 1st */
    for (int j = 0; j < size; ++j) src32[2 * j] = me_index * 100 + j;
    shmem_alltoalls32(dst32, src32, 1, 2, 1, start, log_stride, size, psync[1]);
    for (int i = 0; i < size; ++i) CHECK(dst32[i] == i * 100 + me_index, "alltoalls32 from %d", i);
    shmem_barrier(start, log_stride, size, psync[0]);

    /* Reductions, expected over members p = 0 .. size-1 */
    isrc[0] = me_index + 1;
    isrc[1] = -me_index;
    shmem_int_sum_to_all(idst, isrc, 2, start, log_stride, size, iwork, psync[0]);
    CHECK(idst[0] == size * (size + 1) / 2 && idst[1] == -size * (size - 1) / 2, "int sum %d %d", idst[0], idst[1]);
    lsrc[0] = me_index * 3;
    shmem_long_max_to_all(ldst, lsrc, 1, start, log_stride, size, work, psync[1]);
    CHECK(ldst[0] == (size - 1) * 3, "long max %ld", ldst[0]);
    ssrc[0] = (short)(1 << me_index);
    ssrc[1] = (short)(0x7fff ^ (1 << me_index));
    shmem_short_or_to_all(sdst, ssrc, 1, start, log_stride, size, swork, psync[0]);
    CHECK(sdst[0] == (short)((1 << size) - 1), "short or %d", sdst[0]);
    shmem_short_and_to_all(&sdst[1], &ssrc[1], 1, start, log_stride, size, swork, psync[1]);
    CHECK(sdst[1] == (short)(0x7fff ^ ((1 << size) - 1)), "short and %d", sdst[1]);
    dsrc[0] = 0.5 * me_index;
    shmem_double_sum_to_all(dsrc, dsrc, 1, start, log_stride, size, dwork, psync[0]); /* in place */
    CHECK(dsrc[0] == 0.25 * size * (size - 1), "double sum in place %g", dsrc[0]);
    zsrc = 1.0 + 1.0 * I;
    shmem_complexd_prod_to_all(&zdst, &zsrc, 1, start, log_stride, size, zwork, psync[1]);
    double _Complex expect = 1;
    for (int p = 0; p < size; ++p) expect *= 1.0 + 1.0 * I;
    CHECK(zdst == expect, "complex prod");
    ldsrc = -(long double)me_index;
    shmem_longdouble_min_to_all(&lddst, &ldsrc, 1, start, log_stride, size, ldwork, psync[0]);
    CHECK(lddst == -(long double)(size - 1), "long double min");
    shmem_barrier(start, log_stride, size, psync[1]);
    (void)stride;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n <= MAXPE, "at most %d PEs", MAXPE);
    /* Each check between two barriers: a set's next call may start as
     * soon as its members leave the barrier before it. */
    run(0, 0, n, me);
    shmem_barrier_all();
    check_clean();
    shmem_barrier_all();
    if (me % 2 == 0) run(0, 1, (n + 1) / 2, me / 2); /* the even PEs alone */
    shmem_barrier_all();
    check_clean();
    shmem_barrier_all();
    if (n > 1 && me >= 1) run(1, 0, n - 1, me - 1); /* all but PE 0 */
    shmem_barrier_all();
    check_clean();
    shmem_finalize();
    return 0;
}
