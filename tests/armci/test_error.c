/* ARMCI_Error on one process ends the whole job with its code while the
 * others wait in a barrier: argv[1] is the code, argv[2] the process. */
#include "check.h"

#include <unistd.h>

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    const int code = argc > 1 ? atoi(argv[1]) : 3;
    const int who = argc > 2 ? atoi(argv[2]) : nproc - 1;
    if (me == who) {
        sleep(1);
        ARMCI_Error("the test's failing process", code);
    }
    ARMCI_Barrier();  /* never passes: the failing process does not come */
    fprintf(stderr, "process %d passed a barrier it should never pass\n", me);
    stop();
    return 0;
}
