#include "core/memory/shared_allocation.hpp"

#include "util/error.hpp"
#include "util/range.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>

namespace ccs {
namespace {

std::map<uintptr_t, shared_allocation> &live_allocations() {
    static std::map<uintptr_t, shared_allocation> t;
    return t;
}
uint64_t next_id = 1;

// The address space for an allocation of `reserved` bytes: at `at` when
// that is free there, else anywhere; inaccessible until the file is mapped
// over its start.
void *reserve_space(size_t reserved, uintptr_t at) {
    constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (at != 0) {
        void *p = ::mmap(reinterpret_cast<void *>(at), reserved, PROT_NONE, flags | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == reinterpret_cast<void *>(at)) return p;
        // Kernels before 4.17 take the flag as a hint and map elsewhere.
        if (p != MAP_FAILED) ::munmap(p, reserved);
    }
    return ::mmap(nullptr, reserved, PROT_NONE, flags, -1, 0);
}

}  // namespace

ccs_status_t shared_allocation_create(size_t length, shared_allocation &out, const placement &where, bool *placed) {
    const int fd = ::memfd_create("ccs-mem", MFD_CLOEXEC);
    if (fd < 0) return fail(CCS_ERR_NO_MEMORY, std::string("ccs_mem_alloc: memfd_create: ") + std::strerror(errno));
    if (::ftruncate(fd, static_cast<off_t>(length)) != 0) {
        const int e = errno;
        ::close(fd);
        return fail(CCS_ERR_NO_MEMORY, "ccs_mem_alloc: " + std::to_string(length) + " bytes: " + std::strerror(e));
    }
    const size_t reserved = std::max(length, where.reserve);
    void *space = reserve_space(reserved, where.at);
    void *p = space == MAP_FAILED ? MAP_FAILED
                                  : ::mmap(space, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        if (space != MAP_FAILED) ::munmap(space, reserved);
        ::close(fd);
        return fail(CCS_ERR_NO_MEMORY, "ccs_mem_alloc: mmap of " + std::to_string(length) + " bytes: " + std::strerror(e));
    }
    out = shared_allocation{next_id++, fd, reinterpret_cast<uintptr_t>(p), length, reserved};
    live_allocations()[out.addr] = out;
    if (placed) *placed = where.at == 0 || out.addr == where.at;
    return CCS_OK;
}

bool shared_allocation_destroy(uintptr_t addr) {
    auto it = live_allocations().find(addr);
    if (it == live_allocations().end()) return false;
    ::munmap(reinterpret_cast<void *>(it->second.addr), it->second.reserved);
    ::close(it->second.fd);
    live_allocations().erase(it);
    return true;
}

const shared_allocation *shared_allocation_find(uintptr_t addr, size_t length) {
    auto it = live_allocations().upper_bound(addr);
    if (it == live_allocations().begin()) return nullptr;
    const shared_allocation &a = std::prev(it)->second;
    return range_holds(a.addr, a.length, addr, length) ? &a : nullptr;
}

}  // namespace ccs
