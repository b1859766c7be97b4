#include "layout_copy.hpp"

#include "copy_kernels.hpp"

#include <algorithm>
#include <memory>

namespace ccs::dd {

bool footprint(const ccs_datadesc_s &dd, int64_t count, int64_t &lo, int64_t &hi) {
    lo = hi = 0;
    if (count == 0 || !dd.root->data) return true;
    // Element i lies at i * extent; the extent may be negative or zero.
    int64_t last = 0;
    return mul(count - 1, dd.compiled->extent, last) && add(dd.root->data->lo, std::min<int64_t>(last, 0), lo) &&
           add(dd.root->data->hi, std::max<int64_t>(last, 0), hi);
}

void copy_layouts(uint8_t *to, int64_t to_count, const ccs_datadesc_s &to_dd, const uint8_t *from,
                  int64_t from_count, const ccs_datadesc_s &from_dd) {
    const program &in = *from_dd.compiled, &out = *to_dd.compiled;
    const int64_t bytes = from_count * in.size;  // the caller checked that it fits and matches
    if (bytes == 0) return;
    auto *source = const_cast<uint8_t *>(from);  // pack reads it only
    // One side contiguous: it is the other side's stream.
    if (in.contiguous(from_count)) {
        transfer<direction::unpack>(out, to_dd.element_run, to_count, to, 0, source + in.ops[0].disp, bytes);
        return;
    }
    if (out.contiguous(to_count)) {
        transfer<direction::pack>(in, from_dd.element_run, from_count, source, 0, to + out.ops[0].disp, bytes);
        return;
    }
    // Neither: through a staging buffer small enough to stay in the L1 or
    // L2 between the pack and the unpack, resuming both at each chunk's
    // offset. On the stack only when small: runtimes with user-level
    // threads run on stacks of a few KiB.
    constexpr int64_t stack_chunk = 1024, heap_chunk = 32768;
    uint8_t on_stack[stack_chunk];
    std::unique_ptr<uint8_t[]> on_heap;
    uint8_t *stage = on_stack;
    int64_t chunk = stack_chunk;
    if (bytes > stack_chunk) {
        chunk = std::min(bytes, heap_chunk);
        on_heap.reset(new uint8_t[static_cast<size_t>(chunk)]);
        stage = on_heap.get();
    }
    for (int64_t offset = 0; offset < bytes;) {
        const int64_t n =
            transfer<direction::pack>(in, from_dd.element_run, from_count, source, offset, stage, std::min(chunk, bytes - offset));
        transfer<direction::unpack>(out, to_dd.element_run, to_count, to, offset, stage, n);
        offset += n;
    }
}

}  // namespace ccs::dd
