// The op and element type of an accumulate or a reduction, as every call
// that takes them checks them (ccs/rma.h, ccs/coll.h).
#pragma once

#include "util/error.hpp"

#include <ccs/rma.h>

#include <string>

namespace ccs {

[[gnu::cold]] inline ccs_status_t bad_acc_op_type(const char *call, int op, int type) {
    if (op < CCS_ACC_SUM || op > CCS_ACC_REPLACE)
        return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": op " + std::to_string(op) + " is not a ccs_acc_op_t");
    if (type < CCS_ACC_INT32 || type > CCS_ACC_COMPLEX_DOUBLE)
        return fail(CCS_ERR_INVALID_ARG,
                    std::string(call) + ": type " + std::to_string(type) + " is not a ccs_acc_type_t");
    return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": complex numbers have no MIN or MAX");
}

inline ccs_status_t check_acc_op_type(const char *call, int op, int type) {
    const bool complex = type == CCS_ACC_COMPLEX_FLOAT || type == CCS_ACC_COMPLEX_DOUBLE;
    if (op < CCS_ACC_SUM || op > CCS_ACC_REPLACE || type < CCS_ACC_INT32 || type > CCS_ACC_COMPLEX_DOUBLE ||
        (complex && (op == CCS_ACC_MIN || op == CCS_ACC_MAX))) [[unlikely]]
        return bad_acc_op_type(call, op, type);
    return CCS_OK;
}

}  // namespace ccs
