#include "core/memory/key_format.hpp"

#include "util/serialize.hpp"

#include <sodium.h>

#include <stdexcept>

namespace ccs {
namespace {

constexpr uint32_t key_magic = 0x4b534343;  // "CCSK"
constexpr uint32_t key_version = 4;
constexpr size_t tag_bytes = 16;
constexpr uint32_t max_transports = 64;
constexpr uint32_t key_flag_network_atomics = 1;

void ensure_sodium() {
    // Thread-safe and idempotent; fails only when the system has no
    // source of randomness at all.
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

void tag_of(const uint8_t *bytes, size_t length, const key_secret &secret, uint8_t *tag) {
    crypto_generichash(tag, tag_bytes, bytes, length, secret.data(), secret.size());
}

}  // namespace

key_secret key_secret_draw() {
    ensure_sodium();
    key_secret s{};
    randombytes_buf(s.data(), s.size());
    return s;
}

std::vector<uint8_t> key_write(const key_contents &c, const key_secret &secret) {
    ensure_sodium();
    blob_writer w;
    w.u32(key_magic).u32(key_version).u32(static_cast<uint32_t>(c.owner)).u64(c.handle).u64(c.base).u64(c.length);
    w.u32(static_cast<uint32_t>(c.liveness.pid)).u32(static_cast<uint32_t>(c.liveness.fd)).u32(c.liveness.slot);
    w.u64(c.liveness.nonce).u32(c.liveness.lock_slot);
    w.u32(c.network_atomics ? key_flag_network_atomics : 0);
    w.u32(static_cast<uint32_t>(c.transports.size()));
    for (const auto &[name, part] : c.transports) w.str(name).bytes(part);
    std::vector<uint8_t> out = w.take();
    const size_t body = out.size();
    out.resize(body + tag_bytes);
    tag_of(out.data(), body, secret, out.data() + body);
    return out;
}

bool key_read(const void *bytes, size_t length, const key_secret &secret, key_contents &out, std::string &why) {
    ensure_sodium();
    const auto *b = static_cast<const uint8_t *>(bytes);
    if (length < tag_bytes) {
        why = std::to_string(length) + " bytes are too few for a key";
        return false;
    }
    uint8_t expected[tag_bytes];
    tag_of(b, length - tag_bytes, secret, expected);
    if (crypto_verify_16(expected, b + length - tag_bytes) != 0) {
        why = "the bytes are damaged, cut short, altered, or were packed by another job (their tag does not match)";
        return false;
    }
    if (!key_read_fields(b, length - tag_bytes, out)) {
        why = "the tag matches but the fields do not parse (a key of another CCS version?)";
        return false;
    }
    return true;
}

bool key_read_fields(const uint8_t *bytes, size_t length, key_contents &out) {
    const std::vector<uint8_t> copy(bytes, bytes + length);
    blob_reader r(copy);
    if (r.u32() != key_magic || r.u32() != key_version) return false;
    out.owner = static_cast<int>(r.u32());
    out.handle = r.u64();
    out.base = r.u64();
    out.length = r.u64();
    out.liveness.pid = static_cast<int32_t>(r.u32());
    out.liveness.fd = static_cast<int32_t>(r.u32());
    out.liveness.slot = r.u32();
    out.liveness.nonce = r.u64();
    out.liveness.lock_slot = r.u32();
    const uint32_t flags = r.u32();
    if (flags & ~key_flag_network_atomics) return false;
    out.network_atomics = (flags & key_flag_network_atomics) != 0;
    const uint32_t n = r.u32();
    if (!r.ok() || n > max_transports) return false;
    out.transports.clear();
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        std::string name = r.str();
        std::vector<uint8_t> part = r.bytes();
        out.transports.emplace_back(std::move(name), std::move(part));
    }
    return r.ok() && r.at_end() && out.owner >= 0 && out.base + out.length >= out.base;
}

}  // namespace ccs
