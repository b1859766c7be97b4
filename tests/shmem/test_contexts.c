/* Contexts: created locally (no other PE takes part), each with its own
 * quiet; operations through them reach the same memory; unknown options
 * are refused with SHMEM_CTX_INVALID. */
#include "check.h"

#include <string.h>

static long results[16];

int main(void) {
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n;
    long *box = shmem_calloc(64, sizeof(long));

    /* Only even PEs make contexts: creation is not collective. */
    shmem_ctx_t ctx[3] = {SHMEM_CTX_INVALID, SHMEM_CTX_INVALID, SHMEM_CTX_INVALID};
    if (me % 2 == 0) {
        CHECK(shmem_ctx_create(0, &ctx[0]) == 0 && ctx[0] != SHMEM_CTX_INVALID, "ctx_create(0)");
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &ctx[1]) == 0, "ctx_create(private)");
        CHECK(shmem_ctx_create(SHMEM_CTX_NOSTORE, &ctx[2]) == 0, "ctx_create(nostore)");
        shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
        CHECK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID, "unknown option accepted");
        long v[64];
        for (int i = 0; i < 64; ++i) v[i] = me * 100 + i;
        shmem_ctx_long_put(ctx[0], box, v, 32, right);
        shmem_ctx_long_put_nbi(ctx[1], box + 32, v + 32, 32, right);
        shmem_ctx_quiet(ctx[0]);
        shmem_ctx_quiet(ctx[1]);
        long fetched = -1;
        shmem_ctx_long_atomic_fetch_nbi(ctx[2], &fetched, &box[5], right);
        shmem_ctx_quiet(ctx[2]);
        CHECK(fetched == me * 100 + 5, "fetch through a context: %ld", fetched);
        CHECK(shmem_ctx_long_g(ctx[0], &box[63], right) == me * 100 + 63, "ctx g");
        shmem_ctx_long_atomic_add(ctx[1], &results[me % 16], 7, right);
        shmem_ctx_fence(ctx[1]);
        for (int i = 0; i < 3; ++i) shmem_ctx_destroy(ctx[i]);
    }
    shmem_barrier_all();
    const int left = (me + n - 1) % n;
    if (left % 2 == 0) {
        for (int i = 0; i < 64; ++i) CHECK(box[i] == left * 100 + i, "element %d from PE %d", i, left);
        CHECK(results[left % 16] == 7, "atomic add through a context");
    }
    shmem_barrier_all();
    /* The default context works throughout. */
    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &box[0], -1, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK(box[0] == -1, "default context put");
    shmem_free(box);
    shmem_finalize();
    return 0;
}
