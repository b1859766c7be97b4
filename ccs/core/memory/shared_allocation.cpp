#include "core/memory/shared_allocation.hpp"

#include "util/error.hpp"
#include "util/range.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

namespace ccs {
namespace {

std::map<uintptr_t, shared_allocation> &table() {
    static std::map<uintptr_t, shared_allocation> t;
    return t;
}
uint64_t next_id = 1;

}  // namespace

ccs_status_t shared_allocation_create(size_t length, shared_allocation &out) {
    const int fd = ::memfd_create("ccs-mem", MFD_CLOEXEC);
    if (fd < 0) return fail(CCS_ERR_NO_MEMORY, std::string("ccs_mem_alloc: memfd_create: ") + std::strerror(errno));
    if (::ftruncate(fd, static_cast<off_t>(length)) != 0) {
        const int e = errno;
        ::close(fd);
        return fail(CCS_ERR_NO_MEMORY, "ccs_mem_alloc: " + std::to_string(length) + " bytes: " + std::strerror(e));
    }
    void *p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        ::close(fd);
        return fail(CCS_ERR_NO_MEMORY, "ccs_mem_alloc: mmap of " + std::to_string(length) + " bytes: " + std::strerror(e));
    }
    out = shared_allocation{next_id++, fd, reinterpret_cast<uintptr_t>(p), length};
    table()[out.addr] = out;
    return CCS_OK;
}

bool shared_allocation_destroy(uintptr_t addr) {
    auto it = table().find(addr);
    if (it == table().end()) return false;
    ::munmap(reinterpret_cast<void *>(it->second.addr), it->second.length);
    ::close(it->second.fd);
    table().erase(it);
    return true;
}

const shared_allocation *shared_allocation_find(uintptr_t addr, size_t length) {
    auto it = table().upper_bound(addr);
    if (it == table().begin()) return nullptr;
    const shared_allocation &a = std::prev(it)->second;
    return range_holds(a.addr, a.length, addr, length) ? &a : nullptr;
}

}  // namespace ccs
