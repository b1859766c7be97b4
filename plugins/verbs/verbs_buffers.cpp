// Slabs of registered buffers.
#include "verbs_buffers.hpp"

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

namespace ccs::verbs {

buffer_pool::~buffer_pool() {
    for (slab &s : slabs_) {
        if (s.mr) ops_.dereg_mr(s.mr);
        std::free(s.memory);
    }
}

bool buffer_pool::grow(ibv_pd *pd, uint32_t count) {
    if (count == 0) return true;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    // Each buffer on its own cache lines; the slab on whole pages.
    const size_t stride = (size_ + 63) & ~size_t{63};
    const size_t bytes = ((stride * count) + page - 1) & ~(page - 1);
    slab s;
    if (posix_memalign(&s.memory, page, bytes) != 0) {
        errno = ENOMEM;
        return false;
    }
    s.mr = ops_.reg_mr(pd, s.memory, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!s.mr) {
        const int err = errno;
        std::free(s.memory);
        errno = err;
        return false;
    }
    slabs_.push_back(s);
    for (uint32_t i = 0; i < count; ++i) {
        free_.push_back(static_cast<int32_t>(slots_.size()));
        slots_.push_back({static_cast<uint8_t *>(s.memory) + i * stride, s.mr->lkey});
    }
    return true;
}

}  // namespace ccs::verbs
