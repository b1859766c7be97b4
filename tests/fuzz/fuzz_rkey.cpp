// libFuzzer target: a packed remote key as a broken or hostile process
// might hand it to ccs_rkey_unpack (core/memory/key_format.hpp).
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - key_read accepts only bytes whose tag the job's secret made: random
//     input never passes, and what passes writes back to the same bytes;
//   - the field reader (reached directly, since the fuzzer cannot forge
//     tags) accepts only keys whose range does not wrap, and what it
//     accepts, written and tagged, reads back to the same fields.
#include "fuzz_input.hpp"
#include "core/memory/key_format.hpp"

#include <cstdint>
#include <string>
#include <vector>

using fuzz::require;

namespace {

const ccs::key_secret &secret() {
    static const ccs::key_secret s = [] {
        ccs::key_secret k{};
        for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<uint8_t>(i * 37 + 11);
        return k;
    }();
    return s;
}

bool same(const ccs::key_contents &a, const ccs::key_contents &b) {
    return a.owner == b.owner && a.handle == b.handle && a.base == b.base && a.length == b.length &&
           a.liveness.pid == b.liveness.pid && a.liveness.fd == b.liveness.fd && a.liveness.slot == b.liveness.slot &&
           a.liveness.nonce == b.liveness.nonce && a.liveness.lock_slot == b.liveness.lock_slot &&
           a.network_atomics == b.network_atomics &&
           a.transports == b.transports;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    ccs::key_contents read;
    std::string why;
    if (ccs::key_read(data, length, secret(), read, why)) {
        // Only a key written with this secret gets here.
        const std::vector<uint8_t> again = ccs::key_write(read, secret());
        require(again == std::vector<uint8_t>(data, data + length));
    } else {
        require(!why.empty());
    }
    ccs::key_contents fields;
    if (!ccs::key_read_fields(data, length, fields)) return 0;
    require(fields.owner >= 0 && fields.base + fields.length >= fields.base);
    const std::vector<uint8_t> written = ccs::key_write(fields, secret());
    ccs::key_contents back;
    require(ccs::key_read(written.data(), written.size(), secret(), back, why));
    require(same(back, fields));
    // One changed byte anywhere, tag included, is refused.
    for (size_t i = 0; i < written.size(); i += 7) {
        std::vector<uint8_t> bad = written;
        bad[i] ^= 0x20;
        require(!ccs::key_read(bad.data(), bad.size(), secret(), back, why));
    }
    return 0;
}
