/* Point-to-point synchronization: wait_until and test on single words and
 * vectors (all, any, some, and the _vector forms), put-with-signal and
 * signal_wait_until, and the deprecated waits. Each PE is woken by its
 * left neighbour. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define V 8
static int flags[V];
static uint64_t signal_word;
static long deprecated_flag;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n;
    long *data = shmem_calloc(1024, sizeof(long));
    long long *ll = shmem_calloc(1, sizeof(long long));
    CHECK(data && ll, "calloc");

    /* wait_until on one word, set by the left neighbour. */
    shmem_longlong_atomic_set(ll, 77, right);
    shmem_longlong_wait_until(ll, SHMEM_CMP_EQ, 77);
    CHECK(shmem_longlong_test(ll, SHMEM_CMP_GE, 77) == 1, "test after wait");
    CHECK(shmem_longlong_test(ll, SHMEM_CMP_LT, 77) == 0, "test LT");
    shmem_barrier_all();

    /* Vectors: the left neighbour sets entries one at a time. */
    int status[V] = {0};
    status[1] = 1; /* left out: never set */
    for (int round = 0; round < 3; ++round) {
        memset(flags, 0, sizeof flags);
        shmem_barrier_all();
        if (round == 0) {
            shmem_int_atomic_set(&flags[5], 1, right);
            size_t any = shmem_int_wait_until_any(flags, V, status, SHMEM_CMP_EQ, 1);
            CHECK(any == 5, "wait_until_any gave %zu", any);
            CHECK(shmem_int_test_any(flags, V, status, SHMEM_CMP_EQ, 1) == 5, "test_any");
        } else if (round == 1) {
            shmem_int_atomic_set(&flags[2], 1, right);
            shmem_int_atomic_set(&flags[6], 1, right);
            shmem_quiet();
            size_t idx[V];
            size_t got = 0;
            while (got < 2) {
                got = shmem_int_wait_until_some(flags, V, idx, status, SHMEM_CMP_NE, 0);
                CHECK(got >= 1 && got <= 2, "wait_until_some gave %zu", got);
            }
            CHECK(idx[0] == 2 && idx[1] == 6, "some: %zu %zu", idx[0], idx[1]);
            CHECK(shmem_int_test_some(flags, V, idx, status, SHMEM_CMP_NE, 0) == 2, "test_some");
        } else {
            for (int i = 0; i < V; ++i)
                if (i != 1) shmem_int_atomic_set(&flags[i], 10 + i, right);
            int want[V];
            for (int i = 0; i < V; ++i) want[i] = 10 + i;
            shmem_int_wait_until_all_vector(flags, V, status, SHMEM_CMP_EQ, want);
            CHECK(shmem_int_test_all(flags, V, status, SHMEM_CMP_GE, 10) == 1, "test_all");
            CHECK(shmem_int_test_all_vector(flags, V, status, SHMEM_CMP_EQ, want) == 1, "test_all_vector");
            CHECK(shmem_int_test_any_vector(flags, V, status, SHMEM_CMP_GT, want) == SIZE_MAX, "test_any_vector");
            shmem_int_wait_until_all(flags, V, status, SHMEM_CMP_GE, 10);
        }
        shmem_barrier_all();
    }
    /* Everything left out: any gives SIZE_MAX, some 0, all returns. */
    int none[V];
    for (int i = 0; i < V; ++i) none[i] = 1;
    CHECK(shmem_int_wait_until_any(flags, V, none, SHMEM_CMP_EQ, 12345) == SIZE_MAX, "any of nothing");
    size_t idx[V];
    CHECK(shmem_int_wait_until_some(flags, V, idx, none, SHMEM_CMP_EQ, 12345) == 0, "some of nothing");
    shmem_int_wait_until_all(flags, V, none, SHMEM_CMP_EQ, 12345);

    /* Put with signal: the data is there when the signal is. */
    for (int round = 1; round <= 20; ++round) {
        long block[1024];
        for (int i = 0; i < 1024; ++i) block[i] = round * 10000 + me * 1024 + i;
        shmem_long_put_signal(data, block, 1024, &signal_word, (uint64_t)round, SHMEM_SIGNAL_SET, right);
        const uint64_t sig = shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, (uint64_t)round);
        CHECK(sig == (uint64_t)round, "signal %llu", (unsigned long long)sig);
        const int left = (me + n - 1) % n;
        for (int i = 0; i < 1024; ++i)
            CHECK(data[i] == round * 10000 + left * 1024 + i, "round %d element %d before its signal", round, i);
        shmem_barrier_all();
    }
    signal_word = 0;
    shmem_barrier_all();
    shmem_putmem_signal_nbi(data, data, 8, &signal_word, 5, SHMEM_SIGNAL_ADD, right);
    shmem_putmem_signal(data, data, 8, &signal_word, 6, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_signal_wait_until(&signal_word, SHMEM_CMP_GE, 11);
    CHECK(shmem_signal_fetch(&signal_word) == 11, "signal adds to %llu", (unsigned long long)signal_word);

    /* Deprecated waits. */
    shmem_long_atomic_set(&deprecated_flag, 3, right);
    shmem_long_wait(&deprecated_flag, 0);
    shmem_wait_until(&deprecated_flag, SHMEM_CMP_EQ, 3);
    shmem_barrier_all();
    shmem_free(ll);
    shmem_free(data);
    shmem_finalize();
    return 0;
}
