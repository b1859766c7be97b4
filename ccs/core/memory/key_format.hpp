// The packed remote key: what an owner hands out (ccs_rkey_pack) and any
// process of the job unpacks. Its fields name the owner, the registration
// (its handle, which is also its generation: handles are never reused),
// the range, where the owner publishes whether the registration is still
// live (key_liveness), and each transport's own part.
//
// The bytes end in a tag: BLAKE2b (libsodium's crypto_generichash) keyed
// with a secret rank 0 draws at start-up and the bootstrap hands to every
// process of the job. Every field is checked against it before any is
// used, so corrupted, truncated, widened or foreign bytes (another job's
// secret) are refused before a plugin sees its part.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ccs {

using key_secret = std::array<uint8_t, 32>;

// A fresh random secret (libsodium's randombytes).
key_secret key_secret_draw();

// Where a key's owner says whether its registration is live: word `slot`
// of the generation table the owner's process `pid` holds open as `fd`
// (tagged `nonce`, so a key can tell the owner's table from another's);
// for memory of a ccs_mem_alloc block, also where the block's accumulate
// lock is.
struct key_liveness {
    int32_t pid = 0;
    int32_t fd = -1;
    uint32_t slot = 0;
    uint64_t nonce = 0;
    uint32_t lock_slot = 0;  // the ccs_mem_alloc block's lock (0: not in a block)
};

struct key_contents {
    int owner = -1;
    uint64_t handle = 0;
    uint64_t base = 0;
    uint64_t length = 0;
    key_liveness liveness;
    // Atomics on the registration are the network adapter's (the
    // transport's atomic entry point), from every process: never the CPU's.
    bool network_atomics = false;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> transports;  // name, plugin key
};

std::vector<uint8_t> key_write(const key_contents &c, const key_secret &secret);

// Checks the tag first, then reads the fields. false and `why` ("the tag
// does not match: ...") when the bytes are not a key this job packed.
bool key_read(const void *bytes, size_t length, const key_secret &secret, key_contents &out, std::string &why);

// The fields alone, tag not checked: for the fuzzer, which cannot forge
// tags, to reach the field reader.
bool key_read_fields(const uint8_t *bytes, size_t length, key_contents &out);

}  // namespace ccs
