/* Locks: every PE takes a lock many times and, holding it, does a
 * read-modify-write of a counter on PE 0 with plain get and put; the count
 * comes out exact only if no two PEs ever held the lock at once. Then
 * test_lock while another PE holds it, and a lock in the heap. */
#include "check.h"

static long lock;          /* static: translated like any static object */
static long other_lock;
static long counter;
static long holder = -1;

#define ROUNDS 200

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < ROUNDS; ++i) {
        shmem_set_lock(&lock);
        const long seen = shmem_long_g(&holder, 0);
        CHECK(seen == -1, "PE %ld held the lock too", seen);
        shmem_long_p(&holder, me, 0);
        shmem_quiet();
        const long c = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, c + 1, 0);
        shmem_long_p(&holder, -1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(counter == (long)n * ROUNDS, "counter %ld, expected %ld", counter, (long)n * ROUNDS);

    /* test_lock: the last PE holds it; everyone else is refused. */
    if (me == n - 1) shmem_set_lock(&other_lock);
    shmem_barrier_all();
    if (me != n - 1) CHECK(shmem_test_lock(&other_lock) == 1, "test_lock took a held lock");
    shmem_barrier_all();
    if (me == n - 1) shmem_clear_lock(&other_lock);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_test_lock(&other_lock) == 0, "test_lock refused a free lock");
        shmem_clear_lock(&other_lock);
    }

    /* A lock in the symmetric heap, with waiters queued behind a holder
     * that sleeps: each gets it in turn. */
    long *heap_lock = shmem_calloc(1, sizeof(long));
    long *turns = shmem_calloc(1, sizeof(long));
    if (me == 0) shmem_set_lock(heap_lock);
    shmem_barrier_all();
    if (me != 0) {
        shmem_set_lock(heap_lock);
        shmem_long_atomic_inc(turns, 0);
        shmem_clear_lock(heap_lock);
    } else {
        for (volatile long spin = 0; spin < 20000000; ++spin) {
        }
        CHECK(shmem_long_atomic_fetch(turns, 0) == 0, "a waiter got the lock from its holder");
        shmem_clear_lock(heap_lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(*turns == n - 1, "%ld turns", *turns);
    shmem_free(turns);
    shmem_free(heap_lock);
    shmem_finalize();
    return 0;
}
