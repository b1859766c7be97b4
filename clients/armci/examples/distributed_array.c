/* A distributed 2-D array in the style of Global Arrays, on ARMCI over CCS.
 *
 * An N x N array of doubles is split into row blocks, one per process
 * (each process owns rows [lo, hi) and keeps them row-major). Patches that
 * cross owners are moved with strided put, get and accumulate, one call
 * per owner. Work is handed out by a shared counter (GA's NXTVAL): each
 * task accumulates a small patch, and every task is done exactly once.
 *
 *   mpirun.openmpi -n 4 ./armci_distributed_array     (or mpiexec.mpich)
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { n = 256, tasks = 400, tile = 16 };

typedef struct {
    int me, nproc;
    double **blocks;  /* every owner's block, in its own address space */
    int *counter_home;
} array_t;

static int rows_of(const array_t *a, int p, int *lo) {
    const int per = (n + a->nproc - 1) / a->nproc;
    *lo = p * per < n ? p * per : n;
    const int hi = (p + 1) * per < n ? (p + 1) * per : n;
    return hi - *lo;
}

/* Calls op on each owner's part of rows [r0, r0 + rows), columns
 * [c0, c0 + cols): the patch in `buf` (row-major, `cols` wide). */
typedef enum { PUT, GET, ACC } op_t;
static void patch(const array_t *a, op_t op, int r0, int rows, int c0, int cols, double *buf, double scale) {
    for (int p = 0; p < a->nproc; ++p) {
        int lo;
        const int mine = rows_of(a, p, &lo);
        const int first = r0 > lo ? r0 : lo, last = r0 + rows < lo + mine ? r0 + rows : lo + mine;
        if (first >= last) continue;
        double *remote = a->blocks[p] + (size_t)(first - lo) * n + c0;
        double *local = buf + (size_t)(first - r0) * cols;
        int remote_stride[1] = {n * (int)sizeof(double)}, local_stride[1] = {cols * (int)sizeof(double)};
        int count[2] = {cols * (int)sizeof(double), last - first};
        int rc = 0;
        if (op == PUT) rc = ARMCI_PutS(local, local_stride, remote, remote_stride, count, 1, p);
        if (op == GET) rc = ARMCI_GetS(remote, remote_stride, local, local_stride, count, 1, p);
        if (op == ACC) rc = ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, local_stride, remote, remote_stride, count, 1, p);
        if (rc != 0) ARMCI_Error("patch operation failed", rc);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    array_t a = {armci_msg_me(), armci_msg_nproc(), NULL, NULL};
    a.blocks = malloc(sizeof(double *) * a.nproc);
    int lo;
    const int my_rows = rows_of(&a, a.me, &lo);
    ARMCI_Malloc((void **)a.blocks, (armci_size_t)my_rows * n * sizeof(double));
    int **counters = malloc(sizeof(int *) * a.nproc);
    ARMCI_Malloc((void **)counters, a.me == 0 ? sizeof(int) : 0);
    if (a.me == 0) *counters[0] = 0;

    /* Fill: process 0 puts the whole array, a(i, j) = i, through every owner. */
    double *whole = malloc(sizeof(double) * n * n);
    if (a.me == 0) {
        for (int i = 0; i < n * n; ++i) whole[i] = i / n;
        patch(&a, PUT, 0, n, 0, n, whole, 0);
    }
    ARMCI_Barrier();

    /* Work queue: each task adds 1 to a tile that crosses owners. */
    double ones[tile * tile];
    for (int i = 0; i < tile * tile; ++i) ones[i] = 1;
    int done = 0;
    for (;;) {
        int t;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &t, counters[0], 1, 0);
        if (t >= tasks) break;
        const int r0 = (t * 37) % (n - tile), c0 = (t * 11) % (n - tile);
        patch(&a, ACC, r0, tile, c0, tile, ones, 1.0);
        ++done;
    }
    ARMCI_Barrier();

    /* Check: every process reads the whole array and compares it with the
     * sequential model. */
    patch(&a, GET, 0, n, 0, n, whole, 0);
    double *model = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n * n; ++i) model[i] = i / n;
    for (int t = 0; t < tasks; ++t) {
        const int r0 = (t * 37) % (n - tile), c0 = (t * 11) % (n - tile);
        for (int i = 0; i < tile; ++i)
            for (int j = 0; j < tile; ++j) model[(r0 + i) * n + c0 + j] += 1;
    }
    long wrong = 0;
    for (int i = 0; i < n * n; ++i) wrong += whole[i] != model[i];
    int all_done = done;
    armci_msg_igop(&all_done, 1, "+");
    armci_msg_lgop(&wrong, 1, "+");
    if (a.me == 0)
        printf("distributed array: %d processes, %d tasks done, %ld elements wrong\n", a.nproc, all_done, wrong);
    ARMCI_Free(counters[a.me]);
    ARMCI_Free(a.blocks[a.me]);
    free(model);
    free(whole);
    free(counters);
    free(a.blocks);
    ARMCI_Finalize();
    MPI_Finalize();
    return wrong == 0 && all_done == tasks ? 0 : 1;
}
