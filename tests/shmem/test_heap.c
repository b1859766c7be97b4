/* The symmetric heap: every PE gets the same block for the same calls,
 * blocks are usable at once from other PEs, calloc clears, realloc keeps
 * the contents, align aligns, and a request that does not fit gives NULL
 * everywhere without harming what is allocated. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static uint64_t offsets[64]; /* PE 0 collects every PE's offsets here */

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n <= 64, "at most 64 PEs");

    char *first = shmem_malloc(100);
    CHECK(first != NULL, "shmem_malloc(100)");
    int *numbers = shmem_calloc(1000, sizeof(int));
    CHECK(numbers != NULL, "shmem_calloc");
    for (int i = 0; i < 1000; ++i) CHECK(numbers[i] == 0, "calloc left %d at %d", numbers[i], i);
    double *aligned = shmem_align(4096, 3 * sizeof(double));
    CHECK(aligned != NULL && ((uintptr_t)aligned & 4095) == 0, "shmem_align(4096): %p", (void *)aligned);
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is NULL");

    /* Same offsets on every PE: each PE puts its own into PE 0's table. */
    uint64_t mine[3] = {(uint64_t)((char *)numbers - first), (uint64_t)((char *)aligned - first), 0};
    shmem_putmem(&offsets[3 * me], mine, sizeof mine, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 1; pe < n; ++pe)
            CHECK(memcmp(&offsets[3 * pe], &offsets[0], sizeof mine) == 0, "PE %d's blocks lie elsewhere", pe);

    /* A block is reachable from other PEs as soon as malloc returns. */
    long *fresh = shmem_malloc(sizeof(long));
    shmem_long_p(fresh, 1000 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECK(*fresh == 1000 + (me + n - 1) % n, "fresh block holds %ld", *fresh);

    /* realloc: contents kept whether the block grows in place or moves. */
    for (int i = 0; i < 1000; ++i) numbers[i] = i * me;
    int *grown = shmem_realloc(numbers, 100000 * sizeof(int));
    CHECK(grown != NULL, "shmem_realloc to 100000 ints");
    for (int i = 0; i < 1000; ++i) CHECK(grown[i] == i * me, "realloc lost element %d", i);
    grown[99999] = me;
    shmem_int_p(&grown[99998], me, (me + 1) % n);
    shmem_barrier_all();
    CHECK(grown[99998] == (me + n - 1) % n, "the grown block's end is not reachable");
    int *shrunk = shmem_realloc(grown, 10 * sizeof(int));
    CHECK(shrunk == grown && shrunk[9] == 9 * me, "shrinking moved or lost data");

    /* Too much: NULL on every PE, and what exists stays usable. */
    void *huge = shmem_malloc((size_t)1 << 50);
    CHECK(huge == NULL, "a petabyte was allocated");
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "an overflowing calloc was allocated");
    memset(first, me, 100);
    shmem_barrier_all();
    char seen[100];
    shmem_getmem(seen, first, 100, (me + 1) % n);
    for (int i = 0; i < 100; ++i) CHECK(seen[i] == (char)((me + 1) % n), "byte %d after a failed malloc", i);

    /* Freed space is used again: many rounds never run out. */
    for (int round = 0; round < 1000; ++round) {
        void *p = shmem_malloc(1 << 16);
        CHECK(p != NULL, "round %d ran out of heap", round);
        shmem_free(p);
    }
    shmem_free(NULL);
    shmem_free(shrunk);
    shmem_free(fresh);
    shmem_free(aligned);
    shmem_free(first);
    shmem_finalize();
    return 0;
}
