#include "job.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ccsrun {

namespace {
constexpr auto grace = std::chrono::seconds(2);
}

job::job(const options &opts, std::string job_id, std::string socket_path)
    : opts_(opts), job_id_(std::move(job_id)), socket_path_(std::move(socket_path)),
      procs_(static_cast<size_t>(opts.nprocs)), start_(std::chrono::steady_clock::now()) {}

job::~job() {
    for (auto &p : procs_) {
        if (p.out_fd >= 0) ::close(p.out_fd);
        if (p.err_fd >= 0) ::close(p.err_fd);
    }
}

std::string job::spawn() {
    for (int rank = 0; rank < opts_.nprocs; ++rank) {
        int out[2] = {-1, -1}, err[2] = {-1, -1};
        if (opts_.prefix && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0))
            return std::string("pipe: ") + std::strerror(errno);
        const pid_t pid = ::fork();
        if (pid < 0) return std::string("fork: ") + std::strerror(errno);
        if (pid == 0) {
            if (opts_.prefix) {
                ::dup2(out[1], STDOUT_FILENO);
                ::dup2(err[1], STDERR_FILENO);
            }
            ::setenv("CCS_RANK", std::to_string(rank).c_str(), 1);
            ::setenv("CCS_SIZE", std::to_string(opts_.nprocs).c_str(), 1);
            ::setenv("CCS_JOB_ID", job_id_.c_str(), 1);
            ::setenv("CCS_BOOTSTRAP_SOCKET", socket_path_.c_str(), 1);
            std::vector<char *> argv;
            for (const auto &a : opts_.command) argv.push_back(const_cast<char *>(a.c_str()));
            argv.push_back(nullptr);
            ::execvp(argv[0], argv.data());
            std::fprintf(stderr, "ccsrun: cannot execute %s: %s\n", argv[0], std::strerror(errno));
            ::_exit(127);
        }
        process &p = procs_[static_cast<size_t>(rank)];
        p.pid = pid;
        p.running = true;
        ++running_;
        if (opts_.prefix) {
            ::close(out[1]);
            ::close(err[1]);
            p.out_fd = out[0];
            p.err_fd = err[0];
        }
    }
    return "";
}

void job::watch(std::vector<pollfd> &fds) const {
    for (const auto &p : procs_) {
        if (p.out_fd >= 0) fds.push_back({p.out_fd, POLLIN, 0});
        if (p.err_fd >= 0) fds.push_back({p.err_fd, POLLIN, 0});
    }
}

void job::forward(process &, int &fd, std::string &partial, int rank, FILE *to) {
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) {
        if (!partial.empty()) std::fprintf(to, "[%d] %s\n", rank, partial.c_str());
        partial.clear();
        ::close(fd);
        fd = -1;
        return;
    }
    partial.append(buf, static_cast<size_t>(n));
    size_t start = 0, nl;
    while ((nl = partial.find('\n', start)) != std::string::npos) {
        std::fprintf(to, "[%d] %.*s\n", rank, static_cast<int>(nl - start), partial.c_str() + start);
        start = nl + 1;
    }
    partial.erase(0, start);
    std::fflush(to);
}

void job::handle(const std::vector<pollfd> &fds) {
    for (const auto &f : fds) {
        if (!(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        for (size_t r = 0; r < procs_.size(); ++r) {
            process &p = procs_[r];
            if (f.fd == p.out_fd && p.out_fd >= 0) forward(p, p.out_fd, p.out_partial, static_cast<int>(r), stdout);
            else if (f.fd == p.err_fd && p.err_fd >= 0)
                forward(p, p.err_fd, p.err_partial, static_cast<int>(r), stderr);
        }
    }
}

void job::reap() {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t r = 0; r < procs_.size(); ++r) {
            process &p = procs_[r];
            if (p.pid != pid || !p.running) continue;
            p.running = false;
            --running_;
            int code = 0;
            if (WIFEXITED(status)) code = WEXITSTATUS(status);
            else if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
            if (on_rank_ended)
                on_rank_ended(static_cast<int>(r), WIFSIGNALED(status)
                                                       ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                                       : "exited with status " + std::to_string(code));
            if (code != 0 && !stopping_) {
                std::fprintf(stderr, "ccsrun: rank %zu (pid %d) %s %d%s\n", r, pid,
                             WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
                             WIFSIGNALED(status) ? WTERMSIG(status) : code,
                             opts_.keep_going ? "" : "; stopping the job");
                if (!opts_.keep_going) abort("", code);
                else if (exit_code_ == 0) exit_code_ = code;
            }
        }
    }
    if (stopping_ && running_ > 0 && std::chrono::steady_clock::now() >= kill_at_) {
        for (auto &p : procs_)
            if (p.running) ::kill(p.pid, SIGKILL);
        kill_at_ = std::chrono::steady_clock::now() + grace;
    }
}

void job::abort(const std::string &why, int exit_code) {
    if (!why.empty()) std::fprintf(stderr, "ccsrun: %s\n", why.c_str());
    if (!stopping_) exit_code_ = exit_code;
    stopping_ = true;
    for (auto &p : procs_)
        if (p.running) ::kill(p.pid, SIGTERM);
    kill_at_ = std::chrono::steady_clock::now() + grace;
}

void job::check_timeout() {
    if (opts_.timeout_seconds <= 0 || stopping_) return;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed.count() > opts_.timeout_seconds)
        abort("timeout after " + std::to_string(opts_.timeout_seconds) + " s; stopping the job", 124);
}

void job::clean_shared_memory() const {
    const std::string prefix = "ccs-" + job_id_ + "-";
    DIR *d = ::opendir("/dev/shm");
    if (!d) return;
    while (dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.compare(0, prefix.size(), prefix) == 0) ::unlink(("/dev/shm/" + name).c_str());
    }
    ::closedir(d);
}

}  // namespace ccsrun
