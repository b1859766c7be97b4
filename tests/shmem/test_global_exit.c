/* shmem_global_exit from the last PE while the others compute (no SHMEM
 * call): the whole job ends with the status. The status is the argument. */
#include "check.h"

#include <unistd.h>

int main(int argc, char **argv) {
    const int status = argc > 1 ? atoi(argv[1]) : 3;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        usleep(100000);
        shmem_global_exit(status);
    }
    sleep(120);
    fprintf(stderr, "PE %d was not stopped\n", me);
    return 1;
}
