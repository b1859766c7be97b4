// Bootstrap: how a process learns its rank, the job size and a job id, and
// exchanges small blobs with every other process before any transport is up.
// Chosen from the environment: ccsrun, PMIx (Open MPI mpirun, PRRTE, Slurm),
// PMI-1 over PMI_FD (MPICH hydra), or a singleton job of one process.
#pragma once

#include <ccs/ccs.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ccs {

using blob = std::vector<uint8_t>;

class bootstrap {
public:
    virtual ~bootstrap() = default;

    virtual const char *kind() const = 0;
    int rank() const { return rank_; }
    int size() const { return size_; }
    const std::string &job_id() const { return job_id_; }

    // Collective: every process contributes `mine`, gets every rank's blob
    // in rank order.
    virtual ccs_status_t allgather(const blob &mine, std::vector<blob> &all) = 0;

    // Asks the launcher to end the whole job with `exit_code` (ccs_abort);
    // the caller exits after it. A job of one process has nobody to tell.
    virtual void abort_job(int exit_code, const std::string &reason) {
        (void)exit_code;
        (void)reason;
    }

protected:
    int rank_ = 0;
    int size_ = 1;
    std::string job_id_;
};

// Picks the bootstrap the environment asks for. On failure returns null and
// records the reason with fail().
std::unique_ptr<bootstrap> bootstrap_create(ccs_status_t &status);

// Which launcher the environment points at, for ccs_info ("ccsrun", "pmix",
// "pmi1", "singleton").
const char *bootstrap_detect();

std::unique_ptr<bootstrap> bootstrap_create_singleton(ccs_status_t &status);
std::unique_ptr<bootstrap> bootstrap_create_ccsrun(ccs_status_t &status);
std::unique_ptr<bootstrap> bootstrap_create_pmix(ccs_status_t &status);
std::unique_ptr<bootstrap> bootstrap_create_pmi1(ccs_status_t &status);

// How long one exchange may wait for the other processes, in seconds
// (CCS_BOOTSTRAP_TIMEOUT): a process that died before joining must not
// leave the rest waiting forever. CCS_OK, or the error naming the value.
ccs_status_t bootstrap_timeout(const char *kind, size_t &seconds);

// Constructs Impl and runs its start(); null (status set) if that fails.
template <typename Impl>
std::unique_ptr<bootstrap> bootstrap_start(ccs_status_t &status) {
    auto b = std::make_unique<Impl>();
    status = b->start();
    if (status != CCS_OK) return nullptr;
    return b;
}

}  // namespace ccs
