/* Calls given what they cannot carry out: each prints the call and the
 * reason and ends the job with exit code 1 (the OpenSHMEM calls have no
 * error return). The mistake to make is the first argument; the test
 * checks the message. Only the last PE makes it; the others wait. */
#include "check.h"

#include <string.h>

static long target_word;
static long sync_array[SHMEM_BARRIER_SYNC_SIZE];

int main(int argc, char **argv) {
    const char *mistake = argc > 1 ? argv[1] : "";
    if (strcmp(mistake, "before_init") == 0) {
        shmem_long_p(&target_word, 1, 0);
        return 0;
    }
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    long local = 0;
    long *heap = shmem_malloc(8);
    if (me == n - 1) {
        if (strcmp(mistake, "bad_pe") == 0) shmem_long_p(&target_word, 1, n);
        if (strcmp(mistake, "negative_pe") == 0) (void)shmem_long_g(&target_word, -1);
        if (strcmp(mistake, "not_symmetric") == 0) shmem_long_p(&local, 1, 0);
        if (strcmp(mistake, "out_of_heap") == 0) shmem_long_put(heap, heap, 1u << 30, 0);
        if (strcmp(mistake, "destroyed_context") == 0) {
            shmem_ctx_t ctx;
            shmem_ctx_create(0, &ctx);
            shmem_ctx_destroy(ctx);
            shmem_ctx_long_p(ctx, &target_word, 1, 0);
        }
        if (strcmp(mistake, "bad_comparison") == 0) shmem_long_wait_until(&target_word, 17, 0);
        if (strcmp(mistake, "bad_signal_op") == 0)
            shmem_putmem_signal(&target_word, &local, 8, (uint64_t *)&target_word, 1, 9, 0);
        if (strcmp(mistake, "bad_stride") == 0) shmem_long_iput(&target_word, &local, 0, 1, 1, 0);
        if (strcmp(mistake, "free_foreign") == 0) shmem_free(&local);
        if (strcmp(mistake, "clear_unheld_lock") == 0) shmem_clear_lock(heap);
        if (strcmp(mistake, "not_in_active_set") == 0) shmem_barrier(0, 1, 1, sync_array);
        if (strcmp(mistake, "active_set_outside") == 0) shmem_broadcast64(heap, heap, 1, 0, 0, 1, 2, sync_array);
        fprintf(stderr, "the mistake '%s' was not refused\n", mistake);
        return 2;
    }
    /* The others wait for a word nobody sets: the job ends around them. */
    shmem_long_wait_until(&target_word, SHMEM_CMP_EQ, 12345);
    return 3;
}
