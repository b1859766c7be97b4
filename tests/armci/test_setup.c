/* Start-up and the process's view: init counting, numbers as MPI's,
 * nodes as MPI's shared-memory split, collective and local allocation
 * (size 0 on some processes, groups of memory devices), and mistakes that
 * return an error and change nothing. */
#include "check.h"

#include <stdint.h>
#include <unistd.h>

static void check_numbers(int me, int nproc) {
    int mpi_me, mpi_n;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_me);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_n);
    CHECK(me == mpi_me && nproc == mpi_n, "ARMCI %d of %d, MPI %d of %d", me, nproc, mpi_me, mpi_n);
    CHECK(ARMCI_Initialized(), "ARMCI_Initialized");
    /* Counted: a second init needs a second finalize. */
    CHECK(ARMCI_Init() == 0, "second ARMCI_Init");
    CHECK(ARMCI_Finalize() == 0 && ARMCI_Initialized(), "still initialized after one of two finalizes");
    double t0 = armci_timer();
    usleep(2000);
    CHECK(armci_timer() - t0 >= 0.002, "armci_timer moves with time");
}

/* Nodes: the same sets as MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). */
static void check_domains(int me, int nproc) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int node_size, node_rank;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_rank(node, &node_rank);
    const int id = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, id) == node_size, "nprocs %d, MPI %d",
          armci_domain_nprocs(ARMCI_DOMAIN_SMP, id), node_size);
    CHECK(armci_domain_id(ARMCI_DOMAIN_SMP, me) == id, "domain_id of me");
    CHECK(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, id, node_rank) == me, "glob_proc_id");
    int count = 0;
    for (int p = 0; p < nproc; ++p) count += armci_domain_same_id(ARMCI_DOMAIN_SMP, p);
    CHECK(count == node_size, "same_id counts %d", count);
    CHECK(ARMCI_Same_node(me), "Same_node(me)");
    CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) >= 1 && armci_domain_count(ARMCI_DOMAIN_SMP) <= nproc, "count");
    CHECK(ARMCI_Uses_shm() == 0, "no process may load through another's ARMCI_Malloc address");
    ARMCI_Set_shm_limit(1ul << 30);
    MPI_Comm_free(&node);
}

static void check_allocation(int me, int nproc) {
    void **bases = malloc(sizeof(void *) * nproc);
    /* Odd processes give 0 bytes: their entry is NULL, the rest work. */
    const armci_size_t mine = me % 2 ? 0 : 4096 + 8 * me;
    CHECK(ARMCI_Malloc(bases, mine) == 0, "ARMCI_Malloc");
    for (int p = 0; p < nproc; ++p) CHECK((bases[p] == NULL) == (p % 2 == 1), "base of %d", p);
    if (bases[me]) memset(bases[me], 0, (size_t)mine);
    ARMCI_Barrier();
    const int target = 0;
    long v = 1000 + me;
    CHECK(ARMCI_Put(&v, (long *)bases[target] + me, sizeof v, target) == 0, "Put");
    ARMCI_Barrier();
    if (me == 0)
        for (int p = 0; p < nproc; ++p) CHECK(((long *)bases[0])[p] == 1000 + p, "slot %d", p);
    ARMCI_Barrier();
    /* Mistakes: an error back, nothing written. */
    long *slot = (long *)bases[0] + me;
    CHECK(ARMCI_Put(&v, slot, sizeof v, nproc) != 0, "target out of range");
    CHECK(ARMCI_Put(&v, slot, sizeof v, -1) != 0, "negative target");
    CHECK(ARMCI_Put(&v, (char *)bases[0] + mine + 4096 * 16, 8, 0) != 0, "address outside every allocation");
    CHECK(ARMCI_Put(&v, (char *)bases[0] + 4000, 200, 0) != 0, "range past the allocation's end");
    CHECK(ARMCI_Put(&v, slot, -8, 0) != 0, "negative size");
    /* Nothing to move: any address will do, but not any process. */
    CHECK(ARMCI_Put(&v, (void *)16, 0, 0) == 0 && ARMCI_Get((void *)16, &v, 0, 0) == 0, "zero bytes");
    int zero_count[2] = {8, 0}, stride[1] = {16};
    CHECK(ARMCI_PutS(&v, stride, (void *)16, stride, zero_count, 1, 0) == 0, "a strided shape of zero bytes");
    CHECK(ARMCI_Put(&v, (void *)16, 0, nproc) != 0, "zero bytes to a process that is not");
    long back = 0;
    if (nproc > 1) CHECK(ARMCI_Get((long *)bases[0], &back, 8, 1) != 0, "process 1 has no allocation there");
    ARMCI_Barrier();
    if (me == 0)
        for (int p = 0; p < nproc; ++p) CHECK(((long *)bases[0])[p] == 1000 + p, "slot %d after mistakes", p);
    ARMCI_Barrier();
    CHECK(ARMCI_Free(bases[me]) == 0, "ARMCI_Free (NULL where the part was empty)");
    /* A freed allocation is gone for everyone. */
    CHECK(ARMCI_Put(&v, bases[0], 8, 0) != 0, "put into freed memory");
    /* Memory devices: the default one works, an unknown one fails on all. */
    CHECK(ARMCI_Malloc_memdev(bases, 64, "default") == 0, "memdev default");
    CHECK(ARMCI_Free_memdev(bases[me]) == 0, "Free_memdev");
    const char *device = me == nproc - 1 ? "nvram-that-is-not" : "default";
    CHECK(ARMCI_Malloc_memdev(bases, 64, device) != 0, "an unknown device on one process fails everyone");
    free(bases);
    void *local = ARMCI_Malloc_local(1 << 20);
    CHECK(local != NULL, "ARMCI_Malloc_local");
    memset(local, 1, 1 << 20);
    CHECK(ARMCI_Free_local(local) == 0, "ARMCI_Free_local");
    int on_stack;
    CHECK(ARMCI_Free_local(&on_stack) != 0, "Free_local of a pointer it never gave");
}

int main(int argc, char **argv) {
    int me, nproc;
    MPI_Init(&argc, &argv);
#ifdef ARMCI_CCS
    CHECK(ARMCI_Init_mpi_comm(MPI_COMM_WORLD) == 0, "ARMCI_Init_mpi_comm");
#else
    CHECK(ARMCI_Init_thread_comm(MPI_THREAD_SINGLE, MPI_COMM_WORLD) == 0, "ARMCI_Init_thread_comm");
#endif
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    check_numbers(me, nproc);
    check_domains(me, nproc);
    check_allocation(me, nproc);
    ARMCI_Barrier();
    if (me == 0) printf("setup: %d processes passed\n", nproc);
    stop();
    CHECK(!ARMCI_Initialized(), "finalized");
    return 0;
}
