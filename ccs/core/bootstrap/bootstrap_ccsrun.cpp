// Bootstrap under tools/ccsrun: rank, size and job id come from the
// environment; allgather goes through ccsrun's Unix socket.
#include "core/bootstrap/bootstrap.hpp"
#include "core/bootstrap/ccsrun_protocol.hpp"
#include "util/error.hpp"
#include "util/params.hpp"

#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace ccs {
namespace {

namespace proto = ccsrun_protocol;

bool parse_int(const std::string &s, int &out) {
    if (s.empty()) return false;
    char *end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > (1 << 24)) return false;
    out = static_cast<int>(v);
    return true;
}

class ccsrun_bootstrap final : public bootstrap {
public:
    ~ccsrun_bootstrap() override {
        if (fd_ >= 0) ::close(fd_);
    }
    const char *kind() const override { return "ccsrun"; }

    ccs_status_t start() {
        const std::string path = param_get("CCS_BOOTSTRAP_SOCKET", "", "");
        if (!parse_int(param_get("CCS_RANK", "", ""), rank_) ||
            !parse_int(param_get("CCS_SIZE", "", ""), size_) || size_ < 1 ||
            rank_ >= size_)
            return fail(CCS_ERR_BOOTSTRAP,
                        "ccsrun bootstrap: CCS_RANK/CCS_SIZE missing or invalid");
        job_id_ = param_get("CCS_JOB_ID", "", "");
        if (job_id_.empty())
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: CCS_JOB_ID missing");
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path.size() >= sizeof(addr.sun_path))
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: socket path too long: " + path);
        std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: cannot connect to " + path +
                                               ": " + std::strerror(errno));
        const proto::frame hello{proto::hello, static_cast<uint32_t>(rank_), 0};
        if (!proto::write_full(fd_, &hello, sizeof hello))
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: hello failed");
        return CCS_OK;
    }

    void abort_job(int exit_code, const std::string &reason) override {
        const int32_t code = exit_code;
        const proto::frame head{proto::abort, static_cast<uint32_t>(rank_), sizeof code + reason.size()};
        if (proto::write_full(fd_, &head, sizeof head) && proto::write_full(fd_, &code, sizeof code))
            proto::write_full(fd_, reason.data(), reason.size());
    }

    ccs_status_t allgather(const blob &mine, std::vector<blob> &all) override {
        const proto::frame req{proto::allgather, static_cast<uint32_t>(rank_), mine.size()};
        if (!proto::write_full(fd_, &req, sizeof req) ||
            !proto::write_full(fd_, mine.data(), mine.size()))
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: lost the launcher (send)");
        proto::frame resp{};
        if (!proto::read_full(fd_, &resp, sizeof resp))
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: lost the launcher (receive)");
        if (resp.op == proto::rank_gone && resp.length <= 4096) {
            std::string how(resp.length, '\0');
            if (!proto::read_full(fd_, how.data(), how.size())) how = "ended";
            return fail(CCS_ERR_BOOTSTRAP, "bootstrap: rank " + std::to_string(resp.rank) + " " + how +
                                               " before the start-up exchange completed");
        }
        if (resp.op != proto::allgather || resp.rank != static_cast<uint32_t>(size_))
            return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: malformed reply from the launcher");
        all.assign(static_cast<size_t>(size_), blob{});
        for (auto &b : all) {
            uint64_t len = 0;
            if (!proto::read_full(fd_, &len, sizeof len) || len > proto::max_blob)
                return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: malformed reply");
            b.resize(len);
            if (!proto::read_full(fd_, b.data(), len))
                return fail(CCS_ERR_BOOTSTRAP, "ccsrun bootstrap: truncated reply");
        }
        return CCS_OK;
    }

private:
    int fd_ = -1;
};

}  // namespace

std::unique_ptr<bootstrap> bootstrap_create_ccsrun(ccs_status_t &status) { return bootstrap_start<ccsrun_bootstrap>(status); }

}  // namespace ccs
