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

size_t segment::bytes_needed(uint32_t local_count, size_t ring_capacity) {
    const size_t stride = round_up(sizeof(ring_control) + ring_capacity, page);
    return page + pids_bytes(local_count) + static_cast<size_t>(local_count) * local_count * stride;
}

std::string segment::map(int fd, size_t bytes) {
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return os_error("mmap", name_);
    base_ = static_cast<uint8_t *>(p);
    bytes_ = bytes;
    return "";
}

std::string segment::create(const std::string &name, uint32_t local_count, size_t ring_capacity) {
    name_ = name;
    const size_t bytes = bytes_needed(local_count, ring_capacity);
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0) return os_error("shm_open", name);
    owner_ = linked_ = true;
    std::string err;
    // fchmod: the umask may only narrow 0600, but be explicit about it.
    if (::fchmod(fd, S_IRUSR | S_IWUSR) != 0) err = os_error("fchmod", name);
    // posix_fallocate reserves the pages now, so a full /dev/shm fails here
    // instead of as SIGBUS on first touch.
    if (err.empty()) {
        const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
        if (rc != 0) {
            errno = rc;
            err = os_error("posix_fallocate", name);
        }
    }
    if (err.empty()) err = map(fd, bytes);
    ::close(fd);
    if (!err.empty()) return err;
    auto *h = new (base_) segment_header{};
    h->local_count = local_count;
    h->ring_capacity = ring_capacity;
    h->ring_stride = round_up(sizeof(ring_control) + ring_capacity, page);
    h->pids_offset = page;
    h->rings_offset = page + pids_bytes(local_count);
    // Fresh pages are zero: every ring starts empty with tail 0.
    std::atomic_ref<uint64_t>(h->magic).store(segment_magic, std::memory_order_release);
    return "";
}

std::string segment::attach(const std::string &name, uint32_t local_count, size_t ring_capacity) {
    name_ = name;
    const size_t bytes = bytes_needed(local_count, ring_capacity);
    const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) return os_error("shm_open", name);
    struct stat st {};
    std::string err;
    if (::fstat(fd, &st) != 0) err = os_error("fstat", name);
    else if (static_cast<size_t>(st.st_size) != bytes)
        err = "segment " + name + " has " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(bytes) +
              " (processes disagree on CCS_SHM_RING_SIZE?)";
    if (err.empty()) err = map(fd, bytes);
    ::close(fd);
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
}

ring_control *segment::control(uint32_t from, uint32_t to) const {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    const size_t index = static_cast<size_t>(from) * h->local_count + to;
    return reinterpret_cast<ring_control *>(base_ + h->rings_offset + index * h->ring_stride);
}

std::atomic_ref<int32_t> segment::pid(uint32_t local) const {
    const auto *h = reinterpret_cast<const segment_header *>(base_);
    return std::atomic_ref<int32_t>(reinterpret_cast<int32_t *>(base_ + h->pids_offset)[local]);
}

uint8_t *segment::data(uint32_t from, uint32_t to) const {
    return reinterpret_cast<uint8_t *>(control(from, to)) + sizeof(ring_control);
}

}  // namespace ccs::shm
