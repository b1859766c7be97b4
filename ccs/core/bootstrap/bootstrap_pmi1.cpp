// Bootstrap through the PMI-1 wire protocol on the socket in PMI_FD (MPICH's
// hydra mpiexec). Lines of "cmd=... key=value" text; values are limited in
// length and character set, so blobs travel hex-encoded in chunks.
#include "core/bootstrap/bootstrap.hpp"
#include "core/bootstrap/ccsrun_protocol.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include <dlfcn.h>
#include <poll.h>
#include <unistd.h>

namespace ccs {
namespace {

using ccsrun_protocol::write_full;

class pmi1_bootstrap final : public bootstrap {
public:
    ~pmi1_bootstrap() override {
        if (initialized_ && !mpi_shares_connection()) {
            std::map<std::string, std::string> r;
            if (send("cmd=finalize\n")) receive("finalize_ack", r);
        }
    }
    const char *kind() const override { return "pmi1"; }

    // MPICH's own PMI-1 client uses the same socket (PMI_FD) in a process
    // that started MPI, as a runtime over CCS inside an MPI job does: the
    // connection is then MPI's to finish. Our finalize would have the
    // process manager close it under MPI, whose MPI_Finalize then dies
    // writing to it.
    static bool mpi_shares_connection() {
        using initialized_fn = int (*)(int *);
        auto mpi_initialized = reinterpret_cast<initialized_fn>(dlsym(RTLD_DEFAULT, "MPI_Initialized"));
        int up = 0;
        return mpi_initialized && mpi_initialized(&up) == 0 && up;
    }

    ccs_status_t start() {
        const char *fd = std::getenv("PMI_FD");
        const char *rank = std::getenv("PMI_RANK");
        const char *size = std::getenv("PMI_SIZE");
        if (!fd || !rank || !size)
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: PMI_FD, PMI_RANK or PMI_SIZE missing");
        fd_ = std::atoi(fd);
        rank_ = std::atoi(rank);
        size_ = std::atoi(size);
        if (fd_ < 0 || size_ < 1 || rank_ < 0 || rank_ >= size_)
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: invalid PMI_FD, PMI_RANK or PMI_SIZE");
        std::map<std::string, std::string> r;
        if (!send("cmd=init pmi_version=1 pmi_subversion=1\n") ||
            !receive("response_to_init", r) || r["rc"] != "0")
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: init refused by the process manager");
        if (!send("cmd=get_maxes\n") || !receive("maxes", r))
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: get_maxes failed");
        const long vallen = std::atol(r["vallen_max"].c_str());
        // Two hex digits per byte; keep a margin for the terminator.
        chunk_bytes_ = vallen > 64 ? static_cast<size_t>((vallen - 8) / 2) : 28;
        if (!send("cmd=get_my_kvsname\n") || !receive("my_kvsname", r) || r["kvsname"].empty())
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: get_my_kvsname failed");
        kvsname_ = r["kvsname"];
        job_id_ = kvsname_;
        initialized_ = true;
        return bootstrap_timeout("PMI-1", timeout_);
    }

    ccs_status_t allgather(const blob &mine, std::vector<blob> &all) override {
        const std::string base = "ccs" + std::to_string(round_++) + "-";
        const size_t chunks = (mine.size() + chunk_bytes_ - 1) / chunk_bytes_;
        std::map<std::string, std::string> r;
        if (!put(base + std::to_string(rank_) + "-n", std::to_string(mine.size())))
            return fail(CCS_ERR_BOOTSTRAP, "PMI-1: put failed");
        for (size_t c = 0; c < chunks; ++c) {
            const size_t off = c * chunk_bytes_;
            const size_t n = std::min(chunk_bytes_, mine.size() - off);
            if (!put(base + std::to_string(rank_) + "-" + std::to_string(c),
                     to_hex(mine.data() + off, n)))
                return fail(CCS_ERR_BOOTSTRAP, "PMI-1: put failed");
        }
        if (!send("cmd=barrier_in\n")) return fail(CCS_ERR_BOOTSTRAP, "PMI-1: barrier failed");
        if (!receive("barrier_out", r, static_cast<int>(timeout_)))
            return fail(CCS_ERR_BOOTSTRAP, timed_out_ ? "PMI-1: not every process joined the start-up exchange within " +
                                                            std::to_string(timeout_) +
                                                            " s (CCS_BOOTSTRAP_TIMEOUT); which one is missing, the "
                                                            "process manager does not say"
                                                      : std::string("PMI-1: barrier failed"));
        all.assign(static_cast<size_t>(size_), blob{});
        for (int p = 0; p < size_; ++p) {
            std::string v;
            if (!get(base + std::to_string(p) + "-n", v))
                return fail(CCS_ERR_BOOTSTRAP, "PMI-1: get failed for rank " + std::to_string(p));
            const size_t len = std::strtoull(v.c_str(), nullptr, 10);
            blob &b = all[static_cast<size_t>(p)];
            for (size_t c = 0; b.size() < len; ++c) {
                if (!get(base + std::to_string(p) + "-" + std::to_string(c), v) || !from_hex(v, b))
                    return fail(CCS_ERR_BOOTSTRAP, "PMI-1: bad value from rank " + std::to_string(p));
            }
            if (b.size() != len)
                return fail(CCS_ERR_BOOTSTRAP, "PMI-1: length mismatch from rank " + std::to_string(p));
        }
        return CCS_OK;
    }

