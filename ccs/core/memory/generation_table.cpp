#include "core/memory/generation_table.hpp"

#include "util/error.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccs {

static_assert(generation_word::is_always_lock_free, "peers read the words as plain shared memory");

generation_table::~generation_table() {
    if (words_) ::munmap(words_, count_ * sizeof(generation_word));
    if (fd_ >= 0) ::close(fd_);
}

ccs_status_t generation_table::open(size_t slots) {
    const size_t bytes = 2 * slots * sizeof(generation_word);
    fd_ = ::memfd_create("ccs-generations", MFD_CLOEXEC);
    if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
        return fail(CCS_ERR_NO_MEMORY, std::string("the registration generation table: ") + std::strerror(errno));
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED)
        return fail(CCS_ERR_NO_MEMORY, std::string("mapping the registration generation table: ") + std::strerror(errno));
    words_ = static_cast<generation_word *>(p);
    count_ = slots;
    const key_secret random = key_secret_draw();
    std::memcpy(&nonce_, random.data(), sizeof nonce_);
    nonce_ |= 1;  // never 0, which a zero-filled file holds
    words_[0].store(nonce_, std::memory_order_release);
    return CCS_OK;
}

ccs_status_t generation_table::take(uint64_t handle, uint32_t &slot) {
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else if (next_unused_ < count_) {
        slot = next_unused_++;
    } else {
        return fail(CCS_ERR_NO_RESOURCES, "every one of the " + std::to_string(count_ - 1) +
                                              " registrations this process can hold at once is in use");
    }
    words_[2 * slot + 1].store(0, std::memory_order_relaxed);
    words_[2 * slot].store(handle, std::memory_order_release);
    return CCS_OK;
}

void generation_table::give_back(uint32_t slot) {
    words_[2 * slot].store(0, std::memory_order_release);
    free_.push_back(slot);
}

key_liveness generation_table::where(uint32_t slot) const {
    return key_liveness{static_cast<int32_t>(::getpid()), fd_, slot, nonce_, 0};
}

generation_views::~generation_views() {
    for (auto &[owner, v] : views_)
        if (v.words) ::munmap(v.words, 2 * v.count * sizeof(generation_word));
}

const generation_views::view &generation_views::view_of(int owner, const key_liveness &where) {
    auto it = views_.find(owner);
    if (it != views_.end()) return it->second;
    view v;
    const std::string path = "/proc/" + std::to_string(where.pid) + "/fd/" + std::to_string(where.fd);
    // Read and write: the lock words are taken from here too.
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(2 * sizeof(generation_word))) {
        void *p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) {
            v.words = static_cast<generation_word *>(p);
            v.count = static_cast<size_t>(st.st_size) / (2 * sizeof(generation_word));
            v.pid = where.pid;
            v.nonce = v.words[0].load(std::memory_order_acquire);
        }
    }
    if (fd >= 0) ::close(fd);
    // Kept even when empty: the owner's table will not become mappable.
    return views_.emplace(owner, v).first->second;
}

const generation_word *generation_views::word(int owner, const key_liveness &where) {
    const view &v = view_of(owner, where);
    if (!v.words || v.pid != where.pid || v.nonce != where.nonce || where.slot == 0 || where.slot >= v.count)
        return nullptr;
    return &v.words[2 * where.slot];
}

generation_word *generation_views::lock(int owner, const key_liveness &where) {
    const view &v = view_of(owner, where);
    if (!v.words || v.pid != where.pid || v.nonce != where.nonce || where.lock_slot == 0 || where.lock_slot >= v.count)
        return nullptr;
    return &v.words[2 * where.lock_slot + 1];
}

}  // namespace ccs
