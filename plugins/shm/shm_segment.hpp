// The shared segment of one node of one job: a header, each process's pid
// and doorbell, and room for one ring per ordered pair of processes. The
// node's lowest rank creates it (mode 0600, O_EXCL); the others attach; it
// is unlinked as soon as every process has attached, so nothing stays in
// /dev/shm after the job.
//
// Only the header, pids and doorbells take memory from the start: O(number
// of processes). The ring area is a hole in the file until a sender
// reserves its ring to one receiver on first contact, so the node's memory
// grows with the pairs that talk, not with the square of its processes.
// Reserving (fallocate) rather than touching keeps a full /dev/shm an error
// of the send instead of a SIGBUS on first write.
#pragma once

#include "shm_doorbell.hpp"
#include "shm_ring.hpp"

#include <cstdint>
#include <string>

namespace ccs::shm {

constexpr uint64_t segment_magic = 0x43435353484d3032ull;  // "CCSSHM02"

struct segment_header {
    uint64_t magic;
    uint32_t local_count;
    uint32_t reserved;
    uint64_t ring_capacity;
    uint64_t ring_stride;  // bytes from one ring's control to the next
    uint64_t rings_offset;
    uint64_t pids_offset;       // int32 pid per local process, for liveness checks
    uint64_t doorbells_offset;  // one doorbell per local process
    uint64_t doorbell_stride;
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
    // Gives the ring from -> to its memory, zeroed (an empty ring), before
    // its first record; only the sender touches it before that.
    std::string reserve_ring(uint32_t from, uint32_t to);
    // Returns the ring's memory to the system; it reads as an unreserved
    // ring again. Only when neither end will touch it before a new reserve.
    std::string release_ring(uint32_t from, uint32_t to);
    // Bytes of the segment that hold memory now (what /dev/shm holds for it).
    size_t bytes_in_use() const;

    ring_control *control(uint32_t from, uint32_t to) const;
    doorbell bell(uint32_t local) const;
    std::atomic_ref<int32_t> pid(uint32_t local) const;
    uint8_t *data(uint32_t from, uint32_t to) const;
    bool mapped() const { return base_ != nullptr; }
    const std::string &name() const { return name_; }

private:
    std::string map(size_t bytes);
    size_t ring_offset(uint32_t from, uint32_t to) const;
    int fd_ = -1;  // kept open to reserve and release rings
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
