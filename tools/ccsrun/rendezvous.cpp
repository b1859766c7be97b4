#include "rendezvous.hpp"

#include "core/bootstrap/ccsrun_protocol.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace ccsrun {

namespace proto = ccs::ccsrun_protocol;

rendezvous::rendezvous(int size) : size_(size), gone_(static_cast<size_t>(size)) {}

rendezvous::~rendezvous() {
    for (auto &c : clients_)
        if (c.fd >= 0) ::close(c.fd);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
    if (!dir_.empty()) ::rmdir(dir_.c_str());
}

std::string rendezvous::listen() {
    const char *tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/ccsrun-XXXXXX";
    if (!::mkdtemp(templ.data())) return std::string("mkdtemp: ") + std::strerror(errno);
    dir_ = templ;
    path_ = dir_ + "/bootstrap.sock";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.size() >= sizeof addr.sun_path) return "socket path too long: " + path_;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, size_ + 16) != 0)
        return std::string("socket ") + path_ + ": " + std::strerror(errno);
    return "";
}

void rendezvous::watch(std::vector<pollfd> &fds) const {
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const auto &c : clients_)
        if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
}

void rendezvous::handle(const std::vector<pollfd> &fds) {
    for (const auto &p : fds) {
        if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (p.fd == listen_fd_) {
            accept_one();
            continue;
        }
        for (auto &c : clients_)
            if (c.fd == p.fd) read_from(c);
    }
}

void rendezvous::accept_one() {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) clients_.push_back(client{fd});
}

void rendezvous::read_from(client &c) {
    proto::frame f{};
    if (!proto::read_full(c.fd, &f, sizeof f)) {
        ::close(c.fd);  // the process ended or finalized
        c.fd = -1;
        if (c.rank >= 0) rank_ended(c.rank, "closed its connection to ccsrun");
        return;
    }
    const bool valid_rank = f.rank < static_cast<uint32_t>(size_);
    if (f.op == proto::hello && valid_rank) {
        c.rank = static_cast<int>(f.rank);
        return;
    }
    if (f.op == proto::abort && valid_rank && f.length >= sizeof(int32_t) && f.length <= sizeof(int32_t) + 4096) {
        int32_t code = 0;
        std::string reason(f.length - sizeof code, '\0');
        if (proto::read_full(c.fd, &code, sizeof code) && proto::read_full(c.fd, reason.data(), reason.size())) {
            if (on_abort) on_abort(static_cast<int>(f.rank), code, reason);
            return;
        }
    }
    if (f.op == proto::allgather && valid_rank && static_cast<int>(f.rank) == c.rank && f.length <= proto::max_blob &&
        !c.contributed) {
        c.blob.resize(f.length);
        if (proto::read_full(c.fd, c.blob.data(), f.length)) {
            c.contributed = true;
            complete_round();
            return;
        }
    }
    std::fprintf(stderr, "ccsrun: protocol error from a process (rank %d); dropping it\n", c.rank);
    ::close(c.fd);
    c.fd = -1;
}

void rendezvous::rank_ended(int rank, const std::string &how) {
    if (rank < 0 || rank >= size_ || !gone_[static_cast<size_t>(rank)].empty()) return;
    gone_[static_cast<size_t>(rank)] = how;
    gone_order_.push_back(rank);
    fail_waiting(gone_order_.front());
}

void rendezvous::fail_waiting(int gone) {
    const std::string &how = gone_[static_cast<size_t>(gone)];
    const proto::frame head{proto::rank_gone, static_cast<uint32_t>(gone), how.size()};
    for (auto &c : clients_) {
        if (c.fd < 0 || !c.contributed) continue;
        c.contributed = false;
        c.blob.clear();
        if (!proto::write_full(c.fd, &head, sizeof head) || !proto::write_full(c.fd, how.data(), how.size())) {
            ::close(c.fd);
            c.fd = -1;
        }
    }
}

void rendezvous::complete_round() {
    // A rank that ended (and had not contributed) never will; the first
    // to end is the one to name (the others may have ended since because
    // of it).
    for (int r : gone_order_) {
        bool contributed = false;
        for (const auto &c : clients_) contributed |= c.fd >= 0 && c.rank == r && c.contributed;
        if (!contributed) return fail_waiting(r);
    }
    std::vector<const client *> by_rank(static_cast<size_t>(size_), nullptr);
    for (const auto &c : clients_)
        if (c.fd >= 0 && c.contributed) by_rank[static_cast<size_t>(c.rank)] = &c;
    for (const client *c : by_rank)
        if (!c) return;  // not everyone yet
    std::vector<uint8_t> reply;
    uint64_t total = 0;
    for (const client *c : by_rank) total += sizeof(uint64_t) + c->blob.size();
    const proto::frame head{proto::allgather, static_cast<uint32_t>(size_), total};
    reply.insert(reply.end(), reinterpret_cast<const uint8_t *>(&head), reinterpret_cast<const uint8_t *>(&head + 1));
    for (const client *c : by_rank) {
        const uint64_t n = c->blob.size();
        reply.insert(reply.end(), reinterpret_cast<const uint8_t *>(&n), reinterpret_cast<const uint8_t *>(&n + 1));
        reply.insert(reply.end(), c->blob.begin(), c->blob.end());
    }
    for (auto &c : clients_) {
        if (c.fd < 0 || !c.contributed) continue;
        c.contributed = false;
        c.blob.clear();
        proto::write_full(c.fd, reply.data(), reply.size());
    }
}

}  // namespace ccsrun
