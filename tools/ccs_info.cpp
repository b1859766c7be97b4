// ccs_info: version, plugins found and why each is or is not usable, and the
// environment variables CCS reads. Works without a launcher.
#include <ccs/ccs.h>

#include <cstdio>

int main() {
    const ccs_status_t st = ccs_info_print(stdout);
    if (st != CCS_OK) {
        std::fprintf(stderr, "ccs_info: %s: %s\n", ccs_strerror(st), ccs_last_error());
        return 1;
    }
    return 0;
}
