// Segment lists (address, length) in this process's memory: gathering them
// into one buffer, scattering one buffer over them, copying list to list.
#pragma once

#include <ccs/plugin/ccs_plugin_v1.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ccs {

inline void gather(const ccs_plugin_remote_v1_t *segs, size_t n, uint8_t *to) {
    for (size_t i = 0; i < n; to += segs[i].length, ++i)
        std::memcpy(to, reinterpret_cast<const void *>(segs[i].address), segs[i].length);
}

// memmove: a put to this process may overlap its source.
inline void scatter(const uint8_t *from, const ccs_plugin_remote_v1_t *segs, size_t n) {
    for (size_t i = 0; i < n; from += segs[i].length, ++i)
        std::memmove(reinterpret_cast<void *>(segs[i].address), from, segs[i].length);
}

// Two lists of equal total length.
inline void copy_segments(const ccs_plugin_remote_v1_t *to, size_t nto, const ccs_plugin_remote_v1_t *from,
                          size_t nfrom) {
    size_t ti = 0, fi = 0, toff = 0, foff = 0;
    while (ti < nto && fi < nfrom) {
        const size_t n = std::min(to[ti].length - toff, from[fi].length - foff);
        std::memmove(reinterpret_cast<void *>(to[ti].address + toff),
                     reinterpret_cast<const void *>(from[fi].address + foff), n);
        if ((toff += n) == to[ti].length) ++ti, toff = 0;
        if ((foff += n) == from[fi].length) ++fi, foff = 0;
    }
}

}  // namespace ccs
