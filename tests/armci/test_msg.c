/* armci_msg_*: every reduction op and type against MPI_Allreduce (absmax
 * and absmin against the max and min of absolute values), broadcasts,
 * reduce to the first process, select, the binary tree, tagged messages,
 * node and master scopes against MPI's shared-memory split, and the
 * address exchange. */
#include "check.h"

#include <math.h>

#define GOP_CASE(T, MPI_T, armci_type, fn)                                                          \
    do {                                                                                            \
        T x[4], y[4];                                                                               \
        for (int i = 0; i < 4; ++i) x[i] = y[i] = (T)((me + 1) * (i % 2 ? -1 : 1) * (i + 1));       \
        if (absolute)                                                                               \
            for (int i = 0; i < 4; ++i) y[i] = y[i] < 0 ? -y[i] : y[i];                             \
        fn(x, 4, (char *)ops[o]);                                                                   \
        MPI_Allreduce(MPI_IN_PLACE, y, 4, MPI_T, mpi_ops[o], MPI_COMM_WORLD);                       \
        for (int i = 0; i < 4; ++i) CHECK(x[i] == y[i], "%s on type %d element %d", ops[o], armci_type, i); \
    } while (0)

static void check_gops(int me, int nproc) {
    const char *ops[] = {"+", "*", "max", "min", "absmax", "absmin"};
    MPI_Op mpi_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_MAX, MPI_MIN};
    for (int o = 0; o < 6; ++o) {
        const int absolute = o >= 4;
        GOP_CASE(int, MPI_INT, ARMCI_INT, armci_msg_igop);
        GOP_CASE(long, MPI_LONG, ARMCI_LONG, armci_msg_lgop);
        GOP_CASE(long long, MPI_LONG_LONG, ARMCI_LONG_LONG, armci_msg_llgop);
        GOP_CASE(float, MPI_FLOAT, ARMCI_FLOAT, armci_msg_fgop);
        GOP_CASE(double, MPI_DOUBLE, ARMCI_DOUBLE, armci_msg_dgop);
    }
    double d[2] = {me, 1}, e[2] = {me, 1};
    armci_msg_gop_scope(SCOPE_ALL, d, 2, "+", ARMCI_DOUBLE);
    MPI_Allreduce(MPI_IN_PLACE, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(d[0] == e[0] && d[1] == e[1], "gop_scope");
    long r[1] = {me + 1};
    armci_msg_reduce(r, 1, "+", ARMCI_LONG);
    const long want = (long)nproc * (nproc + 1) / 2;
    if (me == 0) CHECK(r[0] == want, "reduce to 0: %ld", r[0]);
}

