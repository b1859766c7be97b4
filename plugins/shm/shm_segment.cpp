#include "shm_segment.hpp"

#include <cerrno>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccs::shm {
namespace {

constexpr size_t page = 4096;
// A ring is a page for its control (the consumer's tail) and its data.
size_t ring_stride(size_t ring_capacity) { return page + ring_capacity; }
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
std::string os_error(const char *what, const std::string &name) {
    return std::string(what) + "(" + name + "): " + std::strerror(errno);
}

}  // namespace

std::string segment_name(const std::string &job_id, uint32_t node) {
    std::string clean;
    for (char c : job_id)
        clean.push_back((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
    if (clean.size() > 200) clean = clean.substr(clean.size() - 200);
    return "/ccs-" + clean + "-n" + std::to_string(node);
}

size_t pids_bytes(uint32_t local_count) { return round_up(sizeof(int32_t) * local_count, page); }
size_t doorbells_bytes(uint32_t local_count) { return round_up(local_count * doorbell_bytes(local_count), page); }
// Header, pids and doorbells: what every process needs from the start.
size_t fixed_bytes(uint32_t local_count) { return page + pids_bytes(local_count) + doorbells_bytes(local_count); }

size_t segment::bytes_needed(uint32_t local_count, size_t ring_capacity) {
    return fixed_bytes(local_count) + static_cast<size_t>(local_count) * local_count * ring_stride(ring_capacity);
}

std::string segment::map(size_t bytes) {
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return os_error("mmap", name_);
    base_ = static_cast<uint8_t *>(p);
    bytes_ = bytes;
    return "";
}

std::string segment::create(const std::string &name, uint32_t local_count, size_t ring_capacity) {
    name_ = name;
    if (local_count > doorbell_max_senders)
        return "a node of " + std::to_string(local_count) + " processes; shm serves up to " +
               std::to_string(doorbell_max_senders);
    const size_t bytes = bytes_needed(local_count, ring_capacity);
    fd_ = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd_ < 0) return os_error("shm_open", name);
    owner_ = linked_ = true;
    std::string err;
    // fchmod: the umask may only narrow 0600, but be explicit about it.
    if (::fchmod(fd_, S_IRUSR | S_IWUSR) != 0) err = os_error("fchmod", name);
    if (err.empty() && ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) err = os_error("ftruncate", name);
    // posix_fallocate reserves the pages now, so a full /dev/shm fails here
    // instead of as SIGBUS on first touch.
    if (err.empty()) {
        const int rc = ::posix_fallocate(fd_, 0, static_cast<off_t>(fixed_bytes(local_count)));
        if (rc != 0) {
            errno = rc;
            err = os_error("posix_fallocate", name);
        }
    }
    if (err.empty()) err = map(bytes);
    if (!err.empty()) return err;
    auto *h = new (base_) segment_header{};
    h->local_count = local_count;
    h->ring_capacity = ring_capacity;
    h->ring_stride = ring_stride(ring_capacity);
    h->pids_offset = page;
    h->doorbells_offset = page + pids_bytes(local_count);
    h->doorbell_stride = doorbell_bytes(local_count);
    h->rings_offset = fixed_bytes(local_count);
    // Fresh pages are zero: every doorbell starts empty.
    std::atomic_ref<uint64_t>(h->magic).store(segment_magic, std::memory_order_release);
    return "";
}

std::string segment::attach(const std::string &name, uint32_t local_count, size_t ring_capacity) {
    name_ = name;
    const size_t bytes = bytes_needed(local_count, ring_capacity);
    fd_ = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd_ < 0) return os_error("shm_open", name);
    struct stat st {};
    std::string err;
    if (::fstat(fd_, &st) != 0) err = os_error("fstat", name);
    else if (static_cast<size_t>(st.st_size) != bytes)
        err = "segment " + name + " has " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(bytes) +
              " (processes disagree on CCS_SHM_RING_SIZE?)";
    if (err.empty()) err = map(bytes);
    if (!err.empty()) return err;
    auto *h = reinterpret_cast<segment_header *>(base_);
    if (std::atomic_ref<uint64_t>(h->magic).load(std::memory_order_acquire) != segment_magic ||
        h->local_count != local_count || h->ring_capacity != ring_capacity)
        return "segment " + name + " does not match this job (magic, process count or ring size differ)";
    return "";
}

std::string segment::unlink() {
    if (!owner_ || !linked_) return "";
    linked_ = false;
    if (::shm_unlink(name_.c_str()) != 0 && errno != ENOENT) return os_error("shm_unlink", name_);
    return "";
}

segment::~segment() {
    unlink();
    if (base_) ::munmap(base_, bytes_);
    if (fd_ >= 0) ::close(fd_);
}

size_t segment::ring_offset(uint32_t from, uint32_t to) const {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    return h->rings_offset + (static_cast<size_t>(from) * h->local_count + to) * h->ring_stride;
}

std::string segment::reserve_ring(uint32_t from, uint32_t to) {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    const int rc = ::posix_fallocate(fd_, static_cast<off_t>(ring_offset(from, to)), static_cast<off_t>(h->ring_stride));
    if (rc == 0) return "";
    errno = rc;
    return os_error("posix_fallocate", name_) + " (reserving " + std::to_string(h->ring_stride >> 10) +
           " KiB for a ring; is /dev/shm full?)";
}

std::string segment::release_ring(uint32_t from, uint32_t to) {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(ring_offset(from, to)),
                    static_cast<off_t>(h->ring_stride)) != 0)
        return os_error("fallocate(PUNCH_HOLE)", name_);
    return "";
}

size_t segment::bytes_in_use() const {
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) return 0;
    return static_cast<size_t>(st.st_blocks) * 512;
}

ring_control *segment::control(uint32_t from, uint32_t to) const {
    return reinterpret_cast<ring_control *>(base_ + ring_offset(from, to));
}

doorbell segment::bell(uint32_t local) const {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    return doorbell(reinterpret_cast<uint64_t *>(base_ + h->doorbells_offset + local * h->doorbell_stride),
                    h->local_count);
}

std::atomic_ref<int32_t> segment::pid(uint32_t local) const {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    return std::atomic_ref<int32_t>(reinterpret_cast<int32_t *>(base_ + h->pids_offset)[local]);
}

uint8_t *segment::data(uint32_t from, uint32_t to) const {
    return reinterpret_cast<uint8_t *>(control(from, to)) + page;
}

}  // namespace ccs::shm
