/* The smallest OpenSHMEM program, built by the oshcc/oshc++ test. */
#include <shmem.h>
#include <stdio.h>

static long sum;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_atomic_add(&sum, me, 0);
    shmem_barrier_all();
    if (me == 0 && sum != (long)n * (n - 1) / 2) return 1;
    if (me == n - 1) printf("hello from PE %d of %d\n", me, n);
    shmem_finalize();
    return 0;
}
