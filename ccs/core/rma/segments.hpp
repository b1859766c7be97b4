// Segment lists (address, length) in this process's memory: gathering them
// into one buffer, scattering one buffer over them, copying list to list.
#pragma once

#include "util/list_copy.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstdint>
#include <cstring>
#include <utility>

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

// Two lists of equal total length; memmove, as scatter.
inline void copy_segments(const ccs_plugin_remote_v1_t *to, size_t nto, const ccs_plugin_remote_v1_t *from,
                          size_t nfrom) {
    const auto piece = [](const ccs_plugin_remote_v1_t *list) {
        return [list](size_t i) { return std::pair{reinterpret_cast<uint8_t *>(list[i].address), list[i].length}; };
    };
    copy_lists([](uint8_t *t, const uint8_t *f, size_t n) { std::memmove(t, f, n); }, nto, piece(to), nfrom,
               piece(from));
}

}  // namespace ccs
