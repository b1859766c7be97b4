// libFuzzer target: what a verbs peer sends outside active messages, as a
// broken or hostile process might send it (plugins/verbs/verbs_wire.hpp):
// its address at wire-up, connection messages over datagrams, packed keys.
// The first byte picks the format. Invariants (abort on violation),
// besides what ASan and UBSan see:
//   - what a decoder accepts passes its own checks again when encoded and
//     decoded, and comes back field for field;
//   - an accepted connection message names a rank of the job other than
//     the receiver, and is addressed to the receiver;
//   - an accepted key's region is not empty and does not wrap.
#include "fuzz_input.hpp"
#include "verbs_wire.hpp"

#include <cstring>
#include <string>

using fuzz::require;
using namespace ccs::verbs;

namespace {

constexpr int32_t job_size = 5, me = 2;

void address(const uint8_t *data, size_t length) {
    wire_address a, b;
    std::string why;
    if (!decode_address(data, length, a, why)) return require(!why.empty());
    uint8_t again[wire_address_size];
    require(encode_address(a, again, sizeof again) == wire_address_size);
    require(decode_address(again, sizeof again, b, why));
    require(a.ethernet == b.ethernet && a.mtu == b.mtu && a.port == b.port && a.lid == b.lid &&
            std::memcmp(&a.gid, &b.gid, sizeof a.gid) == 0 && a.connect_qpn == b.connect_qpn && a.pid == b.pid &&
            a.credit_base == b.credit_base && a.credit_rkey == b.credit_rkey);
}

void connect(const uint8_t *data, size_t length) {
    connect_message m, n;
    std::string why;
    if (!decode_connect(data, length, job_size, me, m, why)) return require(!why.empty());
    require(m.from >= 0 && m.from < job_size && m.from != me && m.to == me);
    uint8_t again[connect_message_size];
    require(encode_connect(m, again, sizeof again) == connect_message_size);
    require(decode_connect(again, sizeof again, job_size, me, n, why));
    require(m.type == n.type && m.from == n.from && m.qpn == n.qpn && m.psn == n.psn && m.peer_qpn == n.peer_qpn &&
            m.credits == n.credits);
}

void key(const uint8_t *data, size_t length) {
    wire_key k, l;
    std::string why;
    if (!decode_key(data, length, k, why)) return require(!why.empty());
    require(k.length > 0 && k.base + k.length >= k.base);
    uint8_t again[wire_key_size];
    require(encode_key(k, again, sizeof again) == wire_key_size);
    require(decode_key(again, sizeof again, l, why) && k.base == l.base && k.length == l.length && k.rkey == l.rkey);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    if (length == 0) return 0;
    switch (data[0] % 3) {
    case 0: address(data + 1, length - 1); break;
    case 1: connect(data + 1, length - 1); break;
    default: key(data + 1, length - 1); break;
    }
    return 0;
}
