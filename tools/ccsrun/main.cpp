// ccsrun -n N [--prefix] [--timeout SEC] [--keep-going] [--] program [args...]
//
// Starts N processes of a CCS job on this host, serves their bootstrap,
// returns the first non-zero exit status, and when one process fails stops
// the others and removes the job's shared memory.
#include "job.hpp"
#include "rendezvous.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/random.h>
#include <unistd.h>

namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal = sig; }

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: ccsrun -n N [--prefix] [--timeout SEC] [--keep-going] [--] program [args...]\n"
                 "  -n N           number of processes (default 1)\n"
                 "  --prefix       prefix every output line with [rank]\n"
                 "  --timeout SEC  stop the job (exit 124) if it runs longer\n"
                 "  --keep-going   when a process fails, let the others run on (for fault tests);\n"
                 "                 the exit status is still the first failure's\n");
}

bool parse(int argc, char **argv, ccsrun::options &o) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if ((a == "-n" || a == "-np") && i + 1 < argc) {
            char *end = nullptr;
            const long n = std::strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 4096) return false;
            o.nprocs = static_cast<int>(n);
        } else if (a == "--keep-going") {
            o.keep_going = true;
        } else if (a == "--prefix" || a == "--tag-output") {
            o.prefix = true;
        } else if (a == "--timeout" && i + 1 < argc) {
            char *end = nullptr;
            o.timeout_seconds = std::strtod(argv[++i], &end);
            if (*end || o.timeout_seconds <= 0) return false;
        } else if (a == "-h" || a == "--help") {
            usage(stdout);
            std::exit(0);
        } else if (!a.empty() && a[0] == '-') {
            return false;
        } else {
            break;
        }
    }
    for (; i < argc; ++i) o.command.emplace_back(argv[i]);
    return !o.command.empty();
}

std::string new_job_id() {
    uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) != sizeof r) r = static_cast<uint64_t>(::getpid()) * 0x9e3779b97f4a7c15ull;
    char buf[32];
    std::snprintf(buf, sizeof buf, "r%016llx", static_cast<unsigned long long>(r));
    return buf;
}

}  // namespace

int main(int argc, char **argv) {
    ccsrun::options opts;
    if (!parse(argc, argv, opts)) {
        usage(stderr);
        return 2;
    }
    ccsrun::rendezvous rv(opts.nprocs);
    if (const std::string err = rv.listen(); !err.empty()) {
        std::fprintf(stderr, "ccsrun: %s\n", err.c_str());
        return 1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    const std::string job_id = new_job_id();
    ccsrun::job job(opts, job_id, rv.socket_path());
    job.on_rank_ended = [&rv](int rank, const std::string &how) { rv.rank_ended(rank, how); };
    rv.on_abort = [&job](int rank, int exit_code, const std::string &reason) {
        job.abort("rank " + std::to_string(rank) + " called ccs_abort(" + std::to_string(exit_code) + ")" +
                      (reason.empty() ? "" : ": " + reason) + "; stopping the job",
                  exit_code);
    };
    if (const std::string err = job.spawn(); !err.empty()) {
        job.abort(err, 1);
    }
    std::vector<pollfd> fds;
    while (!job.finished()) {
        fds.clear();
        rv.watch(fds);
        job.watch(fds);
        ::poll(fds.data(), fds.size(), 20);
        rv.handle(fds);
        job.handle(fds);
        job.reap();
        job.check_timeout();
        if (const int sig = g_signal.exchange(0)) job.abort("signal " + std::to_string(sig) + "; stopping the job", 128 + sig);
    }
    // Drain output still in the pipes.
    for (int i = 0; i < 50; ++i) {
        fds.clear();
        job.watch(fds);
        if (fds.empty() || ::poll(fds.data(), fds.size(), 10) <= 0) break;
        job.handle(fds);
    }
    job.clean_shared_memory();
    return job.exit_code();
}
