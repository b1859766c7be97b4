// libFuzzer target: the input drives a sequence of datadesc constructors
// (any parameters, including bad ones), then packs the result in segments
// the input chooses. Invariants checked (abort on violation):
//   - a constructor either succeeds or returns an error and no handle;
//   - segmented pack == one-shot pack == the bytes the iovec walk lists.
// Layouts are kept small (size and span) so every run is cheap.
#include "fuzz_input.hpp"

#include <ccs/datadesc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using fuzz::require;

struct input : fuzz::input {
    int64_t small() { return static_cast<int8_t>(byte()); }  // -128..127
    int64_t count() { return byte() % 6; }
};

bool reasonable(ccs_datadesc_t d) {
    int64_t size = 0, lb = 0, ext = 0, tlb = 0, text = 0;
    ccs_datadesc_size(d, &size);
    ccs_datadesc_extent(d, &lb, &ext);
    ccs_datadesc_true_extent(d, &tlb, &text);
    return size <= (1 << 16) && text <= (1 << 20) && ext <= (1 << 20) && ext >= -(1 << 20) && tlb >= -(1 << 20) &&
           tlb <= (1 << 20);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    input in{{data, length}};
    std::vector<ccs_datadesc_t> stack{CCS_BYTE};
    auto top = [&] { return stack[in.byte() % stack.size()]; };
    for (int step = 0; step < 8 && in.n > 0; ++step) {
        ccs_datadesc_t out = nullptr;
        ccs_status_t st = CCS_OK;
        int64_t a[4], b[4];
        switch (in.byte() % 10) {
        case 0: st = ccs_datadesc_contiguous(in.count(), top(), &out); break;
        case 1: st = ccs_datadesc_vector(in.count(), in.count(), in.small(), top(), &out); break;
        case 2: st = ccs_datadesc_hvector(in.count(), in.count(), in.small(), top(), &out); break;
        case 3: {
            const int64_t n = in.byte() % 4;
            for (int64_t i = 0; i < n; ++i) a[i] = in.small() % 5, b[i] = in.small();
            st = in.byte() & 1 ? ccs_datadesc_indexed(n, a, b, top(), &out) : ccs_datadesc_hindexed(n, a, b, top(), &out);
            break;
        }
        case 4: {
            const int64_t n = in.byte() % 3;
            ccs_datadesc_t types[3] = {top(), top(), top()};
            for (int64_t i = 0; i < n; ++i) a[i] = in.small() % 4, b[i] = in.small();
            st = ccs_datadesc_struct(n, a, b, types, &out);
            break;
        }
        case 5: st = ccs_datadesc_resized(top(), in.small(), in.small(), &out); break;
        case 6: {
            const int64_t sizes[2] = {in.small(), in.small()}, sub[2] = {in.small(), in.small()},
                          starts[2] = {in.small(), in.small()};
            st = ccs_datadesc_subarray(2, sizes, sub, starts, in.byte() & 1 ? CCS_ORDER_C : CCS_ORDER_FORTRAN, top(), &out);
            break;
        }
        case 7: {
            const int levels = static_cast<int>(in.byte() % 4);
            for (int i = 0; i <= levels; ++i) a[i] = in.small();
            for (int i = 0; i < levels; ++i) b[i] = in.small();
            st = ccs_datadesc_strided(levels, a, b, &out);
            break;
        }
        case 8: {
            const int64_t n = in.byte() % 4;
            for (int64_t i = 0; i < n; ++i) a[i] = in.small(), b[i] = in.small();
            st = ccs_datadesc_iov(n, a, b, &out);
            break;
        }
        default: st = ccs_datadesc_dup(top(), &out); break;
        }
        require((st == CCS_OK) == (out != nullptr));
        if (!out) continue;
        if (!reasonable(out)) {
            require(ccs_datadesc_free(&out) == CCS_OK);
            continue;
        }
        stack.push_back(out);
    }
    ccs_datadesc_t d = stack.back();
    if (ccs_datadesc_commit(d) != CCS_OK) std::abort();
    const int64_t count = 1 + in.byte() % 3;
    int64_t size = 0, lb = 0, ext = 0, tlb = 0, text = 0;
    ccs_datadesc_size(d, &size);
    ccs_datadesc_extent(d, &lb, &ext);
    ccs_datadesc_true_extent(d, &tlb, &text);
    const int64_t lo = std::min(tlb, tlb + (count - 1) * ext), hi = std::max(tlb + text, tlb + text + (count - 1) * ext);
    std::vector<uint8_t> memory(static_cast<size_t>(hi - lo + 1));
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i * 31);
    const uint8_t *origin = memory.data() - lo;
    const int64_t total = size * count;
    std::vector<uint8_t> whole(static_cast<size_t>(total) + 1), parts(whole.size()), listed;
    int64_t done = 0;
    require(ccs_datadesc_pack(origin, count, d, 0, whole.data(), total, &done) == CCS_OK && done == total);
    for (int64_t off = 0; off < total; off += done) {
        const int64_t len = 1 + in.byte() % 64;
        require(ccs_datadesc_pack(origin, count, d, off, parts.data() + off, len, &done) == CCS_OK && done > 0);
    }
    require(std::memcmp(whole.data(), parts.data(), static_cast<size_t>(total)) == 0);
    for (int64_t off = 0; off < total;) {
        ccs_datadesc_iovec_t iov[4];
        int64_t n = 0, bytes = 0;
        require(ccs_datadesc_iov_walk(origin, count, d, off, iov, 4, 1 + in.byte() % 128, &n, &bytes) == CCS_OK);
        require(bytes > 0 && n > 0);
        for (int64_t i = 0; i < n; ++i) {
            const auto *p = static_cast<const uint8_t *>(iov[i].base);
            listed.insert(listed.end(), p, p + iov[i].length);
        }
        off += bytes;
    }
    require(static_cast<int64_t>(listed.size()) == total);
    require(total == 0 || std::memcmp(listed.data(), whole.data(), listed.size()) == 0);
    for (size_t i = 1; i < stack.size(); ++i) require(ccs_datadesc_free(&stack[i]) == CCS_OK);
    return 0;
}
