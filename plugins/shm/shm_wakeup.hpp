// How a sleeping process is woken by a local peer: each process has a
// datagram socket with an abstract name derived from the segment's, and a
// sender that finds the receiver asleep (its doorbell says so) sends one
// byte to it. The core polls the socket with the other transports' wake-up
// descriptors. A socket, not a futex in the segment, so that one epoll
// covers shm and the network transports alike.
#pragma once

#include <cstdint>
#include <string>

namespace ccs::shm {

class wakeup_socket {
public:
    wakeup_socket() = default;
    ~wakeup_socket() { close(); }
    wakeup_socket(const wakeup_socket &) = delete;
    wakeup_socket &operator=(const wakeup_socket &) = delete;

    // Binds the socket of local process `me` under `prefix`; "" or why not.
    std::string open(const std::string &prefix, uint32_t me);
    void close();
    int fd() const { return fd_; }
    // Wakes local process `peer` (its socket under the same prefix). A full
    // socket buffer means it has a wake-up pending already: not an error.
    void wake(uint32_t peer) const;
    // Reads every pending wake-up, so the descriptor polls idle again.
    void drain() const;

private:
    int fd_ = -1;
    std::string prefix_;
};

}  // namespace ccs::shm
