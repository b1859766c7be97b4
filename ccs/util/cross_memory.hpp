// Cross-memory attach: bytes moved straight between this process's memory
// and another's on the same node (process_vm_readv / process_vm_writev),
// with no mapping shared beforehand. The shm plugin's RMA and the core's
// collectives within a node move bytes this way.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cerrno>
#include <climits>
#include <cstddef>

namespace ccs {

// Moves the bytes of `remote` (in process `pid`) to or from `local`, both
// lists of equal total length; both are advanced past what moved. 0 once
// all moved, else the errno that stopped it: EPERM or ENOSYS, the kernel
// refuses; ESRCH, no such process; EFAULT, a range is not mapped there.
inline int cross_memory_move(bool write, pid_t pid, struct iovec *local, size_t nlocal, struct iovec *remote,
                             size_t nremote) {
    // The kernel takes at most IOV_MAX segments a side and may stop early:
    // advance both lists by what it moved and go on.
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
    while (nlocal > 0 && nremote > 0) {
        const unsigned long nl = nlocal < IOV_MAX ? nlocal : IOV_MAX, nr = nremote < IOV_MAX ? nremote : IOV_MAX;
        const ssize_t moved = write ? ::process_vm_writev(pid, local, nl, remote, nr, 0)
                                    : ::process_vm_readv(pid, local, nl, remote, nr, 0);
        if (moved < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (moved == 0) return EFAULT;  // the remote side is not mapped
        advance(local, nlocal, static_cast<size_t>(moved));
        advance(remote, nremote, static_cast<size_t>(moved));
    }
    return 0;
}

// One range each side.
inline int cross_memory_move(bool write, pid_t pid, void *local, const void *remote, size_t length) {
    struct iovec l{local, length}, r{const_cast<void *>(remote), length};
    return length ? cross_memory_move(write, pid, &l, 1, &r, 1) : 0;
}

}  // namespace ccs
