/* Put and get: typed, sized and mem forms, single elements, nonblocking
 * and strided, into heap blocks and into global and static variables, to
 * every PE (this one too), including zero-length transfers. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define N 1000
long global_longs[N];
static double static_doubles[N];
static int static_ints[2 * N];
static long double static_ld;

static void fill(long *v, int n, long base) {
    for (int i = 0; i < n; ++i) v[i] = base * 100000 + i;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    long *heap_longs = shmem_malloc(N * sizeof(long));
    unsigned char *bytes = shmem_malloc(N);
    int16_t *shorts = shmem_malloc(N * sizeof(int16_t));
    CHECK(heap_longs && bytes && shorts, "shmem_malloc");
    long src[N], back[N];

    for (int step = 0; step < n; ++step) {
        const int target = (me + step) % n, from = (me + n - step) % n;
        /* Typed blocking put into heap and global memory. */
        fill(src, N, me);
        shmem_long_put(heap_longs, src, N, target);
        shmem_long_put(global_longs, src, N, target);
        double d[N];
        for (int i = 0; i < N; ++i) d[i] = me + i / 8.0;
        shmem_double_put(static_doubles, d, N, target);
        shmem_barrier_all();
        long expect[N];
        fill(expect, N, from);
        CHECK(memcmp(heap_longs, expect, sizeof expect) == 0, "heap put from PE %d", from);
        CHECK(memcmp(global_longs, expect, sizeof expect) == 0, "global put from PE %d", from);
        for (int i = 0; i < N; ++i) CHECK(static_doubles[i] == from + i / 8.0, "static double %d", i);

        /* Typed blocking get back from the target. */
        memset(back, 0, sizeof back);
        shmem_long_get(back, global_longs, N, target);
        long theirs[N];
        fill(theirs, N, (target + n - step) % n);
        CHECK(memcmp(back, theirs, sizeof back) == 0, "get from PE %d's global data", target);
        shmem_barrier_all();

        /* Sized forms and mem. */
        unsigned char b[N];
        for (int i = 0; i < N; ++i) b[i] = (unsigned char)(me * 7 + i);
        shmem_putmem(bytes, b, N, target);
        int16_t s[N];
        for (int i = 0; i < N; ++i) s[i] = (int16_t)(me - i);
        shmem_put16(shorts, s, N, target);
        shmem_barrier_all();
        for (int i = 0; i < N; ++i) CHECK(bytes[i] == (unsigned char)(from * 7 + i), "putmem byte %d", i);
        for (int i = 0; i < N; ++i) CHECK(shorts[i] == (int16_t)(from - i), "put16 element %d", i);
        int16_t got[N];
        shmem_get16(got, shorts, N, target);
        for (int i = 0; i < N; ++i) CHECK(got[i] == (int16_t)(((target + n - step) % n) - i), "get16 %d", i);
        shmem_barrier_all();

        /* Single elements, every width up to long double. */
        shmem_int_p(&static_ints[me], me * 3, target);
        shmem_longdouble_p(&static_ld, (long double)me / 3, target);
        shmem_barrier_all();
        CHECK(static_ints[from] == from * 3, "int_p from PE %d", from);
        CHECK(static_ld == (long double)from / 3, "longdouble_p");
        CHECK(shmem_int_g(&static_ints[me], target) == me * 3, "int_g");
        CHECK(shmem_longdouble_g(&static_ld, target) == (long double)me / 3, "longdouble_g");
        shmem_barrier_all();

        /* Nonblocking: complete at quiet. */
        fill(src, N, me + 50);
        shmem_long_put_nbi(heap_longs, src, N, target);
        shmem_quiet();
        shmem_barrier_all();
        fill(expect, N, from + 50);
        CHECK(memcmp(heap_longs, expect, sizeof expect) == 0, "put_nbi from PE %d", from);
        memset(back, 0, sizeof back);
        shmem_long_get_nbi(back, heap_longs, N, target);
        shmem_getmem_nbi(b, bytes, N, target);
        shmem_quiet();
        fill(theirs, N, (target + n - step) % n + 50);
        CHECK(memcmp(back, theirs, sizeof back) == 0, "get_nbi");
        shmem_barrier_all();

        /* Strided: every third int of mine into every second slot there. */
        int strided[N];
        for (int i = 0; i < N; ++i) strided[i] = me * 1000 + i;
        memset(static_ints, 0, sizeof static_ints);
        shmem_barrier_all();
        shmem_int_iput(static_ints, strided, 2, 3, N / 3, target);
        shmem_barrier_all();
        for (int i = 0; i < N / 3; ++i) {
            CHECK(static_ints[2 * i] == from * 1000 + 3 * i, "iput element %d", i);
            CHECK(static_ints[2 * i + 1] == 0, "iput wrote between elements at %d", i);
        }
        int gathered[N] = {0};
        shmem_int_iget(gathered, static_ints, 3, 2, N / 3, target);
        for (int i = 0; i < N / 3; ++i)
            CHECK(gathered[3 * i] == ((target + n - step) % n) * 1000 + 3 * i, "iget element %d", i);
        uint64_t wide[8] = {1, 2, 3, 4, 5, 6, 7, 8}, wide_back[8] = {0};
        shmem_iput64(heap_longs, wide, 1, 2, 4, target);
        shmem_quiet();
        shmem_iget64(wide_back, heap_longs, 2, 1, 4, target);
        for (int i = 0; i < 4; ++i) CHECK(wide_back[2 * i] == wide[2 * i], "iput64/iget64 %d", i);
        shmem_barrier_all();

        /* Zero-length transfers move nothing and need no valid buffer. */
        shmem_putmem(bytes, NULL, 0, target);
        shmem_getmem(NULL, bytes, 0, target);
        shmem_long_iput(heap_longs, NULL, 1, 1, 0, target);
        shmem_barrier_all();
    }
    shmem_free(shorts);
    shmem_free(bytes);
    shmem_free(heap_longs);
    shmem_finalize();
    return 0;
}
