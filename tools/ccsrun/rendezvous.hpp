// ccsrun's side of the bootstrap: a Unix socket server that answers the
// processes' allgather requests (protocol in core/bootstrap/ccsrun_protocol.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <poll.h>

namespace ccsrun {

class rendezvous {
public:
    explicit rendezvous(int size);
    ~rendezvous();
    // Creates a private directory and the listening socket; "" or reason.
    std::string listen();
    const std::string &socket_path() const { return path_; }

    // Adds the descriptors to watch; handle() processes what poll() found.
    void watch(std::vector<pollfd> &fds) const;
    void handle(const std::vector<pollfd> &fds);

private:
    struct client {
        int fd = -1;
        int rank = -1;                 // known after hello
        bool contributed = false;
        std::vector<uint8_t> blob;
    };
    void accept_one();
    void read_from(client &c);
    void complete_round();

    int size_;
    int listen_fd_ = -1;
    std::string dir_;
    std::string path_;
    std::vector<client> clients_;
};

}  // namespace ccsrun
