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
        if (!rt) return CCS_OK;
        rt->progress_until([&] { return __atomic_load_n(&done.value, __ATOMIC_ACQUIRE) > 0; });
        if (done.errors == 0) return CCS_OK;
        return fail(done.first_error, std::string(call) + ": " + rt->am().notes().take(&done));
    });
}

}  // namespace ccs
