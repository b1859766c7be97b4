// The shared segment of one node of one job: a header and one ring per
// ordered pair of processes on the node. The node's lowest rank creates it
// (mode 0600, O_EXCL); the others attach; it is unlinked as soon as every
// process has attached, so nothing stays in /dev/shm after the job.
#pragma once

#include "shm_ring.hpp"

#include <cstdint>
#include <string>

namespace ccs::shm {

constexpr uint64_t segment_magic = 0x43435353484d3031ull;  // "CCSSHM01"

struct segment_header {
    uint64_t magic;
    uint32_t local_count;
    uint32_t reserved;
    uint64_t ring_capacity;
    uint64_t ring_stride;  // bytes from one ring's control to the next
    uint64_t rings_offset;
    uint64_t pids_offset;   // int32 pid per local process, for liveness checks
};

class segment {
public:
    segment() = default;
    ~segment();
    segment(const segment &) = delete;
    segment &operator=(const segment &) = delete;

    static size_t bytes_needed(uint32_t local_count, size_t ring_capacity);
    // Each returns an empty string on success, else the reason.
    std::string create(const std::string &name, uint32_t local_count, size_t ring_capacity);
    std::string attach(const std::string &name, uint32_t local_count, size_t ring_capacity);
    // Removes the name; mappings stay valid. Idempotent.
    std::string unlink();

    ring_control *control(uint32_t from, uint32_t to) const;
    std::atomic_ref<int32_t> pid(uint32_t local) const;
    uint8_t *data(uint32_t from, uint32_t to) const;
    bool mapped() const { return base_ != nullptr; }
    const std::string &name() const { return name_; }

private:
    std::string map(int fd, size_t bytes);
    uint8_t *base_ = nullptr;
    size_t bytes_ = 0;
    std::string name_;
    bool owner_ = false;   // created it, so it unlinks it
    bool linked_ = false;  // the name still exists
};

// Segment name for a job and node: "/ccs-<job>-n<node>", job id reduced to
// characters every shm implementation accepts.
std::string segment_name(const std::string &job_id, uint32_t node);

}  // namespace ccs::shm
