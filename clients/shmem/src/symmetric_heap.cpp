#include "symmetric_heap.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ccs::shmem {
ccs_status_t symmetric_heap::create(size_t bytes) {
    void *addr = nullptr;
    const ccs_status_t st = ccs_mem_alloc_symmetric(bytes, &addr, &mem_);
    if (st != CCS_OK) return st;
    base_ = static_cast<char *>(addr);
    size_ = bytes;
    free_.clear();
    used_.clear();
    if (bytes > 0) free_.emplace(0, bytes);
    return CCS_OK;
}

ccs_status_t symmetric_heap::destroy() {
    if (!base_ && size_ == 0 && mem_.id == 0) return CCS_OK;
    const ccs_status_t st = ccs_mem_free_symmetric(mem_);
    base_ = nullptr;
    size_ = 0;
    mem_ = ccs_mem_t{0};
    free_.clear();
    used_.clear();
    return st;
}

void symmetric_heap::take(std::map<size_t, size_t>::iterator range, size_t offset, size_t length) {
    const size_t start = range->first, end = range->first + range->second;
    free_.erase(range);
    if (offset > start) free_.emplace(start, offset - start);
    if (offset + length < end) free_.emplace(offset + length, end - offset - length);
    used_.emplace(offset, length);
}

void *symmetric_heap::allocate(size_t size, size_t alignment) {
    if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
    if (alignment < min_alignment) alignment = min_alignment;
    // Whole multiples of the minimum keep every later block aligned too.
    if (size > SIZE_MAX - min_alignment) return nullptr;
    size = (size + min_alignment - 1) & ~(min_alignment - 1);
    const uintptr_t base = reinterpret_cast<uintptr_t>(base_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        const uintptr_t start = base + it->first;
        const uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t{alignment} - 1);
        const size_t skip = aligned - start;
        if (skip > it->second || it->second - skip < size) continue;
        const size_t offset = it->first + skip;
        take(it, offset, size);
        return base_ + offset;
    }
    return nullptr;
}

void symmetric_heap::add_free(size_t offset, size_t length) {
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + length == next->first) {
        length += next->second;
        next = free_.erase(next);
    }
    if (next != free_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == offset) {
            prev->second += length;
            return;
        }
    }
    free_.emplace(offset, length);
}

bool symmetric_heap::release(void *p) {
    if (!contains(p, 0)) return false;
    auto it = used_.find(static_cast<size_t>(static_cast<char *>(p) - base_));
    if (it == used_.end()) return false;
    add_free(it->first, it->second);
    used_.erase(it);
    return true;
}

void *symmetric_heap::resize(void *p, size_t size) {
    auto it = used_.find(static_cast<size_t>(static_cast<char *>(p) - base_));
    if (it == used_.end() || size == 0 || size > SIZE_MAX - min_alignment) return nullptr;
    const size_t rounded = (size + min_alignment - 1) & ~(min_alignment - 1);
    const size_t offset = it->first, old = it->second;
    if (rounded <= old) {  // shrink in place
        it->second = rounded;
        if (rounded < old) add_free(offset + rounded, old - rounded);
        return p;
    }
    auto next = free_.find(offset + old);  // grow in place into the range after it
    if (next != free_.end() && next->second >= rounded - old) {
        const size_t rest = next->second - (rounded - old);
        free_.erase(next);
        if (rest > 0) free_.emplace(offset + rounded, rest);
        it->second = rounded;
        return p;
    }
    void *moved = allocate(size, min_alignment);
    if (!moved) return nullptr;
    std::memcpy(moved, p, old);
    release(p);
    return moved;
}

size_t symmetric_heap::block_size(const void *p) const {
    if (!contains(p, 0)) return 0;
    auto it = used_.find(static_cast<size_t>(static_cast<const char *>(p) - base_));
    return it == used_.end() ? 0 : it->second;
}

bool symmetric_heap::contains(const void *p, size_t length) const {
    const char *c = static_cast<const char *>(p);
    return base_ && c >= base_ && c <= base_ + size_ && length <= static_cast<size_t>(base_ + size_ - c);
}

size_t symmetric_heap::free_bytes() const {
    size_t n = 0;
    for (const auto &[offset, length] : free_) n += length;
    return n;
}

bool parse_size(const char *text, size_t fallback, size_t &bytes, std::string &why) {
    if (!text || !*text) {
        bytes = fallback;
        return true;
    }
    errno = 0;
    char *end = nullptr;
    if (!std::isdigit(static_cast<unsigned char>(*text))) {
        why = std::string("'") + text + "' is not a size (a number of bytes, with K, M, G or T after it)";
        return false;
    }
    const unsigned long long n = std::strtoull(text, &end, 10);
    int shift = 0;
    switch (std::toupper(static_cast<unsigned char>(*end))) {
    case '\0': break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: shift = -1;
    }
    if (shift > 0) ++end;
    if (shift > 0 && (*end == 'B' || *end == 'b')) ++end;
    if (errno != 0 || shift < 0 || *end != '\0' || n > (SIZE_MAX >> shift)) {
        why = std::string("'") + text + "' is not a size (a number of bytes, with K, M, G or T after it)";
        return false;
    }
    bytes = static_cast<size_t>(n) << shift;
    return true;
}
}  // namespace ccs::shmem
