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
        return CCS_OK;
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
        pmix_info_t info;
        PMIX_INFO_CONSTRUCT(&info);
        bool collect = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        rc = PMIx_Fence(&job, 1, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
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

private:
    pmix_proc_t me_{};
    bool initialized_ = false;
    unsigned round_ = 0;
};

}  // namespace

std::unique_ptr<bootstrap> bootstrap_create_pmix(ccs_status_t &status) { return bootstrap_start<pmix_bootstrap>(status); }

}  // namespace ccs
