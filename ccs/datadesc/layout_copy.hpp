// Copying from one layout in memory straight into another: what a put or
// get with datadescs does when the peer's memory is mapped here
// (rma_engine::try_mapped_layouts), with the pack and unpack kernels and
// no list of pieces in between.
#pragma once

#include "handle.hpp"

#include <cstdint>

namespace ccs::dd {

// The bytes `count` elements of `dd` touch, [lo, hi) from its base, for
// checking them against a region; false when that does not fit in 64 bits.
// Empty ([0, 0)) when there are no data bytes.
bool footprint(const ccs_datadesc_s &dd, int64_t count, int64_t &lo, int64_t &hi);

// Moves the data of `from_count` elements of `from_dd` at `from` into
// `to_count` elements of `to_dd` at `to`, as packing the one and unpacking
// the stream into the other would; both hold the same number of bytes.
// They must not overlap. Both committed (the caller checked). May throw
// std::bad_alloc (a staging buffer, when neither side is contiguous).
void copy_layouts(uint8_t *to, int64_t to_count, const ccs_datadesc_s &to_dd, const uint8_t *from,
                  int64_t from_count, const ccs_datadesc_s &from_dd);

}  // namespace ccs::dd
