// The symmetric heap: one CCS symmetric allocation per PE, carved by an
// allocator that gives every PE the same offsets for the same sequence of
// calls (shmem_malloc and friends are collective with equal arguments), so
// that an address in one PE's heap names the same object on every PE.
#pragma once

#include <ccs/rma.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ccs::shmem {
class symmetric_heap {
public:
    // Collective: every PE's part of `bytes`. CCS's status on failure.
    ccs_status_t create(size_t bytes);
    // Collective; what was allocated is gone.
    ccs_status_t destroy();

    // nullptr when no free range of `size` bytes aligned to `alignment`
    // (a power of two) is left; size 0 gives nullptr too.
    void *allocate(size_t size, size_t alignment);
    // false when `p` is not the start of a live block (nothing changes).
    bool release(void *p);
    // The block at `p` with `size` bytes, moved if it cannot grow in place
    // (its first min(old, new) bytes copied); nullptr when nothing fits
    // (the old block stays). `p` must be a live block.
    void *resize(void *p, size_t size);
    // Size of the live block starting at `p`, 0 if none does.
    size_t block_size(const void *p) const;

    bool contains(const void *p, size_t length) const;
    char *base() const { return base_; }
    size_t size() const { return size_; }
    size_t free_bytes() const;

private:
    static constexpr size_t min_alignment = 16;
    void add_free(size_t offset, size_t length);
    void take(std::map<size_t, size_t>::iterator range, size_t offset, size_t length);

    char *base_ = nullptr;
    size_t size_ = 0;
    ccs_mem_t mem_{0};
    std::map<size_t, size_t> free_;  // offset -> length, never adjacent
    std::map<size_t, size_t> used_;  // offset -> length
};

// SHMEM_SYMMETRIC_SIZE: a byte count with an optional K, M, G or T suffix
// (powers of 1024). Empty or unset: `fallback`. An error text on bad input.
bool parse_size(const char *text, size_t fallback, size_t &bytes, std::string &why);
}  // namespace ccs::shmem
