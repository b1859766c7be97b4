// The head of a large message's payload (wire::large), as the sender's core
// writes it and the target's reads it, then, by mode:
//
//   eager:  large_header | the payload's bytes (size of them; in a
//           placeable packet, the target's transport may keep them until
//           the header handler decides: then the header arrives alone)
//   fetch:  large_header | packed key (key_length) | layout (layout_length)
//   push:   large_header
//
// In push mode the sender pushes its contiguous payload once the target
// accepts (where the route receives pushed pieces in place, or cannot
// read the sender's memory itself). In fetch mode the target reads the
// payload from the sender's memory:
// `size` bytes at `address`, or `count` elements of the layout placed
// there (datadesc/layout_wire.hpp), through the key. The target answers
// `op` once it decided and the data is in place (op 0: nobody to answer).
// Host byte order, read with memcpy, as every CCS wire format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ccs::wire {

enum class large_mode : uint8_t { eager = 1, fetch = 2, push = 3 };

struct large_header {
    uint64_t op;             // the sender's operation, echoed in the answer
    uint64_t size;           // payload bytes
    uint64_t address;        // fetch: where the payload (its layout's origin) lies
    int64_t count;           // fetch with a layout: elements of it
    uint32_t layout_length;  // fetch: layout bytes after the key; 0: contiguous
    uint16_t key_length;     // fetch: packed key bytes after this header
    uint8_t mode;            // large_mode
    uint8_t reserved;
};
static_assert(sizeof(large_header) == 40);

// A large message's payload as the target sees it: pointers into it.
struct large_view {
    large_header header{};
    const uint8_t *data = nullptr;  // eager: header.size bytes (null where the transport keeps them)
    const uint8_t *key = nullptr;   // fetch (push: neither data nor key)
    const uint8_t *layout = nullptr;  // fetch, when layout_length > 0
};

// Reads `length` bytes from a peer: true with `out` filled, or false with
// what is wrong in `why` (truncated, unknown mode, lengths that do not
// add up, an eager size beyond the bytes, a negative count...).
// `parked`: bytes of an eager payload its transport keeps (`data` null).
bool read_large(const uint8_t *bytes, size_t length, large_view &out, std::string &why, size_t parked = 0);

}  // namespace ccs::wire
