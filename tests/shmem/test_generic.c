/* The C11 type-generic names reach the typed functions: each is called
 * with a few types and the context form, and its effect checked. */
#include "check.h"

#include <string.h>

static long lbuf[8];
static double dbuf[8];
static unsigned int ubuf[4];
static int ivar;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    long lsrc[8];
    double dsrc[8];
    for (int i = 0; i < 8; ++i) {
        lsrc[i] = me * 10 + i;
        dsrc[i] = me + i / 4.0;
    }
    shmem_put(lbuf, lsrc, 8, right);
    shmem_put(SHMEM_CTX_DEFAULT, dbuf, dsrc, 8, right);
    shmem_barrier_all();
    CHECK(lbuf[7] == left * 10 + 7 && dbuf[5] == left + 1.25, "generic put");
    long lget[8];
    double dget[8];
    shmem_get(lget, lbuf, 8, right);
    shmem_get(SHMEM_CTX_DEFAULT, dget, dbuf, 8, right);
    CHECK(lget[3] == me * 10 + 3 && dget[4] == me + 1.0, "generic get");
    shmem_get_nbi(lget, lbuf, 8, left);
    shmem_quiet();
    CHECK(lget[0] == ((left + n - 1) % n) * 10, "generic get_nbi");
    shmem_barrier_all();
    shmem_p(&lbuf[0], -5L, right);
    shmem_p(SHMEM_CTX_DEFAULT, &dbuf[0], 0.5, right);
    shmem_barrier_all();
    CHECK(shmem_g(&lbuf[0], left) == -5 && shmem_g(SHMEM_CTX_DEFAULT, &dbuf[0], left) == 0.5, "generic p/g");
    long strided[8] = {0};
    shmem_iget(strided, lbuf, 2, 2, 3, me);
    CHECK(strided[2] == lbuf[2] && strided[4] == lbuf[4], "generic iget");
    shmem_barrier_all();

    /* Atomics on PE 0's words from every PE. */
    for (int i = 1; i < 5; ++i) lbuf[i] = i;
    shmem_barrier_all();
    shmem_atomic_add(&lbuf[1], 1L, 0);
    const long before = shmem_atomic_fetch_add(&lbuf[2], 2L, 0);
    CHECK(before >= 2 && before % 2 == 0, "generic fetch_add fetched %ld", before);
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, &lbuf[3], 0);
    (void)shmem_atomic_fetch_inc(&lbuf[4], 0);
    shmem_atomic_or(&ubuf[0], 1u << me, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(lbuf[1] == 1 + n, "generic add");
        CHECK(lbuf[3] == 3 + n && lbuf[4] == 4 + n, "generic inc");
        CHECK(ubuf[0] == (1u << n) - 1, "generic or");
    }
    shmem_barrier_all();
    shmem_atomic_set(&dbuf[7], 2.5, right);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(&dbuf[7], left) == 2.5, "generic set/fetch on double");
    const long six = lbuf[6];
    CHECK(shmem_atomic_swap(&lbuf[6], 99L, me) == six, "generic swap");
    CHECK(shmem_atomic_compare_swap(&lbuf[6], 99L, 7L, me) == 99 && lbuf[6] == 7, "generic compare_swap");
    CHECK(shmem_atomic_fetch_xor(&ubuf[1], 3u, me) == 0 && ubuf[1] == 3, "generic fetch_xor");
    shmem_barrier_all();

    /* Waits and tests, reductions. */
    shmem_atomic_set(&ivar, 1, right);
    shmem_wait_until(&ivar, SHMEM_CMP_EQ, 1);
    CHECK(shmem_test(&ivar, SHMEM_CMP_GE, 1) == 1, "generic test");
    long sum = 0, mine = me;
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, &sum, &mine, 1) == 0 && sum == (long)n * (n - 1) / 2, "generic sum");
    double dmax = 0, dmine = me * 1.5;
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, &dmax, &dmine, 1) == 0 && dmax == (n - 1) * 1.5, "generic max");
    long all[16];
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, all, &mine, 1) == 0 && all[n - 1] == n - 1, "generic fcollect");
    shmem_finalize();
    return 0;
}
