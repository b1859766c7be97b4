// Committed datadescs of ARMCI strided shapes. Global Arrays moves the
// same patch shapes again and again; compiling a layout costs more than a
// small put, so each shape is made once and kept (up to a bound, least
// recently used out: CCS keeps a layout alive for the operations still
// using it).
#pragma once

#include "state.hpp"

#include <ccs/datadesc.h>

namespace ccs::armci {

// ARMCI's deepest stride level.
inline constexpr int max_stride_levels = 8;

struct strided_shape {
    ccs_datadesc_t layout = nullptr;
    uint64_t bytes = 0;  // data moved
    uint64_t span = 0;   // from the first byte to one past the last
};

// The layout of count[0] bytes repeated count[i] times stride[i-1] apart
// (i = 1 .. levels), or the error the call returns (reported). A shape
// that is one contiguous run has layout nullptr.
int strided_layout(const char *call, int levels, const int *count, const int *stride, strided_shape &out);
void forget_layouts();

}  // namespace ccs::armci
