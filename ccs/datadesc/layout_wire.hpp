// A datadesc's layout as bytes and back: how an initiator describes the
// target's memory when RMA travels in active messages and the target
// unpacks or packs it itself (rma_am.cpp), instead of a list of pieces.
//
// Format (host byte order, as every CCS wire format): u32 node count, then
// the distinct nodes of the tree children first, each a kind byte and
//   byte     nothing
//   strided  i64 count, i64 blocklength, i64 stride, u32 child
//   blocks   u64 n, n x (i64 displacement, i64 blocklength, u32 child)
//   resized  i64 lb, i64 extent, u32 child
// where a child is the index of an earlier node; the last node is the
// root. A subtree used twice is written once.
#pragma once

#include "handle.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccs::dd {

// Appends dd's layout to `out`.
void layout_to_bytes(const ccs_datadesc_s &dd, std::vector<uint8_t> &out);

// Builds and commits the layout `bytes` describe into `out`. The bytes
// come from another process: anything malformed (truncated, a forward or
// unknown child, negative counts, overflowing bounds, nesting too deep,
// bytes left over) is CCS_ERR_INVALID_ARG or the constructor's error,
// never a crash.
ccs_status_t layout_from_bytes(const uint8_t *bytes, size_t length, ccs_datadesc_s &out);

}  // namespace ccs::dd
