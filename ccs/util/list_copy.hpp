// Copying between two lists of pieces of equal total length, piece
// boundaries anywhere on either side. The core (RMA into this process) and
// plugins (RMA into mapped peer memory) copy lists alike through this.
#pragma once

#include <algorithm>
#include <cstddef>

namespace ccs {

// to_at(i) and from_at(i) give piece i as {pointer, length}; copy(to,
// from, n) moves n bytes.
template <typename Copy, typename To, typename From>
void copy_lists(Copy copy, size_t nto, To to_at, size_t nfrom, From from_at) {
    size_t ti = 0, fi = 0, toff = 0, foff = 0;
    while (ti < nto && fi < nfrom) {
        const auto [to, tlen] = to_at(ti);
        const auto [from, flen] = from_at(fi);
        const size_t n = std::min(tlen - toff, flen - foff);
        copy(to + toff, from + foff, n);
        if ((toff += n) == tlen) ++ti, toff = 0;
        if ((foff += n) == flen) ++fi, foff = 0;
    }
}

}  // namespace ccs
