// libFuzzer target: the head of a large message's payload as a broken or
// hostile peer might send it (wire::read_large). Invariants (abort on
// violation), besides what ASan and UBSan see:
//   - what is refused says why;
//   - what is accepted points only inside the packet, and its parts (an
//     eager payload, or key and layout, or nothing for a push) fill the
//     packet exactly;
//   - read again as a header whose payload the transport keeps (a last
//     byte but 0 gives that payload's length in pages): accepted only as an
//     eager header alone whose size is the kept payload's, with no data.
#include "fuzz_input.hpp"
#include "core/am/large_wire.hpp"

#include <cstdint>
#include <string>

using fuzz::require;

namespace {

void read_with_kept_payload(const uint8_t *data, size_t length) {
    if (length == 0 || data[length - 1] == 0) return;
    const size_t kept = size_t{data[length - 1]} * 4096;
    ccs::wire::large_view v;
    std::string why;
    if (!ccs::wire::read_large(data, length - 1, v, why, kept)) {
        require(!why.empty());
        return;
    }
    const ccs::wire::large_header &h = v.header;
    require(length - 1 == sizeof h && h.mode == static_cast<uint8_t>(ccs::wire::large_mode::eager));
    require(h.size == kept && !v.data && !v.key && !v.layout);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    read_with_kept_payload(data, length);
    ccs::wire::large_view v;
    std::string why;
    if (!ccs::wire::read_large(data, length, v, why)) {
        require(!why.empty());
        return 0;
    }
    const ccs::wire::large_header &h = v.header;
    const uint8_t *end = data + length, *after = data + sizeof h;
    if (h.mode == static_cast<uint8_t>(ccs::wire::large_mode::eager)) {
        require(v.data == after && v.data + h.size == end && !v.key && !v.layout);
    } else if (h.mode == static_cast<uint8_t>(ccs::wire::large_mode::push)) {
        require(after == end && h.size > 0 && !v.data && !v.key && !v.layout);
    } else {
        require(h.mode == static_cast<uint8_t>(ccs::wire::large_mode::fetch) && h.size > 0);
        require(v.key == after && h.key_length > 0 && v.key + h.key_length + h.layout_length == end);
        require(h.layout_length == 0 ? !v.layout && h.count == 0 : v.layout == v.key + h.key_length && h.count >= 0);
    }
    return 0;
}
