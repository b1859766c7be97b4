// Bootstrap through a PMIx server (Open MPI's mpirun, PRRTE, Slurm):
// allgather = PMIx_Put + PMIx_Commit + PMIx_Fence(collect) + PMIx_Get.
#include "core/bootstrap/bootstrap.hpp"
#include "util/error.hpp"

#include <pmix.h>

#include <cstring>

namespace ccs {
namespace {

class pmix_bootstrap final : public bootstrap {
public:
    ~pmix_bootstrap() override {
        if (initialized_) PMIx_Finalize(nullptr, 0);
    }
    const char *kind() const override { return "pmix"; }

    ccs_status_t start() {
        pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
        if (rc != PMIX_SUCCESS)
            return fail(CCS_ERR_BOOTSTRAP,
                        std::string("PMIx_Init failed: ") + PMIx_Error_string(rc));
        initialized_ = true;
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me_.nspace, PMIX_RANK_WILDCARD);
        pmix_value_t *val = nullptr;
        rc = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &val);
        if (rc != PMIX_SUCCESS || val == nullptr)
            return fail(CCS_ERR_BOOTSTRAP,
                        std::string("PMIx_Get(PMIX_JOB_SIZE) failed: ") + PMIx_Error_string(rc));
        uint32_t size = 0;
        if (val->type == PMIX_UINT32) size = val->data.uint32;
        else if (val->type == PMIX_INT) size = static_cast<uint32_t>(val->data.integer);
        PMIX_VALUE_RELEASE(val);
        if (size == 0 || me_.rank >= size)
            return fail(CCS_ERR_BOOTSTRAP, "PMIx reported an invalid job size or rank");
        rank_ = static_cast<int>(me_.rank);
        size_ = static_cast<int>(size);
        job_id_ = me_.nspace;
        return bootstrap_timeout("PMIx", timeout_);
    }

    ccs_status_t allgather(const blob &mine, std::vector<blob> &all) override {
        const std::string key = "ccs.ag." + std::to_string(round_++);
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        // PMIx copies the value; it does not keep this pointer.
        v.data.bo.bytes = const_cast<char *>(reinterpret_cast<const char *>(mine.data()));
        v.data.bo.size = mine.size();
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
        if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS)
            return fail(CCS_ERR_BOOTSTRAP, std::string("PMIx_Put/Commit: ") + PMIx_Error_string(rc));
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me_.nspace, PMIX_RANK_WILDCARD);
        pmix_info_t info[2];
        PMIX_INFO_CONSTRUCT(&info[0]);
        PMIX_INFO_CONSTRUCT(&info[1]);
        bool collect = true;
        PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        // A process that died before joining must not hold the rest forever.
        int seconds = static_cast<int>(timeout_);
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
        rc = PMIx_Fence(&job, 1, info, 2);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        if (rc == PMIX_ERR_TIMEOUT)
            return fail(CCS_ERR_BOOTSTRAP, "PMIx_Fence: not every process joined the start-up exchange within " +
                                               std::to_string(timeout_) + " s (CCS_BOOTSTRAP_TIMEOUT): " +
                                               missing_ranks(key));
        if (rc != PMIX_SUCCESS)
            return fail(CCS_ERR_BOOTSTRAP, std::string("PMIx_Fence: ") + PMIx_Error_string(rc));
        all.assign(static_cast<size_t>(size_), blob{});
        for (int r = 0; r < size_; ++r) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(r));
            pmix_value_t *val = nullptr;
            rc = PMIx_Get(&p, key.c_str(), nullptr, 0, &val);
            if (rc != PMIX_SUCCESS || val == nullptr || val->type != PMIX_BYTE_OBJECT)
                return fail(CCS_ERR_BOOTSTRAP, "PMIx_Get(" + key + ") from rank " +
                                                   std::to_string(r) + ": " + PMIx_Error_string(rc));
            auto bytes = reinterpret_cast<const uint8_t *>(val->data.bo.bytes);
            all[static_cast<size_t>(r)].assign(bytes, bytes + val->data.bo.size);
            PMIX_VALUE_RELEASE(val);
        }
        return CCS_OK;
    }

    void abort_job(int exit_code, const std::string &reason) override {
        if (initialized_) PMIx_Abort(exit_code, reason.c_str(), nullptr, 0);
    }

private:
    // The first few ranks whose contribution to `key` the servers cannot
    // produce within a second each: those that never joined.
    std::string missing_ranks(const std::string &key) {
        constexpr int most = 3;
        std::string missing;
        int found = 0;
        pmix_info_t info;
        PMIX_INFO_CONSTRUCT(&info);
        int seconds = 1;
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &seconds, PMIX_INT);
        for (int r = 0; r < size_ && found < most; ++r) {
            if (r == rank_) continue;
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(r));
            pmix_value_t *val = nullptr;
            if (PMIx_Get(&p, key.c_str(), &info, 1, &val) == PMIX_SUCCESS && val) {
                PMIX_VALUE_RELEASE(val);
                continue;
            }
            missing += (missing.empty() ? "rank " : ", ") + std::to_string(r);
            ++found;
        }
        PMIX_INFO_DESTRUCT(&info);
        if (missing.empty()) return "which process is missing, the PMIx servers do not say";
        return missing + (found == most ? " and perhaps more" : "") + " did not join";
    }

    pmix_proc_t me_{};
    size_t timeout_ = 0;
    bool initialized_ = false;
    unsigned round_ = 0;
};

}  // namespace

std::unique_ptr<bootstrap> bootstrap_create_pmix(ccs_status_t &status) { return bootstrap_start<pmix_bootstrap>(status); }

}  // namespace ccs
