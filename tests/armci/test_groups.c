/* Groups of odd shapes (the even processes, every process in reverse, a
 * single process, all but the first), their ranks and absolute ids, their
 * MPI communicators, allocation and collectives within them against MPI's
 * on the group's communicator, the default group, and child groups. */
#include "check.h"

static void exercise(ARMCI_Group *g, const int *list, int n, int me) {
    int rank = -2, size = -2;
    ARMCI_Group_rank(g, &rank);
    ARMCI_Group_size(g, &size);
    int expected = -1;
    for (int i = 0; i < n; ++i)
        if (list[i] == me) expected = i;
    CHECK(size == n, "group size %d, want %d", size, n);
    CHECK(rank == expected, "group rank %d, want %d", rank, expected);
    if (expected < 0) {
        CHECK(g->comm == MPI_COMM_NULL, "a non-member has no communicator");
        return;
    }
    int mpi_rank, mpi_size;
    MPI_Comm_rank(g->comm, &mpi_rank);
    MPI_Comm_size(g->comm, &mpi_size);
    CHECK(mpi_rank == rank && mpi_size == n, "the group's communicator numbers alike");
    for (int i = 0; i < n; ++i) CHECK(ARMCI_Absolute_id(g, i) == list[i], "absolute id of %d", i);
    /* Allocation in the group: ptr_arr is in group order. */
    long **bases = malloc(sizeof(long *) * n);
    CHECK(ARMCI_Malloc_group((void **)bases, 8 * sizeof(long), g) == 0, "ARMCI_Malloc_group");
    memset(bases[rank], 0, 8 * sizeof(long));
    armci_msg_group_barrier(g);
    const int next = (rank + 1) % n;
    long v = 100 + me;
    CHECK(ARMCI_Put(&v, bases[next], sizeof v, list[next]) == 0, "Put to the next member");
    ARMCI_AllFence();
    armci_msg_group_barrier(g);
    CHECK(bases[rank][0] == 100 + list[(rank + n - 1) % n], "from the previous member: %ld", bases[rank][0]);
    /* Collectives against MPI's on the group's communicator. */
    double x[3] = {me + 0.5, -me, 2.0}, y[3];
    memcpy(y, x, sizeof x);
    armci_msg_group_dgop(x, 3, "+", g);
    MPI_Allreduce(MPI_IN_PLACE, y, 3, MPI_DOUBLE, MPI_SUM, g->comm);
    CHECK(memcmp(x, y, sizeof x) == 0, "group dgop +");
    long l[2] = {me, -me - 1}, lm[2];
    memcpy(lm, l, sizeof l);
    armci_msg_group_lgop(l, 2, "min", g);
    MPI_Allreduce(MPI_IN_PLACE, lm, 2, MPI_LONG, MPI_MIN, g->comm);
    CHECK(l[0] == lm[0] && l[1] == lm[1], "group lgop min");
    int iv[1] = {me + 1}, im[1] = {me + 1};
    armci_msg_group_igop(iv, 1, "*", g);
    MPI_Allreduce(MPI_IN_PLACE, im, 1, MPI_INT, MPI_PROD, g->comm);
    CHECK(iv[0] == im[0], "group igop *");
    char msg[32] = {0};
    if (rank == n - 1) snprintf(msg, sizeof msg, "from %d", me);
    armci_msg_group_bcast_scope(SCOPE_ALL, msg, sizeof msg, list[n - 1], g);
    char want[32] = {0};
    snprintf(want, sizeof want, "from %d", list[n - 1]);
    CHECK(strcmp(msg, want) == 0, "group bcast: '%s'", msg);
    armci_msg_group_barrier(g);
    CHECK(ARMCI_Free_group(bases[rank], g) == 0, "ARMCI_Free_group");
    free(bases);
}

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    int list[64], n;

    n = 0;
    for (int p = 0; p < nproc; p += 2) list[n++] = p;
    ARMCI_Group evens;
    ARMCI_Group_create(n, list, &evens);
    exercise(&evens, list, n, me);

    n = 0;
    for (int p = nproc - 1; p >= 0; --p) list[n++] = p;
    ARMCI_Group reversed;
    ARMCI_Group_create(n, list, &reversed);
    exercise(&reversed, list, n, me);

    int last[1] = {nproc - 1};
    ARMCI_Group single;
    ARMCI_Group_create(1, last, &single);
    exercise(&single, last, 1, me);

    if (nproc > 1) {
        n = 0;
        for (int p = 1; p < nproc; ++p) list[n++] = p;
        ARMCI_Group rest;
        ARMCI_Group_create(n, list, &rest);
        exercise(&rest, list, n, me);
        /* The default group: group creation is relative to it. */
        if (me != 0) {
            ARMCI_Group_set_default(&rest);
            ARMCI_Group d;
            ARMCI_Group_get_default(&d);
            CHECK(d.size == nproc - 1, "default group size");
            int child_list[1] = {0};  /* rank 0 of `rest`: process 1 */
            ARMCI_Group child;
            ARMCI_Group_create(1, child_list, &child);
            int one[1] = {1};
            exercise(&child, one, 1, me);
            ARMCI_Group_free(&child);
            ARMCI_Group world;
            ARMCI_Group_get_world(&world);
            ARMCI_Group_set_default(&world);
        }
        ARMCI_Group_free(&rest);
    }
    ARMCI_Group_free(&single);
    ARMCI_Group_free(&reversed);
    ARMCI_Group_free(&evens);
    /* Child of an explicit parent. */
    ARMCI_Group world, child;
    ARMCI_Group_get_world(&world);
    int both[2] = {0, nproc - 1};
    ARMCI_Group_create_child(nproc > 1 ? 2 : 1, both, &child, &world);
    exercise(&child, both, nproc > 1 ? 2 : 1, me);
    ARMCI_Group_free(&child);
    ARMCI_Barrier();
    if (me == 0) printf("groups: %d processes passed\n", nproc);
    stop();
    return 0;
}
