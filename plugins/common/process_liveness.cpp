#include "process_liveness.hpp"

#include <cerrno>

#include <signal.h>

namespace ccs::plugin {

bool process_exists(int32_t pid) {
    // EPERM: it exists but is not ours to signal.
    return pid > 0 && (::kill(pid, 0) == 0 || errno != ESRCH);
}

}  // namespace ccs::plugin
