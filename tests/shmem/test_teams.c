/* Teams: world and shared, strided splits (odd sizes, and PEs left out),
 * 2-D splits, translation, contexts made from a team (their PE numbers
 * are the team's), and destruction. */
#include "check.h"

static long box[64];

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == n, "world team");
    /* One node here: every PE maps the others' heaps. */
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1, "shared team");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "invalid team");
    const int shared_me = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD) == me, "shared -> world");

    /* The odd PEs (PE 1, 3, ...): a team the even ones are not in. */
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    shmem_team_config_t config = {2};
    CHECK(n < 2 || shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, &config, SHMEM_TEAM_NUM_CONTEXTS, &odd) == 0,
          "split odd");
    if (me % 2 == 1) {
        CHECK(odd != SHMEM_TEAM_INVALID, "odd PE outside the odd team");
        CHECK(shmem_team_my_pe(odd) == me / 2 && shmem_team_n_pes(odd) == n / 2, "odd numbering");
        shmem_team_config_t got = {0};
        CHECK(shmem_team_get_config(odd, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 2, "config");
        CHECK(shmem_team_translate_pe(odd, 0, SHMEM_TEAM_WORLD) == 1, "odd 0 is world 1");
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, odd) == -1, "world 0 is not odd");
        /* A context of the team: PE numbers are the team's. */
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(odd, 0, &ctx) == 0, "team_create_ctx");
        shmem_team_t back = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == odd, "ctx_get_team");
        const int right = (shmem_team_my_pe(odd) + 1) % shmem_team_n_pes(odd);
        shmem_ctx_long_p(ctx, &box[me], me, right);
        shmem_ctx_quiet(ctx);
        CHECK(shmem_team_sync(odd) == 0, "odd team sync");
        const int left_world = shmem_team_translate_pe(odd, (shmem_team_my_pe(odd) + n / 2 - 1) % (n / 2),
                                                       SHMEM_TEAM_WORLD);
        CHECK(box[left_world] == left_world, "team context put landed at %ld", box[left_world]);
        shmem_team_destroy(odd); /* takes the context with it */
    } else {
        CHECK(odd == SHMEM_TEAM_INVALID, "even PE in the odd team");
    }
    shmem_ctx_t default_ctx_team_check;
    CHECK(shmem_ctx_create(0, &default_ctx_team_check) == 0, "ctx_create");
    shmem_team_t world_back;
    CHECK(shmem_ctx_get_team(default_ctx_team_check, &world_back) == 0 && world_back == SHMEM_TEAM_WORLD, "world");
    shmem_ctx_destroy(default_ctx_team_check);

    /* 2-D: rows of 2, columns of PEs 2 apart. */
    shmem_team_t row, column;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &column) == 0, "split_2d");
    CHECK(row != SHMEM_TEAM_INVALID && column != SHMEM_TEAM_INVALID, "a PE without a row or column");
    CHECK(shmem_team_my_pe(row) == me % 2 && shmem_team_my_pe(column) == me / 2, "2-D numbering");
    const int row_size = (me / 2) * 2 + 2 <= n ? 2 : 1;
    CHECK(shmem_team_n_pes(row) == row_size, "row of %d", shmem_team_n_pes(row));
    CHECK(shmem_team_n_pes(column) == (n - me % 2 + 1) / 2, "column of %d", shmem_team_n_pes(column));
    long sum = 0, mine = me;
    CHECK(shmem_long_sum_reduce(column, &sum, &mine, 1) == 0, "column sum");
    long expect = 0;
    for (int pe = me % 2; pe < n; pe += 2) expect += pe;
    CHECK(sum == expect, "column sum %ld, expected %ld", sum, expect);
    shmem_team_destroy(row);
    shmem_team_destroy(column);

    /* Splits of a split: the last PE alone. */
    shmem_team_t last;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 1, NULL, 0, &last) == 0, "split last");
    if (me == n - 1) {
        shmem_team_t again;
        CHECK(shmem_team_split_strided(last, 0, 0, 1, NULL, 0, &again) == 0 && shmem_team_n_pes(again) == 1, "again");
        shmem_team_destroy(again);
        shmem_team_destroy(last);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
