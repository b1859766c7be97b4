/* Team collectives against what they must compute: broadcast from every
 * root, collect with sizes that differ per PE, fcollect, alltoall(s), and
 * reductions of every operation on types CCS reduces and on those the
 * layer combines itself, on the world and on an odd-sized team. */
#include "check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#define MAXPE 8

static void check_team(shmem_team_t team, const char *name) {
    const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    CHECK(n <= MAXPE, "at most %d PEs", MAXPE);
    long src[16 * MAXPE], dest[16 * MAXPE];

    for (int root = 0; root < n; ++root) {
        for (int i = 0; i < 16; ++i) src[i] = root * 100 + i;
        memset(dest, 0, sizeof dest);
        CHECK(shmem_long_broadcast(team, dest, src, 16, root) == 0, "%s broadcast", name);
        for (int i = 0; i < 16; ++i) CHECK(dest[i] == root * 100 + i, "%s broadcast from %d: %ld", name, root, dest[i]);
    }

    /* collect: team PE i gives i + 1 elements, concatenated in order */
    for (int i = 0; i <= me; ++i) src[i] = me * 10 + i;
    memset(dest, 0, sizeof dest);
    CHECK(shmem_long_collect(team, dest, src, (size_t)me + 1) == 0, "%s collect", name);
    int at = 0;
    for (int pe = 0; pe < n; ++pe)
        for (int i = 0; i <= pe; ++i, ++at) CHECK(dest[at] == pe * 10 + i, "%s collect element %d", name, at);

    int32_t f[3] = {me, -me, 7}, fall[3 * MAXPE];
    CHECK(shmem_int32_fcollect(team, fall, f, 3) == 0, "%s fcollect", name);
    for (int pe = 0; pe < n; ++pe)
        CHECK(fall[3 * pe] == pe && fall[3 * pe + 1] == -pe && fall[3 * pe + 2] == 7, "%s fcollect of %d", name, pe);

    /* alltoall: block j of PE i holds i * 1000 + j * 10 + k */
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 4; ++k) src[j * 4 + k] = me * 1000 + j * 10 + k;
    CHECK(shmem_long_alltoall(team, dest, src, 4) == 0, "%s alltoall", name);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k) CHECK(dest[i * 4 + k] == i * 1000 + me * 10 + k, "%s alltoall from %d", name, i);
    /* alltoalls: every 2nd element out, every 3rd in */
    memset(dest, 0, sizeof dest);
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 2; ++k) src[(j * 2 + k) * 2] = me * 1000 + j * 10 + k;
    CHECK(shmem_long_alltoalls(team, dest, src, 3, 2, 2) == 0, "%s alltoalls", name);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 2; ++k)
            CHECK(dest[(i * 2 + k) * 3] == i * 1000 + me * 10 + k, "%s alltoalls from %d", name, i);

    /* Reductions: CCS's types, and those the layer combines. */
    long lsum = 0, lmax = 0, lmin = 0, lprod = 0, mine = me + 1;
    CHECK(shmem_long_sum_reduce(team, &lsum, &mine, 1) == 0 && lsum == (long)n * (n + 1) / 2, "%s sum %ld", name, lsum);
    CHECK(shmem_long_max_reduce(team, &lmax, &mine, 1) == 0 && lmax == n, "%s max", name);
    CHECK(shmem_long_min_reduce(team, &lmin, &mine, 1) == 0 && lmin == 1, "%s min", name);
    long fact = 1;
    for (int i = 1; i <= n; ++i) fact *= i;
    CHECK(shmem_long_prod_reduce(team, &lprod, &mine, 1) == 0 && lprod == fact, "%s prod", name);
    double d = 0.5 * (me + 1), dsum = 0;
    CHECK(shmem_double_sum_reduce(team, &dsum, &d, 1) == 0 && dsum == 0.25 * n * (n + 1), "%s double sum", name);
    double _Complex z = (me + 1) + 1.0 * I, zsum = 0;
    CHECK(shmem_complexd_sum_reduce(team, &zsum, &z, 1) == 0, "%s complex sum", name);
    CHECK(creal(zsum) == n * (n + 1) / 2 && cimag(zsum) == n, "%s complex sum", name);
    unsigned short bits = (unsigned short)(1u << me), band = 0, bor = 0, bxor = 0;
    CHECK(shmem_ushort_or_reduce(team, &bor, &bits, 1) == 0 && bor == (1u << n) - 1, "%s ushort or %x", name, bor);
    CHECK(shmem_ushort_and_reduce(team, &band, &bits, 1) == 0 && band == (n == 1 ? 1 : 0), "%s ushort and", name);
    CHECK(shmem_ushort_xor_reduce(team, &bxor, &bits, 1) == 0 && bxor == (1u << n) - 1, "%s ushort xor", name);
    uint64_t mask = ~(uint64_t)0 ^ ((uint64_t)1 << me), uand = 0;
    CHECK(shmem_uint64_and_reduce(team, &uand, &mask, 1) == 0, "%s uint64 and", name);
    CHECK(uand == (~(uint64_t)0 ^ (((uint64_t)1 << n) - 1)), "%s uint64 and %llx", name, (unsigned long long)uand);
    signed char c = (signed char)(-me), cmin = 0;
    CHECK(shmem_schar_min_reduce(team, &cmin, &c, 1) == 0 && cmin == -(n - 1), "%s schar min", name);
    long double ld = me + 0.25L, ldmax = 0;
    CHECK(shmem_longdouble_max_reduce(team, &ldmax, &ld, 1) == 0 && ldmax == n - 1 + 0.25L, "%s long double max", name);
    /* In place, many elements */
    int many[1000];
    for (int i = 0; i < 1000; ++i) many[i] = i + me;
    CHECK(shmem_int_sum_reduce(team, many, many, 1000) == 0, "%s in place", name);
    for (int i = 0; i < 1000; ++i) CHECK(many[i] == n * i + n * (n - 1) / 2, "%s in place element %d", name, i);
    CHECK(shmem_team_sync(team) == 0, "%s sync", name);
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    check_team(SHMEM_TEAM_WORLD, "world");
    /* PEs 0, 2, 4, ...: odd-sized for 1, 3 and 5 PEs' worth */
    shmem_team_t evens;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0, "split");
    if (me % 2 == 0) {
        check_team(evens, "evens");
        shmem_team_destroy(evens);
    }
    /* Symmetric mem forms on the heap */
    char *buf = shmem_malloc(64 * MAXPE);
    char mine[64];
    memset(mine, 'a' + me, sizeof mine);
    CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, buf, mine, 64) == 0, "fcollectmem");
    for (int pe = 0; pe < n; ++pe) CHECK(buf[pe * 64 + 63] == 'a' + pe, "fcollectmem block %d", pe);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, buf, mine, 64, n - 1) == 0 && buf[0] == 'a' + n - 1, "broadcastmem");
    CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, NULL, NULL, 0, 0) != 0, "a collective on SHMEM_TEAM_INVALID");
    shmem_free(buf);
    shmem_finalize();
    return 0;
}
