#include "api_beside.hpp"

namespace ccs {

void wait_beside(uint64_t token) noexcept {
    (void)guarded([&]() -> ccs_status_t {
        if (runtime *rt = runtime::current())
            rt->progress_until([&] { return !beside_operations::in_flight(token); });
        return CCS_OK;
    });
}

ccs_status_t wait_done(const char *call, ccs_counter_t &done) noexcept {
    return guarded([&]() -> ccs_status_t {
        runtime *rt = runtime::current();
        return rt ? wait_for_private_counter(*rt, call, done) : CCS_OK;
    });
}

}  // namespace ccs
