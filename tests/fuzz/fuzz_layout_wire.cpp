// libFuzzer target: the input is a layout in wire form as a broken or
// hostile peer might send it with an RMA request (dd::layout_from_bytes).
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - what is accepted is committed, and written out again it reads back
//     to the same bytes;
//   - a small accepted layout packs exactly its size from memory covering
//     its footprint, and copies into contiguous bytes as it packs.
#include "fuzz_input.hpp"
#include "datadesc/layout_copy.hpp"
#include "datadesc/layout_wire.hpp"

#include <ccs/datadesc.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    ccs_datadesc_s dd;
    if (ccs::dd::layout_from_bytes(data, length, dd) != CCS_OK) {
        require(!dd.compiled);
        return 0;
    }
    require(dd.compiled != nullptr && dd.root != nullptr);
    std::vector<uint8_t> again;
    ccs::dd::layout_to_bytes(dd, again);
    ccs_datadesc_s reread;
    require(ccs::dd::layout_from_bytes(again.data(), again.size(), reread) == CCS_OK);
    std::vector<uint8_t> third;
    ccs::dd::layout_to_bytes(reread, third);
    require(third == again);

    // Memory from min(lo, 0) to max(hi, 0), so that the base address
    // itself lies inside it too.
    // Through the public calls, as a handle.
    struct freed {
        ccs_datadesc_t h;
        ~freed() { ccs_datadesc_free(&h); }
    } handle{ccs::dd::handle_insert(std::make_unique<ccs_datadesc_s>(dd))};
    int64_t size = 0, lo = 0, hi = 0, span = 0;
    require(ccs_datadesc_size(handle.h, &size) == CCS_OK && size >= 0);
    if (size > (64 << 10) || !ccs::dd::footprint(dd, 1, lo, hi)) return 0;
    lo = std::min<int64_t>(lo, 0);
    hi = std::max<int64_t>(hi, 0);
    if (__builtin_sub_overflow(hi, lo, &span) || span > (1 << 20)) return 0;
    std::vector<uint8_t> memory(static_cast<size_t>(span) + 1), packed(static_cast<size_t>(size) + 1, 0);
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 7 + 1);
    uint8_t *base = memory.data() + (-lo);
    int64_t done = -1;
    require(ccs_datadesc_pack(base, 1, handle.h, 0, packed.data(), size, &done) == CCS_OK && done == size);
    std::vector<uint8_t> copied(packed.size(), 0);
    ccs::dd::copy_layouts(copied.data(), size, ccs_datadesc_byte_, base, 1, dd);
    require(copied == packed);
    return 0;
}
