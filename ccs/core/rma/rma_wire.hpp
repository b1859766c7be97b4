// The wire formats of the RMA engine's requests, as another process sends
// them on the internal context: written by the initiator, read by the
// target without touching any memory they name (the target then checks
// every range against the registration the key names). A reader accepts
// only what its writer could produce: the libFuzzer target
// tests/fuzz/fuzz_rma_requests.cpp holds them to that.
//
//   piece list        {count, count x (address, length)}, then the data
//   atomic request    args {token, handle, address, op | width << 8, operand, compare}
//   accumulate        args {token, handle, op | type << 8 | fetch << 16 | pieces_in_payload,
//                           stream offset, scale (2 words), address (one target piece) or 0}
//                     payload: the data, behind a piece list with pieces_in_payload
//   indexed put       args {token, handle, pointer address, limit}   payload: the data
#pragma once

#include "core/rma/accumulate_kernels.hpp"
#include "core/rma/atomic_word.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccs {

// A piece list and what follows it in a payload.
struct piece_list {
    std::vector<ccs_plugin_remote_v1_t> pieces;
    uint64_t total = 0;             // the pieces' bytes
    const uint8_t *data = nullptr;  // what follows the list
    size_t data_length = 0;
};
// The list's bytes, with room for `extra` bytes behind it.
std::vector<uint8_t> write_piece_list(const ccs_plugin_remote_v1_t *pieces, size_t count, size_t extra);
// False when the count does not fit the payload or the lengths overflow.
bool read_piece_list(const uint8_t *payload, size_t size, piece_list &out);

struct atomic_message {
    uint64_t token = 0, handle = 0, address = 0;
    rma_atomic atomic;
};
// False for too few words, an unknown op, a width not 4 or 8, or an
// address not aligned to it.
bool read_atomic_message(const uint64_t *args, size_t nargs, atomic_message &out);

// The flag in an accumulate's `how` word saying its target pieces travel
// in the payload, ahead of the data, instead of one address in the
// arguments.
constexpr uint64_t pieces_in_payload = uint64_t{1} << 17;

struct accumulate_message {
    uint64_t token = 0, handle = 0, offset = 0;
    rma_accumulate acc;  // fetched stays null: `fetch` says whether to send old values
    bool fetch = false;
    std::vector<ccs_plugin_remote_v1_t> pieces;  // where the data goes, in order
    const uint8_t *data = nullptr;
    size_t data_length = 0;  // the pieces' bytes, exactly
};
// False for too few words, an unknown op or type, a malformed piece list,
// a piece not aligned for the type or not whole elements, or data that is
// not exactly the pieces' bytes.
bool read_accumulate_message(const uint64_t *args, size_t nargs, const uint8_t *payload, size_t size,
                             accumulate_message &out);

struct indexed_message {
    uint64_t token = 0, handle = 0, pointer = 0, limit = 0;
};
// False for too few words or a pointer not aligned to 8 bytes.
bool read_indexed_message(const uint64_t *args, size_t nargs, indexed_message &out);

}  // namespace ccs
