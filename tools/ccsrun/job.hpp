// The processes ccsrun starts: spawning with the bootstrap environment,
// optional output prefixing, reaping, and the rule that when one process
// fails the others are stopped and the job's shared memory is removed.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/types.h>

namespace ccsrun {

struct options {
    int nprocs = 1;
    bool prefix = false;         // "[rank] " before every output line
    double timeout_seconds = 0;  // 0: none
    bool keep_going = false;     // a failed process does not stop the others
    std::vector<std::string> command;
};

class job {
public:
    job(const options &opts, std::string job_id, std::string socket_path);
    ~job();

    // "" or the reason the job could not start.
    std::string spawn();
    void watch(std::vector<pollfd> &fds) const;
    void handle(const std::vector<pollfd> &fds);
    // Reaps exited processes; starts stopping the rest after a failure.
    // Tells `on_rank_ended` of each (rank, "exited with status 3", ...).
    void reap();
    std::function<void(int, const std::string &)> on_rank_ended;
    // Stops every process (signal, then SIGKILL after a grace period).
    void abort(const std::string &why, int exit_code);
    bool finished() const { return running_ == 0; }
    int exit_code() const { return exit_code_; }
    void check_timeout();
    // Removes /dev/shm entries of this job (after a crash nobody unlinked them).
    void clean_shared_memory() const;

private:
    struct process {
        pid_t pid = -1;
        int out_fd = -1;  // read ends when prefixing
        int err_fd = -1;
        std::string out_partial, err_partial;
        bool running = false;
    };
    void forward(process &p, int &fd, std::string &partial, int rank, FILE *to);

    options opts_;
    std::string job_id_;
    std::string socket_path_;
    std::vector<process> procs_;
    int running_ = 0;
    int exit_code_ = 0;
    bool stopping_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point kill_at_;
};

}  // namespace ccsrun
