// Layout of an active-message packet as the core puts it on any transport:
//
//   wire_header | args (nargs x 8 bytes) | [fragment_header] | payload bytes
//
// Fixed 16-byte header so args stay 8-byte aligned when the transport hands
// us an 8-byte-aligned packet. Read with memcpy, never by casting the packet.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ccs::wire {

// The largest message payload: senders refuse more, and a receiver refuses
// a fragment that announces more instead of trying to allocate it.
constexpr uint64_t max_message_bytes = 1ull << 40;

enum flags : uint8_t {
    sequenced = 1u << 0,  // seq is valid: reorder by it (unordered plugin)
    fragment = 1u << 1,   // a fragment_header follows the args
    // With fragment, no payload: the sender gave up on this message after
    // the transport refused part of it. fragment_header.offset (and total)
    // say how many bytes went before; the target drops them (once all
    // arrived) and, if sequenced, goes on to the next sequence number.
    abandoned = 1u << 2,
    // The payload starts with a large message's header (core/am/large_wire.hpp):
    // the target's header handler decides where the data goes.
    large = 1u << 3,
};

struct header {
    uint16_t context;   // context id, the same in every process
    uint16_t handler;   // handler id within the context
    uint8_t nargs;      // words of arguments that follow
    uint8_t flags;      // wire::flags
    uint16_t reserved;
    uint32_t seq;       // per (context, source, target) when sequenced
    uint32_t length;    // payload bytes in this packet
};
static_assert(sizeof(header) == 16);

struct fragment_header {
    uint32_t message;   // per (source, target) message number
    uint32_t reserved;
    uint64_t total;     // payload bytes of the whole message
    uint64_t offset;    // where this fragment's bytes go
};
static_assert(sizeof(fragment_header) == 24);

}  // namespace ccs::wire