    void abort_job(int exit_code, const std::string &) override {
        send("cmd=abort exitcode=" + std::to_string(exit_code) + "\n");
    }

private:
    bool put(const std::string &key, const std::string &value) {
        std::map<std::string, std::string> r;
        return send("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value + "\n") &&
               receive("put_result", r) && r["rc"] == "0";
    }
    bool get(const std::string &key, std::string &value) {
        std::map<std::string, std::string> r;
        if (!send("cmd=get kvsname=" + kvsname_ + " key=" + key + "\n") ||
            !receive("get_result", r) || r["rc"] != "0")
            return false;
        value = r["value"];
        return true;
    }
    bool send(const std::string &line) { return write_full(fd_, line.data(), line.size()); }

    // Reads one reply line and splits it into key=value pairs; waits at
    // most `seconds` (timed_out_ then says so), or without limit for -1.
    bool receive(const std::string &cmd, std::map<std::string, std::string> &out, int seconds = -1) {
        std::string line;
        char c = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds < 0 ? 0 : seconds);
        for (;;) {
            if (seconds >= 0) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now());
                pollfd p{fd_, POLLIN, 0};
                const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
                if (ready < 0 && errno == EINTR) continue;
                if (ready == 0) {
                    timed_out_ = true;
                    return false;
                }
            }
            const ssize_t n = ::read(fd_, &c, 1);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            if (c == '\n') break;
            line.push_back(c);
        }
        out.clear();
        size_t pos = 0;
        while (pos < line.size()) {
            const size_t end = std::min(line.find(' ', pos), line.size());
            const std::string tok = line.substr(pos, end - pos);
            const size_t eq = tok.find('=');
            if (eq != std::string::npos) out[tok.substr(0, eq)] = tok.substr(eq + 1);
            pos = end + 1;
        }
        return out["cmd"] == cmd;
    }

    static std::string to_hex(const uint8_t *p, size_t n) {
        static const char digits[] = "0123456789abcdef";
        std::string s;
        s.reserve(2 * n + 1);
        s.push_back('x');  // an empty value is not allowed by every server
        for (size_t i = 0; i < n; ++i) {
            s.push_back(digits[p[i] >> 4]);
            s.push_back(digits[p[i] & 15]);
        }
        return s;
    }
    static bool from_hex(const std::string &s, blob &out) {
        if (s.empty() || s[0] != 'x' || (s.size() - 1) % 2 != 0) return false;
        auto nib = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            return -1;
        };
        for (size_t i = 1; i < s.size(); i += 2) {
            const int hi = nib(s[i]), lo = nib(s[i + 1]);
            if (hi < 0 || lo < 0) return false;
            out.push_back(static_cast<uint8_t>(hi << 4 | lo));
        }
        return true;
    }

    int fd_ = -1;
    bool initialized_ = false;
    size_t chunk_bytes_ = 0;
    size_t timeout_ = 0;       // CCS_BOOTSTRAP_TIMEOUT, for barriers
    bool timed_out_ = false;
    std::string kvsname_;
    unsigned round_ = 0;
};

}  // namespace

std::unique_ptr<bootstrap> bootstrap_create_pmi1(ccs_status_t &status) { return bootstrap_start<pmi1_bootstrap>(status); }

}  // namespace ccs
