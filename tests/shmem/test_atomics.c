/* Every atomic against a sequential model. Phase 1: each PE in turn (the
 * others wait at a barrier) applies a fixed sequence of every operation to
 * a word on every PE and checks each fetched value against the model.
 * Phase 2: all PEs at once hammer one word on PE 0 with fetch-add,
 * increments and compare-swap; the sums and the set of fetched values
 * must be exactly those of some sequential order. Heap and static words. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static long static_long;
static unsigned int static_uint;
static double static_double;
static int64_t counters[4];

#define ROUNDS 500

/* Phase 1 for one standard type: the model is `model`, the word `w`. */
#define SEQUENCE(T, N, w, pe)                                                                          \
    do {                                                                                               \
        T model = (T)7;                                                                                \
        shmem_##N##_atomic_set(w, model, pe);                                                          \
        shmem_quiet();                                                                                 \
        CHECK(shmem_##N##_atomic_fetch(w, pe) == model, #N " fetch after set");                        \
        CHECK(shmem_##N##_atomic_fetch_add(w, (T)5, pe) == model, #N " fetch_add");                    \
        model = (T)(model + 5);                                                                        \
        CHECK(shmem_##N##_atomic_fetch_inc(w, pe) == model, #N " fetch_inc");                          \
        model = (T)(model + 1);                                                                        \
        shmem_##N##_atomic_add(w, (T)-3, pe);                                                          \
        model = (T)(model - 3);                                                                        \
        shmem_##N##_atomic_inc(w, pe);                                                                 \
        model = (T)(model + 1);                                                                        \
        CHECK(shmem_##N##_atomic_swap(w, (T)42, pe) == model, #N " swap");                             \
        model = (T)42;                                                                                 \
        CHECK(shmem_##N##_atomic_compare_swap(w, (T)41, (T)1, pe) == model, #N " failing cswap");      \
        CHECK(shmem_##N##_atomic_compare_swap(w, (T)42, (T)9, pe) == model, #N " cswap");              \
        model = (T)9;                                                                                  \
        T fetched = 0;                                                                                 \
        shmem_##N##_atomic_fetch_add_nbi(&fetched, w, (T)2, pe);                                       \
        shmem_quiet();                                                                                 \
        CHECK(fetched == model, #N " fetch_add_nbi");                                                  \
        model = (T)(model + 2);                                                                        \
        shmem_##N##_atomic_fetch_inc_nbi(&fetched, w, pe);                                             \
        shmem_quiet();                                                                                 \
        CHECK(fetched == model, #N " fetch_inc_nbi");                                                  \
        model = (T)(model + 1);                                                                        \
        shmem_##N##_atomic_compare_swap_nbi(&fetched, w, model, (T)-1, pe);                            \
        shmem_quiet();                                                                                 \
        CHECK(fetched == model, #N " compare_swap_nbi");                                               \
        model = (T)-1;                                                                                 \
        shmem_##N##_atomic_swap_nbi(&fetched, w, (T)3, pe);                                            \
        shmem_quiet();                                                                                 \
        CHECK(fetched == model, #N " swap_nbi");                                                       \
        model = (T)3;                                                                                  \
        shmem_##N##_atomic_fetch_nbi(&fetched, w, pe);                                                 \
        shmem_quiet();                                                                                 \
        CHECK(fetched == model, #N " fetch_nbi");                                                      \
    } while (0)

#define BITWISE(T, N, w, pe)                                                                     \
    do {                                                                                         \
        T model = (T)0xF0F0;                                                                     \
        shmem_##N##_atomic_set(w, model, pe);                                                    \
        CHECK(shmem_##N##_atomic_fetch_and(w, (T)0xFF00, pe) == model, #N " fetch_and");        \
        model &= (T)0xFF00;                                                                      \
        CHECK(shmem_##N##_atomic_fetch_or(w, (T)0x000F, pe) == model, #N " fetch_or");          \
        model |= (T)0x000F;                                                                      \
        CHECK(shmem_##N##_atomic_fetch_xor(w, (T)0xFFFF, pe) == model, #N " fetch_xor");        \
        model ^= (T)0xFFFF;                                                                      \
        shmem_##N##_atomic_and(w, (T)0x0FF0, pe);                                                \
        model &= (T)0x0FF0;                                                                      \
        shmem_##N##_atomic_or(w, (T)0x1, pe);                                                    \
        model |= (T)0x1;                                                                         \
        shmem_##N##_atomic_xor(w, (T)0x3, pe);                                                   \
        model ^= (T)0x3;                                                                         \
        T fetched = 0;                                                                           \
        shmem_##N##_atomic_fetch_xor_nbi(&fetched, w, (T)0, pe);                                 \
        shmem_quiet();                                                                           \
        CHECK(fetched == model, #N " bitwise result %llx, model %llx", (unsigned long long)fetched, \
              (unsigned long long)model);                                                        \
    } while (0)

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    int *heap_int = shmem_malloc(sizeof(int));
    long long *heap_ll = shmem_malloc(sizeof(long long));
    uint32_t *heap_u32 = shmem_malloc(sizeof(uint32_t));
    uint64_t *heap_u64 = shmem_malloc(sizeof(uint64_t));
    size_t *heap_size = shmem_malloc(sizeof(size_t));
    float *heap_float = shmem_malloc(sizeof(float));
    long *word = shmem_malloc(sizeof(long));
    long *seen = shmem_calloc((size_t)n * ROUNDS, 1); /* a byte per ticket */
    CHECK(heap_int && heap_ll && heap_u32 && heap_u64 && heap_size && heap_float && word && seen, "malloc");

    /* Phase 1: one PE at a time, to every PE. */
    for (int turn = 0; turn < n; ++turn) {
        if (turn == me)
            for (int pe = 0; pe < n; ++pe) {
                SEQUENCE(int, int, heap_int, pe);
                SEQUENCE(long long, longlong, heap_ll, pe);
                SEQUENCE(uint32_t, uint32, heap_u32, pe);
                SEQUENCE(uint64_t, uint64, heap_u64, pe);
                SEQUENCE(size_t, size, heap_size, pe);
                SEQUENCE(long, long, &static_long, pe);
                SEQUENCE(unsigned int, uint, &static_uint, pe);
                BITWISE(uint32_t, uint32, heap_u32, pe);
                BITWISE(uint64_t, uint64, heap_u64, pe);
                BITWISE(unsigned int, uint, &static_uint, pe);
                /* Extended types: fetch, set, swap by their bits. */
                shmem_float_atomic_set(heap_float, 1.5f, pe);
                CHECK(shmem_float_atomic_swap(heap_float, -2.25f, pe) == 1.5f, "float swap");
                CHECK(shmem_float_atomic_fetch(heap_float, pe) == -2.25f, "float fetch");
                shmem_double_atomic_set(&static_double, 3.125, pe);
                CHECK(shmem_double_atomic_swap(&static_double, 1e300, pe) == 3.125, "double swap");
                CHECK(shmem_double_atomic_fetch(&static_double, pe) == 1e300, "double fetch");
                /* Deprecated names do the same. */
                shmem_long_set(&static_long, 10, pe);
                CHECK(shmem_long_fadd(&static_long, 5, pe) == 10, "shmem_long_fadd");
                CHECK(shmem_long_finc(&static_long, pe) == 15, "shmem_long_finc");
                CHECK(shmem_long_cswap(&static_long, 16, 0, pe) == 16, "shmem_long_cswap");
                CHECK(shmem_long_swap(&static_long, 4, pe) == 0, "shmem_long_swap");
                CHECK(shmem_long_fetch(&static_long, pe) == 4, "shmem_long_fetch");
            }
        shmem_barrier_all();
    }

    /* Phase 2: everybody at once on PE 0's words. */
    *word = 0;
    memset(counters, 0, sizeof counters);
    shmem_barrier_all();
    for (int i = 0; i < ROUNDS; ++i) {
        const long ticket = shmem_long_atomic_fetch_inc(word, 0);
        CHECK(ticket >= 0 && ticket < (long)n * ROUNDS, "ticket %ld out of range", ticket);
        shmem_char_p((char *)&seen[0] + ticket, 1, 0); /* PE 0 checks every ticket came once */
        shmem_int64_atomic_add(&counters[0], me + 1, 0);
        shmem_int64_atomic_inc(&counters[1], 0);
        /* compare-swap loop: an increment that retries until it wins */
        int64_t old = shmem_int64_atomic_fetch(&counters[2], 0), cur;
        while ((cur = shmem_int64_atomic_compare_swap(&counters[2], old, old + 2, 0)) != old) old = cur;
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*word == (long)n * ROUNDS, "%ld tickets, expected %ld", *word, (long)n * ROUNDS);
        for (long t = 0; t < (long)n * ROUNDS; ++t) CHECK(((char *)seen)[t] == 1, "ticket %ld given %d times", t, ((char *)seen)[t]);
        CHECK(counters[0] == (int64_t)ROUNDS * n * (n + 1) / 2, "sum %lld", (long long)counters[0]);
        CHECK(counters[1] == (int64_t)ROUNDS * n, "increments %lld", (long long)counters[1]);
        CHECK(counters[2] == (int64_t)2 * ROUNDS * n, "compare-swap increments %lld", (long long)counters[2]);
    }
    shmem_barrier_all();
    shmem_free(seen);
    shmem_free(word);
    shmem_free(heap_float);
    shmem_free(heap_size);
    shmem_free(heap_u64);
    shmem_free(heap_u32);
    shmem_free(heap_ll);
    shmem_free(heap_int);
    shmem_finalize();
    return 0;
}
