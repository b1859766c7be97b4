// ccs_abort ends the whole job: rank `argv[1]` aborts with exit code
// `argv[2]` while the others sleep without calling CCS (they must be
// stopped by the launcher, not by a message they would have to read).
// A bad exit code is refused first, and the caller goes on.
#include <ccs/ccs.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    const int aborter = std::atoi(argv[1]), code = std::atoi(argv[2]);
    if (ccs_init(nullptr) != CCS_OK) return 3;
    int rank = -1;
    ccs_rank(&rank);
    if (ccs_barrier() != CCS_OK) return 4;
    if (rank == aborter) {
        if (ccs_abort(256, "out of range") != CCS_ERR_INVALID_ARG || ccs_abort(-1, nullptr) != CCS_ERR_INVALID_ARG) {
            std::fprintf(stderr, "a bad exit code was not refused\n");
            return 5;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ccs_abort(code, "the test asks for it");
        return 6;  // not reached
    }
    std::this_thread::sleep_for(std::chrono::seconds(120));
    std::fprintf(stderr, "rank %d was not stopped\n", rank);
    return 7;
}
