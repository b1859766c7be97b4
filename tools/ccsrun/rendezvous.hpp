// ccsrun's side of the bootstrap: a Unix socket server that answers the
// processes' allgather requests (protocol in core/bootstrap/ccsrun_protocol.hpp).
#pragma once

#include <cstdint>
#include <functional>
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
    // Process `rank` ended (`how`: "exited with status 0", ...): the
    // processes waiting in an exchange, and any that start one later, are
    // told, since it can never complete.
    void rank_ended(int rank, const std::string &how);
    // A process called ccs_abort: the job is to end with `exit_code`.
    std::function<void(int rank, int exit_code, const std::string &reason)> on_abort;

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
    // Tells every waiting process that rank `gone` ended.
    void fail_waiting(int gone);

    int size_;
    int listen_fd_ = -1;
    std::string dir_;
    std::string path_;
    std::vector<client> clients_;
    std::vector<std::string> gone_;  // per rank: how it ended, "" while it runs
    std::vector<int> gone_order_;    // the ranks that ended, first first
};

}  // namespace ccsrun
