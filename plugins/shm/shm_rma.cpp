// Single-copy RMA between processes of one node: cross-memory attach
// (process_vm_writev / process_vm_readv) moves bytes straight between the
// two address spaces, one system call per operation, no copy through the
// shared segment. Registration pins nothing, so mem_reg only hands back a
// handle; a key names the owner's pid, which the plugin checks against the
// pid the owner published in the segment.
#include "shm_state.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <new>
#include <string>

#include <unistd.h>

namespace ccs::shm {
namespace {

constexpr uint32_t key_magic = 0x4b4d4853;  // "SHMK"

struct packed_key {
    uint32_t magic;
    int32_t pid;
};

struct unpacked_key {
    int32_t pid;
};

}  // namespace

ccs_plugin_status_t state::rkey_pack(void *buffer, size_t *length) const {
    const size_t capacity = *length;
    *length = sizeof(packed_key);
    if (!buffer) return CCS_PLUGIN_OK;
    if (capacity < sizeof(packed_key)) return CCS_PLUGIN_ERR_INVALID;
    const packed_key k{key_magic, static_cast<int32_t>(::getpid())};
    std::memcpy(buffer, &k, sizeof k);
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t state::rkey_unpack(int32_t peer, const void *buffer, size_t length, void **rkey) const {
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
    *rkey = u;
    return CCS_PLUGIN_OK;
}

void state::rkey_release(void *rkey) const { delete static_cast<unpacked_key *>(rkey); }

ccs_plugin_status_t state::cma(bool write, int32_t peer, struct iovec *local, size_t nlocal, struct iovec *remote,
                               size_t nremote, void *rkey) {
    if (!rkey || failed_[static_cast<size_t>(local_index_[static_cast<size_t>(peer)])])
        return rkey ? CCS_PLUGIN_ERR_PEER_FAILED : CCS_PLUGIN_ERR_INVALID;
    const pid_t pid = static_cast<unpacked_key *>(rkey)->pid;
    // The kernel takes at most IOV_MAX segments a side and may stop early:
    // advance both lists by what it moved and go on.
    while (nlocal > 0 && nremote > 0) {
        ssize_t moved;
        if (cfg_.deny_cma) {
            moved = -1;
            errno = EPERM;
        } else {
            const unsigned long nl = nlocal < IOV_MAX ? nlocal : IOV_MAX, nr = nremote < IOV_MAX ? nremote : IOV_MAX;
            moved = write ? ::process_vm_writev(pid, local, nl, remote, nr, 0)
                          : ::process_vm_readv(pid, local, nl, remote, nr, 0);
        }
        if (moved < 0) {
            if (errno == EINTR) continue;
            if (errno == EPERM || errno == ENOSYS) {
                if (!cma_refused_) {
                    cma_refused_ = true;
                    log(CCS_PLUGIN_LOG_WARN, std::string("cross-memory attach refused by the kernel (") +
                                                 std::strerror(errno) +
                                                 "); RMA to processes on this node goes through messages");
                }
                return CCS_PLUGIN_ERR_UNSUPPORTED;
            }
            if (errno == ESRCH) return CCS_PLUGIN_ERR_PEER_FAILED;
            if (errno == EFAULT) return CCS_PLUGIN_ERR_ACCESS;
            return CCS_PLUGIN_ERR_SYSTEM;
        }
        if (moved == 0) return CCS_PLUGIN_ERR_ACCESS;  // remote side unmapped
        auto advance = [](struct iovec *&v, size_t &n, size_t bytes) {
            while (n > 0 && bytes >= v->iov_len) {
                bytes -= v->iov_len;
                ++v;
                --n;
            }
            if (n > 0 && bytes > 0) {
                v->iov_base = static_cast<char *>(v->iov_base) + bytes;
                v->iov_len -= bytes;
            }
        };
        advance(local, nlocal, static_cast<size_t>(moved));
        advance(remote, nremote, static_cast<size_t>(moved));
    }
    return CCS_PLUGIN_OK;
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

ccs_plugin_status_t state::put(int32_t peer, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey) {
    iovecs l(nlocal), r(nremote);
    for (size_t i = 0; i < nlocal; ++i) l.data()[i] = {const_cast<void *>(local[i].base), local[i].length};
    for (size_t i = 0; i < nremote; ++i) r.data()[i] = {reinterpret_cast<void *>(remote[i].address), remote[i].length};
    return cma(true, peer, l.data(), nlocal, r.data(), nremote, rkey);
}

ccs_plugin_status_t state::get(int32_t peer, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey) {
    iovecs l(nlocal), r(nremote);
    for (size_t i = 0; i < nlocal; ++i) l.data()[i] = {local[i].base, local[i].length};
    for (size_t i = 0; i < nremote; ++i) r.data()[i] = {reinterpret_cast<void *>(remote[i].address), remote[i].length};
    return cma(false, peer, l.data(), nlocal, r.data(), nremote, rkey);
}

}  // namespace ccs::shm
