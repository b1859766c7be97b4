// Encoding and checking the address and the connection messages.
#include "verbs_wire.hpp"

#include <bit>
#include <cstring>

namespace ccs::verbs {
namespace {

// The fields are copied as they lie in memory.
static_assert(std::endian::native == std::endian::little, "the verbs wire format is little-endian");

// Queue pair and packet sequence numbers are 24-bit.
constexpr uint32_t qpn_limit = 1u << 24;
constexpr uint32_t key_tag = 0x4b425643;  // "CVBK"
// More receive buffers than one peer could ever be granted.
constexpr uint32_t credits_limit = 1u << 20;

class writer {
public:
    explicit writer(uint8_t *out) : p_(out) {}
    template <typename T>
    void put(T v) {
        std::memcpy(p_, &v, sizeof v);
        p_ += sizeof v;
    }
    void bytes(const void *b, size_t n) {
        std::memcpy(p_, b, n);
        p_ += n;
    }

private:
    uint8_t *p_;
};

class reader {
public:
    explicit reader(const void *in) : p_(static_cast<const uint8_t *>(in)) {}
    template <typename T>
    T get() {
        T v;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    void bytes(void *b, size_t n) {
        std::memcpy(b, p_, n);
        p_ += n;
    }

private:
    const uint8_t *p_;
};

bool check_header(reader &r, size_t length, size_t expected, const char *what, std::string &why) {
    if (length != expected) {
        why = std::string(what) + " of " + std::to_string(length) + " bytes (expected " + std::to_string(expected) +
              ")";
        return false;
    }
    const auto magic = r.get<uint32_t>();
    const auto version = r.get<uint16_t>();
    if (magic != wire_magic) {
        why = std::string(what) + " without the verbs plugin's magic number";
        return false;
    }
    if (version != wire_version) {
        why = std::string(what) + " of version " + std::to_string(version) + " (this plugin speaks " +
              std::to_string(wire_version) + ")";
        return false;
    }
    return true;
}

}  // namespace

size_t encode_address(const wire_address &a, uint8_t *out, size_t capacity) {
    if (capacity < wire_address_size) return 0;
    writer w(out);
    w.put(wire_magic);
    w.put(wire_version);
    w.put(static_cast<uint8_t>(a.ethernet ? 1 : 0));
    w.put(static_cast<uint8_t>(a.mtu));
    w.put(a.port);
    w.put(uint8_t{0});
    w.put(a.lid);
    w.bytes(a.gid.raw, sizeof a.gid.raw);
    w.put(a.connect_qpn);
    w.put(a.pid);
    w.put(a.credit_base);
    w.put(a.credit_rkey);
    w.put(uint32_t{0});
    return wire_address_size;
}

bool decode_address(const void *bytes, size_t length, wire_address &out, std::string &why) {
    reader r(bytes);
    if (!check_header(r, length, wire_address_size, "verbs address", why)) return false;
    const auto flags = r.get<uint8_t>();
    const auto mtu = r.get<uint8_t>();
    out.port = r.get<uint8_t>();
    r.get<uint8_t>();
    out.lid = r.get<uint16_t>();
    r.bytes(out.gid.raw, sizeof out.gid.raw);
    out.connect_qpn = r.get<uint32_t>();
    out.pid = r.get<int32_t>();
    out.credit_base = r.get<uint64_t>();
    out.credit_rkey = r.get<uint32_t>();
    if (flags > 1) {
        why = "verbs address with unknown flags " + std::to_string(flags);
        return false;
    }
    out.ethernet = flags == 1;
    if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096) {
        why = "verbs address with MTU code " + std::to_string(mtu) + " (valid: 1 to 5)";
        return false;
    }
    out.mtu = static_cast<ibv_mtu>(mtu);
    if (out.port == 0 || out.connect_qpn == 0 || out.connect_qpn >= qpn_limit) {
        why = "verbs address with port " + std::to_string(out.port) + " and queue pair " +
              std::to_string(out.connect_qpn) + " (port from 1, queue pair a 24-bit number above 0)";
        return false;
    }
    if (!out.ethernet && out.lid == 0) {
        why = "InfiniBand verbs address without a LID";
        return false;
    }
    if (out.credit_base == 0 || out.credit_base % 8 != 0) {
        why = "verbs address whose credit words are not at an aligned address";
        return false;
    }
    return true;
}

size_t encode_connect(const connect_message &m, uint8_t *out, size_t capacity) {
    if (capacity < connect_message_size) return 0;
    writer w(out);
    w.put(wire_magic);
    w.put(wire_version);
    w.put(static_cast<uint8_t>(m.type));
    w.put(uint8_t{0});
    w.put(m.from);
    w.put(m.to);
    w.put(m.qpn);
    w.put(m.psn);
    w.put(m.peer_qpn);
    w.put(m.credits);
    return connect_message_size;
}

bool decode_connect(const void *bytes, size_t length, int32_t job_size, int32_t me, connect_message &out,
                    std::string &why) {
    reader r(bytes);
    if (!check_header(r, length, connect_message_size, "connection message", why)) return false;
    const auto type = r.get<uint8_t>();
    r.get<uint8_t>();
    out.from = r.get<int32_t>();
    out.to = r.get<int32_t>();
    out.qpn = r.get<uint32_t>();
    out.psn = r.get<uint32_t>();
    out.peer_qpn = r.get<uint32_t>();
    out.credits = r.get<uint32_t>();
    if (type < static_cast<uint8_t>(connect_type::request) || type > static_cast<uint8_t>(connect_type::ready)) {
        why = "connection message of unknown type " + std::to_string(type);
        return false;
    }
    out.type = static_cast<connect_type>(type);
    if (out.from < 0 || out.from >= job_size || out.from == me || out.to != me) {
        why = "connection message from rank " + std::to_string(out.from) + " to rank " + std::to_string(out.to) +
              " reached rank " + std::to_string(me) + " of " + std::to_string(job_size);
        return false;
    }
    if (out.qpn == 0 || out.qpn >= qpn_limit || out.psn >= qpn_limit ||
        (out.type != connect_type::request && (out.peer_qpn == 0 || out.peer_qpn >= qpn_limit))) {
        why = "connection message with queue pair or sequence numbers beyond 24 bits";
        return false;
    }
    if (out.type != connect_type::ready && (out.credits == 0 || out.credits > credits_limit)) {
        why = "connection message granting " + std::to_string(out.credits) + " receive buffers";
        return false;
    }
    return true;
}

size_t encode_key(const wire_key &k, uint8_t *out, size_t capacity) {
    if (capacity < wire_key_size) return 0;
    writer w(out);
    w.put(key_tag);
    w.put(k.base);
    w.put(k.length);
    w.put(k.rkey);
    return wire_key_size;
}

bool decode_key(const void *bytes, size_t length, wire_key &out, std::string &why) {
    if (length != wire_key_size) {
        why = "verbs key of " + std::to_string(length) + " bytes (expected " + std::to_string(wire_key_size) + ")";
        return false;
    }
    reader r(bytes);
    if (r.get<uint32_t>() != key_tag) {
        why = "verbs key without its tag";
        return false;
    }
    out.base = r.get<uint64_t>();
    out.length = r.get<uint64_t>();
    out.rkey = r.get<uint32_t>();
    if (out.length == 0 || out.base + out.length < out.base) {
        why = "verbs key to an empty region or one that wraps around the address space";
        return false;
    }
    return true;
}

}  // namespace ccs::verbs