static void check_broadcasts(int me, int nproc) {
    for (int root = 0; root < nproc; ++root) {
        int buf[100], ref[100];
        for (int i = 0; i < 100; ++i) buf[i] = ref[i] = me == root ? root * 1000 + i : -1;
        armci_msg_bcast(buf, sizeof buf, root);
        MPI_Bcast(ref, 100, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(memcmp(buf, ref, sizeof buf) == 0, "bcast from %d", root);
        armci_msg_brdcst(buf, sizeof buf, root);
        armci_msg_bcast_scope(SCOPE_ALL, buf, sizeof buf, root);
        CHECK(memcmp(buf, ref, sizeof buf) == 0, "brdcst / bcast_scope from %d", root);
    }
}

static void check_select(int me, int nproc) {
    struct { double value; long index; } x = {(me * 7) % 5 + 0.5, me};
    armci_msg_sel(&x, sizeof x, "max", ARMCI_DOUBLE, me != 0 || nproc == 1);
    double best = -1; long who = -1;
    for (int p = (nproc == 1 ? 0 : 1); p < nproc; ++p)
        if ((p * 7) % 5 + 0.5 > best) best = (p * 7) % 5 + 0.5, who = p;
    CHECK(x.value == best && x.index == who, "sel max: %g from %ld, want %g from %ld", x.value, x.index, best, who);
    int y[2] = {(me * 3) % 4, me};
    armci_msg_sel(y, sizeof y, "min", ARMCI_INT, 1);
    CHECK(y[0] == 0 && y[1] == 0, "sel min: the lowest rank among equals");
}

static void check_tree(int me, int nproc) {
    int root, up, left, right;
    armci_msg_bintree(SCOPE_ALL, &root, &up, &left, &right);
    CHECK(root == 0 && up == (me ? (me - 1) / 2 : -1), "root and parent");
    CHECK(left == (2 * me + 1 < nproc ? 2 * me + 1 : -1) && right == (2 * me + 2 < nproc ? 2 * me + 2 : -1), "children");
}

static void check_messages(int me, int nproc) {
    /* A ring of tagged messages, sent ahead of the receive, two tags out of order. */
    const int to = (me + 1) % nproc, from = (me + nproc - 1) % nproc;
    int a = me * 10 + 1, b = me * 10 + 2;
    armci_msg_snd(5, &a, sizeof a, to);
    armci_msg_snd(6, &b, sizeof b, to);
    int got = 0, len = 0;
    armci_msg_rcv(6, &got, sizeof got, &len, from);
    CHECK(got == from * 10 + 2 && len == sizeof got, "tag 6 first: %d", got);
    armci_msg_rcv(5, &got, sizeof got, NULL, from);
    CHECK(got == from * 10 + 1, "then tag 5: %d", got);
    /* Everyone to process 0, received from anyone; and a large one. */
    if (me != 0) armci_msg_snd(9, &me, sizeof me, 0);
    if (me == 0) {
        int seen = 0;
        for (int i = 1; i < nproc; ++i) {
            int who = -1, src = armci_msg_rcvany(9, &who, sizeof who, NULL);
            CHECK(src == who, "rcvany source %d carried %d", src, who);
            seen |= 1 << who;
        }
        CHECK(seen == ((1 << nproc) - 2), "everyone's message");
    }
    static char big[1 << 20], big_in[1 << 20];
    for (int i = 0; i < (int)sizeof big; ++i) big[i] = (char)(i + me);
    armci_msg_snd(7, big, sizeof big, to);
    armci_msg_rcv(7, big_in, sizeof big_in, &len, from);
    CHECK(len == sizeof big_in && big_in[12345] == (char)(12345 + from), "1 MiB message");
    armci_msg_barrier();
}

/* SCOPE_NODE: the processes of MPI's shared-memory split; SCOPE_MASTERS:
 * their first processes. */
static void check_scopes(int me) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm masters;
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED, me, &masters);
    long x[1] = {me + 1}, y[1] = {me + 1};
    armci_msg_gop_scope(SCOPE_NODE, x, 1, "+", ARMCI_LONG);
    MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_LONG, MPI_SUM, node);
    CHECK(x[0] == y[0], "node sum %ld, MPI %ld", x[0], y[0]);
    long c[1] = {me + 1}, cy[1] = {me + 1};
    armci_msg_clus_lgop(c, 1, "max");
    MPI_Allreduce(MPI_IN_PLACE, cy, 1, MPI_LONG, MPI_MAX, node);
    CHECK(c[0] == cy[0], "clus lgop max");
    long m[1] = {me + 1}, my[1] = {me + 1};
    armci_msg_gop_scope(SCOPE_MASTERS, m, 1, "+", ARMCI_LONG);
    if (masters != MPI_COMM_NULL) {
        MPI_Allreduce(MPI_IN_PLACE, my, 1, MPI_LONG, MPI_SUM, masters);
        MPI_Comm_free(&masters);
    }
    CHECK(m[0] == my[0], "masters sum %ld, want %ld", m[0], my[0]);
    int v = node_rank == 0 ? 4242 + me : -1, root = me;
    MPI_Bcast(&root, 1, MPI_INT, 0, node);
    armci_msg_clus_brdcst(&v, sizeof v);
    CHECK(v == 4242 + root, "clus_brdcst from the node's first process: %d", v);
    MPI_Comm_free(&node);
}

static void check_exchange(int me, int nproc) {
    void **ptrs = calloc((size_t)nproc, sizeof(void *));
    ptrs[me] = (void *)(long)(0x1000 * (me + 1));
    armci_exchange_address(ptrs, nproc);
    for (int p = 0; p < nproc; ++p) CHECK(ptrs[p] == (void *)(long)(0x1000 * (p + 1)), "address of %d", p);
    free(ptrs);
}

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    CHECK(nproc <= 30, "the masks here hold 30 processes");
    check_gops(me, nproc);
    check_broadcasts(me, nproc);
    check_select(me, nproc);
    check_tree(me, nproc);
    check_messages(me, nproc);
    check_scopes(me);
    check_exchange(me, nproc);
    armci_msg_barrier();
    if (me == 0) printf("msg: %d processes passed\n", nproc);
    stop();
    return 0;
}
