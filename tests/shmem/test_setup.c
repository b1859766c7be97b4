/* Library setup and query: numbering, version, accessibility, shmem_ptr. */
#include "check.h"

#include <string.h>

static long global_counter = 5;
static int zeroed[4];

int main(void) {
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided) == 0, "init_thread failed");
    CHECK(provided >= SHMEM_THREAD_FUNNELED, "provided %d", provided);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "query_thread %d, init_thread %d", queried, provided);
    shmem_init(); /* a second init is harmless */

    const int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 1 && me >= 0 && me < n, "PE %d of %d", me, n);
    CHECK(_my_pe() == me && _num_pes() == n, "deprecated names disagree");

    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "version %d.%d", major, minor);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name '%s'", name);

    long *heap = shmem_malloc(sizeof(long));
    CHECK(heap != NULL, "shmem_malloc");
    for (int pe = 0; pe < n; ++pe) {
        CHECK(shmem_pe_accessible(pe), "PE %d not accessible", pe);
        CHECK(shmem_addr_accessible(heap, pe), "heap not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&global_counter, pe), "static data not accessible on PE %d", pe);
        long local = 0;
        CHECK(!shmem_addr_accessible(&local, pe), "a stack variable is accessible on PE %d", pe);
    }
    CHECK(!shmem_pe_accessible(-1) && !shmem_pe_accessible(n), "a PE out of range is accessible");
    CHECK(zeroed[0] == 0 && zeroed[3] == 0 && global_counter == 5, "static data changed");

    /* shmem_ptr: this PE's own objects always; others' where mapped. */
    CHECK(shmem_ptr(heap, me) == heap, "shmem_ptr to myself");
    *heap = 100 + me;
    shmem_barrier_all();
    const int right = (me + 1) % n;
    long *there = shmem_ptr(heap, right);
    if (there) CHECK(*there == 100 + right, "through shmem_ptr: %ld", *there);
    long stack_value = 1;
    CHECK(shmem_ptr(&stack_value, right) == NULL, "shmem_ptr of a stack variable");
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
