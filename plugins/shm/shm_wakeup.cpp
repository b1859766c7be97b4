#include "shm_wakeup.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace ccs::shm {
namespace {

// An abstract address: a leading NUL, no file, gone with the socket.
socklen_t address_of(const std::string &prefix, uint32_t local, sockaddr_un &out) {
    std::memset(&out, 0, sizeof out);
    out.sun_family = AF_UNIX;
    const std::string name = prefix + ".wake." + std::to_string(local);
    const size_t n = std::min(name.size(), sizeof out.sun_path - 1);
    std::memcpy(out.sun_path + 1, name.data(), n);
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

}  // namespace

std::string wakeup_socket::open(const std::string &prefix, uint32_t me) {
    close();
    prefix_ = prefix;
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return std::string("socket: ") + std::strerror(errno);
    sockaddr_un addr;
    const socklen_t len = address_of(prefix_, me, addr);
    if (::bind(fd_, reinterpret_cast<sockaddr *>(&addr), len) != 0) {
        const std::string err = std::string("bind: ") + std::strerror(errno);
        close();
        return err;
    }
    return "";
}

void wakeup_socket::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void wakeup_socket::wake(uint32_t peer) const {
    if (fd_ < 0) return;
    sockaddr_un addr;
    const socklen_t len = address_of(prefix_, peer, addr);
    const char byte = 1;
    // EAGAIN: its buffer holds wake-ups already; ECONNREFUSED: it has no
    // socket (it could not open one, or it is gone), so it sleeps only in
    // short slices and finds the record anyway.
    (void)::sendto(fd_, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<sockaddr *>(&addr), len);
}

void wakeup_socket::drain() const {
    char buffer[64];
    while (fd_ >= 0 && ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
    }
}

}  // namespace ccs::shm
