// ccs_finalize must not fail because a faster process already finished it
// and exited. Run with 3 processes over the altered plugin holding every
// packet 600 ms on the last rank (a slow process): rank 0 completes the
// final barrier and exits while rank 1 still waits for rank 2's last
// message; rank 1 notices rank 0 is gone (the pid check runs every 100 ms)
// long before rank 2 goes on. Every rank must get CCS_OK from
// ccs_finalize; a barrier that gave up at any failed peer would fail
// rank 1's.
#include <ccs/ccs.h>

#include <cstdio>

int main() {
    if (ccs_init(nullptr) != CCS_OK) {
        std::fprintf(stderr, "ccs_init: %s\n", ccs_last_error());
        return 1;
    }
    int rank = -1, size = 0;
    ccs_rank(&rank);
    ccs_size(&size);
    if (size != 3) {
        std::fprintf(stderr, "run with 3 processes\n");
        return 2;
    }
    const ccs_status_t st = ccs_finalize();
    if (st != CCS_OK) {
        std::fprintf(stderr, "rank %d: ccs_finalize: %s: %s\n", rank, ccs_strerror(st), ccs_last_error());
        return 1;
    }
    std::printf("rank %d: finalized\n", rank);
    return 0;
}
