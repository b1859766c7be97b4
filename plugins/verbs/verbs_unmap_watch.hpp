// Memory hooks for the adapter's pinned regions: UCX's memory-event
// library (UCM, Debian's libucx) calls back before any part of the address
// space is unmapped (munmap, mremap, madvise, brk, shmdt, and malloc's own
// releases), and the watch tells the core, whose registration cache then
// stops handing out regions over those pages. Without this a region
// registered before an unmap would keep the old physical pages pinned, and
// a put to memory mapped anew at the same address would land in them.
#pragma once

#include "common/core_services.hpp"

#include <string>

namespace ccs::verbs {

class unmap_watch {
public:
    explicit unmap_watch(const plugin::core_services &core) : core_(core) {}
    ~unmap_watch();
    unmap_watch(const unmap_watch &) = delete;
    unmap_watch &operator=(const unmap_watch &) = delete;

    // Installs the hooks (once per process; later watches share them).
    bool start(std::string &why);
    // What the hooks call: [addr, addr + length) is about to be unmapped.
    void unmapping(const void *addr, size_t length) const { core_.mem_unmapped(addr, length); }

private:
    plugin::core_services core_;
    bool started_ = false;
};

}  // namespace ccs::verbs
