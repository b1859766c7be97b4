// RMA between processes of one node, in one copy.
//   - Memory the core allocated to be shared (ccs_mem_alloc): the key names
//     the owner's backing file; a peer maps it once (/proc/<pid>/fd/<n>) and
//     put/get become memcpy, no system call (copies of 1 MiB and more
//     by whichever of memcpy and rep movsb the first ones showed faster:
//     shm_copy.hpp).
//   - Any other registered memory: cross-memory attach (process_vm_writev /
//     process_vm_readv) moves bytes straight between the address spaces,
//     one system call per operation.
// Registration pins nothing. A key carries the owner's pid, which the
// plugin checks against the pid the owner published in the segment.
#include "shm_plugin.hpp"

#include "common/cross_memory.hpp"
#include "common/mapped_rma.hpp"

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <cstddef>
#include <utility>
#include <cstring>
#include <new>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccs::shm {
namespace {

constexpr uint32_t key_magic = 0x4b4d4853;  // "SHMK"

struct registration {
    uintptr_t addr;
    size_t length;
    bool shared;      // in a core allocation: fd, offset, id below
    int32_t fd;
    uint64_t offset;  // of addr in the file
    uint64_t id;
};

struct packed_key {
    uint32_t magic;
    int32_t pid;
    uint32_t shared;
    int32_t fd;
    uint64_t offset;
    uint64_t id;
    uint64_t addr;    // the owner's address of the registered range
    uint64_t length;
};

struct unpacked_key {
    int32_t pid;
    uint8_t *mapped = nullptr;  // the range as mapped here, or null: use CMA
    uint64_t addr = 0, length = 0;
    uint64_t allocation = 0;    // the owner's allocation id, while mapped
};

}  // namespace

ccs_plugin_status_t shm_plugin::mem_reg(void *addr, size_t length, void **memh) {
    auto *r = new (std::nothrow) registration{reinterpret_cast<uintptr_t>(addr), length, false, -1, 0, 0};
    if (!r) return CCS_PLUGIN_ERR_NO_MEMORY;
    r->shared = core_.mem_shareable(addr, length, r->fd, r->offset, r->id);
    *memh = r;
    return CCS_PLUGIN_OK;
}

void shm_plugin::mem_dereg(void *memh) { delete static_cast<registration *>(memh); }

ccs_plugin_status_t shm_plugin::rkey_pack(void *memh, void *buffer, size_t *length) const {
    const size_t capacity = *length;
    *length = sizeof(packed_key);
    if (!buffer) return CCS_PLUGIN_OK;
    if (capacity < sizeof(packed_key) || !memh) return CCS_PLUGIN_ERR_INVALID;
    const auto &r = *static_cast<const registration *>(memh);
    const packed_key k{key_magic, static_cast<int32_t>(::getpid()), r.shared ? 1u : 0u, r.fd, r.offset, r.id,
                       r.addr, r.length};
    std::memcpy(buffer, &k, sizeof k);
    return CCS_PLUGIN_OK;
}

// The owner's backing file mapped here, once per (pid, allocation id), and
// counted per key: the last key released unmaps it, so a peer that
// allocates and frees in a loop does not pile up mappings here.
uint8_t *shm_plugin::map_shared(int32_t pid, int32_t fd, uint64_t id) {
    const auto key = std::make_pair(pid, id);
    auto it = mappings_.find(key);
    if (it != mappings_.end()) {
        ++it->second.keys;
        return it->second.base;
    }
    const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    const int local = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (local < 0) return nullptr;  // not allowed here: cross-memory attach will do
    struct stat st {};
    void *p = MAP_FAILED;
    if (::fstat(local, &st) == 0 && st.st_size > 0)
        p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, local, 0);
    ::close(local);
    if (p == MAP_FAILED) return nullptr;
    mappings_[key] = mapping{static_cast<uint8_t *>(p), static_cast<size_t>(st.st_size), 1};
    return static_cast<uint8_t *>(p);
}

void shm_plugin::unmap_all() {
    for (auto &[key, m] : mappings_) ::munmap(m.base, m.length);
    mappings_.clear();
}

ccs_plugin_status_t shm_plugin::rkey_unpack(int32_t peer, const void *buffer, size_t length, void **rkey) {
    packed_key k{};
    if (length != sizeof k) return CCS_PLUGIN_ERR_INVALID;
    std::memcpy(&k, buffer, sizeof k);
    if (k.magic != key_magic || peer < 0 || static_cast<size_t>(peer) >= local_index_.size() ||
        local_index_[static_cast<size_t>(peer)] < 0)
        return CCS_PLUGIN_ERR_INVALID;
    // The key must come from the process the segment says is that peer.
    const int32_t pid = segment_.pid(static_cast<uint32_t>(local_index_[static_cast<size_t>(peer)]))
                            .load(std::memory_order_acquire);
    if (pid != k.pid) return CCS_PLUGIN_ERR_INVALID;
    auto *u = new (std::nothrow) unpacked_key{k.pid};
    if (!u) return CCS_PLUGIN_ERR_NO_MEMORY;
    if (k.shared)
        if (uint8_t *base = map_shared(k.pid, k.fd, k.id)) {
            u->mapped = base + k.offset;
            u->addr = k.addr;
            u->length = k.length;
            u->allocation = k.id;
        }
    *rkey = u;
    return CCS_PLUGIN_OK;
}

void shm_plugin::rkey_release(void *rkey) {
    auto *u = static_cast<unpacked_key *>(rkey);
    if (u->mapped) {
        auto it = mappings_.find(std::make_pair(u->pid, u->allocation));
        if (it != mappings_.end() && --it->second.keys == 0) {
            ::munmap(it->second.base, it->second.length);
            mappings_.erase(it);
        }
    }
    delete u;
}

