// ccs_wait_until (ccs/rma.h): waiting for a word another process writes.
#include "api_guard.hpp"
#include "wait_condition.hpp"

#include <cstdint>

using namespace ccs;

ccs_status_t ccs_wait_until(const void *ivar, int type_value, int cmp_value, uint64_t value) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_wait_until");
        if (!rt) return st;
        if (!valid_int_type(type_value))
            return fail(CCS_ERR_INVALID_ARG,
                        "ccs_wait_until: type " + std::to_string(type_value) + " is not a ccs_int_type_t");
        if (!valid_cmp(cmp_value))
            return fail(CCS_ERR_INVALID_ARG, "ccs_wait_until: cmp " + std::to_string(cmp_value) + " is not a ccs_cmp_t");
        const auto type = static_cast<ccs_int_type_t>(type_value);
        const auto cmp = static_cast<ccs_cmp_t>(cmp_value);
        const size_t size = int_type_size(type);
        if (!ivar || reinterpret_cast<uintptr_t>(ivar) % size != 0)
            return fail(CCS_ERR_INVALID_ARG, "ccs_wait_until: ivar is NULL or not aligned to its " +
                                                 std::to_string(size) + " bytes");
        if ((st = check_not_in_callback(*rt, "ccs_wait_until")) != CCS_OK) return st;
        return with_condition(ivar, type, cmp, value, [&](auto holds) {
            if (holds() || rt->wait_on_memory(holds)) return CCS_OK;
            return fail(CCS_ERR_PEER_FAILED, "ccs_wait_until: a peer failed during the wait and the condition "
                                             "still does not hold (first failure: " + rt->am().failure() + ")");
        });
    });
}
