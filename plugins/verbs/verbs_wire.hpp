// What verbs peers send each other outside active messages: the address
// every rank publishes at wire-up, and the connection messages that bring
// a reliable-connected queue pair up between two ranks on first use. Both
// are read from bytes a peer sent: decoding checks every field and never
// trusts a length.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ccs::verbs {

// Little-endian on the wire; version changes break compatibility.
inline constexpr uint32_t wire_magic = 0x42564343;  // "CCVB"
inline constexpr uint16_t wire_version = 1;

// A rank's address: how to reach its port and its connection queue pair,
// and where peers write the credits they return to it.
struct wire_address {
    bool ethernet = false;  // RoCE: the GID addresses it
    ibv_mtu mtu = IBV_MTU_1024;
    uint8_t port = 0;
    uint16_t lid = 0;
    ibv_gid gid{};
    uint32_t connect_qpn = 0;  // its UD queue pair for connection messages
    int32_t pid = 0;           // its process id (liveness on the same node)
    // Peer r writes the count of receive buffers it freed for this rank, a
    // 64-bit word, at credit_base + 8 r with credit_rkey.
    uint64_t credit_base = 0;
    uint32_t credit_rkey = 0;
};
inline constexpr size_t wire_address_size = 52;

size_t encode_address(const wire_address &a, uint8_t *out, size_t capacity);
// False with `why` for anything but a well-formed address of this version.
bool decode_address(const void *bytes, size_t length, wire_address &out, std::string &why);

// Bringing a connection up (both ends may start at once):
//   request: "my queue pair for you is qpn; connect yours to it";
//   reply:   "mine is connected to yours (it receives); here it is";
//   ready:   "yours is connected to mine too": the replier may send.
// Each is repeated until answered; repeats are answered again.
enum class connect_type : uint8_t { request = 1, reply = 2, ready = 3 };

struct connect_message {
    connect_type type = connect_type::request;
    int32_t from = -1;  // sender's rank
    int32_t to = -1;    // receiver's rank
    uint32_t qpn = 0;   // the sender's RC queue pair for `to`
    uint32_t psn = 0;   // its first packet sequence number
    uint32_t peer_qpn = 0;  // reply, ready: the receiver's queue pair it connected to
    // The receive buffers the sender grants `to` (credits `to` starts with).
    uint32_t credits = 0;
};
inline constexpr size_t connect_message_size = 32;

size_t encode_connect(const connect_message &m, uint8_t *out, size_t capacity);
// Checks the header, the type, the ranks against the job's size and that
// the message is for `me`; false with `why` otherwise.
bool decode_connect(const void *bytes, size_t length, int32_t job_size, int32_t me, connect_message &out,
                    std::string &why);

// A key to a registered region, as its owner packs it for peers.
struct wire_key {
    uint64_t base = 0;
    uint64_t length = 0;
    uint32_t rkey = 0;
};
inline constexpr size_t wire_key_size = 24;

size_t encode_key(const wire_key &k, uint8_t *out, size_t capacity);
// False with `why` unless well formed: the tag, a non-empty region that
// does not wrap around the address space.
bool decode_key(const void *bytes, size_t length, wire_key &out, std::string &why);

}  // namespace ccs::verbs