// Where the remote segments lie in a mapping of the owner's memory, if
// they all do; null otherwise.
static uint8_t *mapped(const unpacked_key &k, uint64_t address, size_t length) {
    if (!k.mapped || address - k.addr > k.length || length > k.length - (address - k.addr)) return nullptr;
    return k.mapped + (address - k.addr);
}

ccs_plugin_status_t shm_plugin::rkey_ptr(void *rkey, uint64_t remote, size_t length, void **local) const {
    uint8_t *at = rkey ? mapped(*static_cast<unpacked_key *>(rkey), remote, length) : nullptr;
    *local = at;
    return at ? CCS_PLUGIN_OK : CCS_PLUGIN_ERR_UNSUPPORTED;
}

void shm_plugin::copy(void *to, const void *from, size_t n) {
    if (bulk_copy_(to, from, n)) log(CCS_PLUGIN_LOG_DEBUG, bulk_copy_.decision());
}

// Where each remote piece lies here, for a key direct() accepted.
static auto in_mapping(void *rkey) {
    return [&k = *static_cast<unpacked_key *>(rkey)](const ccs_plugin_remote_v1_t &piece) {
        return mapped(k, piece.address, piece.length);
    };
}

bool shm_plugin::direct(void *rkey, const ccs_plugin_remote_v1_t *remote, size_t nremote) const {
    if (!rkey || !static_cast<unpacked_key *>(rkey)->mapped) return false;
    for (size_t i = 0; i < nremote; ++i)
        if (!mapped(*static_cast<unpacked_key *>(rkey), remote[i].address, remote[i].length)) return false;
    return true;
}

ccs_plugin_status_t shm_plugin::cma(bool write, int32_t peer, struct iovec *local, size_t nlocal, struct iovec *remote,
                               size_t nremote, void *rkey) {
    if (!rkey) return CCS_PLUGIN_ERR_INVALID;
    // Read beside progress, which marks it (rma_concurrent).
    uint8_t &failed = failed_[static_cast<size_t>(local_index_[static_cast<size_t>(peer)])];
    if (std::atomic_ref<uint8_t>(failed).load(std::memory_order_relaxed)) return CCS_PLUGIN_ERR_PEER_FAILED;
    const pid_t pid = static_cast<unpacked_key *>(rkey)->pid;
    const int error = cross_memory_move(write, pid, local, nlocal, remote, nremote);
    const ccs_plugin_status_t st = plugin::cross_memory_status(error);
    if (st == CCS_PLUGIN_ERR_UNSUPPORTED && !cma_refused_.exchange(true)) {
        log(CCS_PLUGIN_LOG_WARN, std::string("cross-memory attach refused by the kernel (") + std::strerror(error) +
                                     "); RMA to processes on this node goes through messages");
    }
    return st;
}

namespace {

// Segments as struct iovec: on the stack when few (the common case: one),
// so a small put costs no allocation.
class iovecs {
public:
    explicit iovecs(size_t n) : n_(n) {
        if (n > inline_count) heap_.resize(n);
    }
    struct iovec *data() { return n_ > inline_count ? heap_.data() : few_; }

private:
    static constexpr size_t inline_count = 8;
    size_t n_;
    struct iovec few_[inline_count];
    std::vector<struct iovec> heap_;
};

}  // namespace

ccs_plugin_status_t shm_plugin::put(int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t) {
    if (nlocal == 1 && nremote == 1 && rkey && local[0].length == remote[0].length) {  // the common case, quickly
        if (uint8_t *to = mapped(*static_cast<unpacked_key *>(rkey), remote[0].address, remote[0].length)) {
            copy(to, local[0].base, local[0].length);
            release_fence();
            return CCS_PLUGIN_OK;
        }
    }
    if (direct(rkey, remote, nremote)) {
        plugin::put_mapped(copier(), local, nlocal, remote, nremote, in_mapping(rkey));
        return CCS_PLUGIN_OK;
    }
    iovecs l(nlocal), r(nremote);
    for (size_t i = 0; i < nlocal; ++i) l.data()[i] = {const_cast<void *>(local[i].base), local[i].length};
    for (size_t i = 0; i < nremote; ++i) r.data()[i] = {reinterpret_cast<void *>(remote[i].address), remote[i].length};
    return cma(true, peer, l.data(), nlocal, r.data(), nremote, rkey);
}

ccs_plugin_status_t shm_plugin::get(int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t) {
    if (nlocal == 1 && nremote == 1 && rkey && local[0].length == remote[0].length) {  // the common case, quickly
        if (const uint8_t *from = mapped(*static_cast<unpacked_key *>(rkey), remote[0].address, remote[0].length)) {
            acquire_fence();
            copy(local[0].base, from, local[0].length);
            return CCS_PLUGIN_OK;
        }
    }
    if (direct(rkey, remote, nremote)) {
        plugin::get_mapped(copier(), local, nlocal, remote, nremote, in_mapping(rkey));
        return CCS_PLUGIN_OK;
    }
    iovecs l(nlocal), r(nremote);
    for (size_t i = 0; i < nlocal; ++i) l.data()[i] = {local[i].base, local[i].length};
    for (size_t i = 0; i < nremote; ++i) r.data()[i] = {reinterpret_cast<void *>(remote[i].address), remote[i].length};
    return cma(false, peer, l.data(), nlocal, r.data(), nremote, rkey);
}

}  // namespace ccs::shm
