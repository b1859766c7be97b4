#include "core/bootstrap/bootstrap.hpp"

#include "util/error.hpp"
#include "util/params.hpp"

#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace ccs {

ccs_status_t bootstrap_timeout(const char *kind, size_t &seconds) {
    std::string error;
    if (!param_size("CCS_BOOTSTRAP_TIMEOUT", "seconds", 1u << 30, seconds, error) || seconds == 0)
        return fail(CCS_ERR_INVALID_ARG, std::string(kind) + " bootstrap: " +
                                             (error.empty() ? "CCS_BOOTSTRAP_TIMEOUT must be at least 1" : error));
    return CCS_OK;
}

const char *bootstrap_detect() {
    if (std::getenv("CCS_BOOTSTRAP_SOCKET")) return "ccsrun";
    if (std::getenv("PMIX_NAMESPACE") && std::getenv("PMIX_RANK")) return "pmix";
    if (std::getenv("PMI_FD")) return "pmi1";
    return "singleton";
}

std::unique_ptr<bootstrap> bootstrap_create(ccs_status_t &status) {
    const std::string kind = bootstrap_detect();
    if (kind == "ccsrun") return bootstrap_create_ccsrun(status);
    if (kind == "pmix") return bootstrap_create_pmix(status);
    if (kind == "pmi1") return bootstrap_create_pmi1(status);
    return bootstrap_create_singleton(status);
}

namespace {
class singleton_bootstrap final : public bootstrap {
public:
    singleton_bootstrap() {
        rank_ = 0;
        size_ = 1;
        // Unique enough among concurrent singletons on one host.
        // snprintf, not string concatenation: GCC 12 at -O3 warns falsely
        // (-Wrestrict, GCC bug 105329) on the string forms.
        char id[32];
        std::snprintf(id, sizeof id, "s%ld", static_cast<long>(::getpid()));
        job_id_ = id;
    }
    const char *kind() const override { return "singleton"; }
    ccs_status_t allgather(const blob &mine, std::vector<blob> &all) override {
        all.assign(1, mine);
        return CCS_OK;
    }
};
}  // namespace

std::unique_ptr<bootstrap> bootstrap_create_singleton(ccs_status_t &status) {
    status = CCS_OK;
    return std::make_unique<singleton_bootstrap>();
}

}  // namespace ccs
