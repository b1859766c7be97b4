// Put and get where the target's memory is mapped into this process (a
// node-scope plugin that maps its peers' memory): copies list to list,
// with a put's bytes released before its completion is reported and a
// get's read after an acquire, so a flag or message that follows orders
// after the data on weakly ordered CPUs too.
#pragma once

#include "util/fence.hpp"
#include "util/list_copy.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstdint>
#include <utility>

namespace ccs::plugin {

// where(remote_piece) is the piece's address here; the caller has checked
// that every remote piece is mapped. copy(to, from, n) moves bytes.
template <typename Copy, typename Where>
void put_mapped(Copy copy, const ccs_plugin_iov_v1_t *local, size_t nlocal, const ccs_plugin_remote_v1_t *remote,
                size_t nremote, Where where) {
    copy_lists(
        copy, nremote, [&](size_t i) { return std::pair{where(remote[i]), remote[i].length}; }, nlocal,
        [&](size_t i) { return std::pair{static_cast<const uint8_t *>(local[i].base), local[i].length}; });
    release_fence();
}

template <typename Copy, typename Where>
void get_mapped(Copy copy, const ccs_plugin_buffer_v1_t *local, size_t nlocal, const ccs_plugin_remote_v1_t *remote,
                size_t nremote, Where where) {
    acquire_fence();
    copy_lists(
        copy, nlocal, [&](size_t i) { return std::pair{static_cast<uint8_t *>(local[i].base), local[i].length}; },
        nremote, [&](size_t i) { return std::pair{static_cast<const uint8_t *>(where(remote[i])), remote[i].length}; });
}

}  // namespace ccs::plugin
