// The blocks of this process's symmetric allocations
// (ccs_mem_alloc_symmetric), each with where every process placed its part
// and every process's key for it. CCS_RKEY_SYMMETRIC names a location by
// its address here: the block holding it gives the target's address (the
// same one where every process could place the block alike, else the same
// offset from the target's part) and the target's key.
#pragma once

#include "util/fast_path.hpp"

#include <ccs/rma.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ccs {

struct symmetric_block {
    uint64_t mem = 0;            // this process's registration (ccs_mem_t id)
    uint64_t serial = 0;         // which collective allocation: the same in every process
    uintptr_t base = 0;          // this process's part
    size_t span = 0;             // the longest part's length: offsets below it name a location
    bool same_address = false;   // every part starts at `base`
    std::vector<uint64_t> bases;      // by rank
    std::vector<ccs_rkey_t> keys;     // by rank, unpacked here (they bound each part's length)
};

class symmetric_blocks {
public:
    // Under the API lock, beside no fast call (util/fast_path.hpp), which
    // may be looking a block up.
    void add(symmetric_block b) {
        const uintptr_t base = b.base;
        const fast_path::exclusive alone;
        blocks_[base] = std::move(b);
        last_.store(nullptr, std::memory_order_relaxed);
    }
    // The block this process's registration `mem` belongs to, or null.
    const symmetric_block *by_mem(uint64_t mem) const {
        for (const auto &[base, b] : blocks_)
            if (b.mem == mem) return &b;
        return nullptr;
    }
    // The block whose span holds `addr` here, or null. The last one found
    // is tried first: a runtime works in one heap most of the time.
    const symmetric_block *holding(uint64_t addr) const {
        const symmetric_block *last = last_.load(std::memory_order_relaxed);
        if (last && addr - last->base < last->span) [[likely]]
            return last;
        auto it = blocks_.upper_bound(static_cast<uintptr_t>(addr));
        if (it == blocks_.begin()) return nullptr;
        const symmetric_block &b = std::prev(it)->second;
        if (addr - b.base >= b.span) return nullptr;
        last_.store(&b, std::memory_order_relaxed);
        return &b;
    }
    void remove(uintptr_t base) {
        const fast_path::exclusive alone;
        blocks_.erase(base);
        last_.store(nullptr, std::memory_order_relaxed);
    }

    // CCS_RKEY_SYMMETRIC: `remote` (an address here) becomes `target`'s
    // address and `key` its key. CCS_ERR_NOT_REGISTERED, naming `call`, when
    // the address lies in no symmetric allocation; the key checks the
    // length against the target's part, as for any key.
    ccs_status_t resolve(const char *call, int target, uint64_t &remote, ccs_rkey_t &key) const {
        const symmetric_block *b = holding(remote);
        if (!b) [[unlikely]]
            return outside(call, remote);
        remote = b->bases[static_cast<size_t>(target)] + (remote - b->base);
        key = b->keys[static_cast<size_t>(target)];
        return CCS_OK;
    }

    // resolve() for the inline paths, which leave every error to the
    // general one: false, nothing changed, where `remote` is in no block.
    // `target` must be a rank of the job.
    bool resolve_quietly(int target, uint64_t &remote, ccs_rkey_t &key) const noexcept {
        const symmetric_block *b = holding(remote);
        if (!b) return false;
        remote = b->bases[static_cast<size_t>(target)] + (remote - b->base);
        key = b->keys[static_cast<size_t>(target)];
        return true;
    }

private:
    [[gnu::cold]] static ccs_status_t outside(const char *call, uint64_t remote);
    std::map<uintptr_t, symmetric_block> blocks_;
    // Threads in fast calls may each set it: any block it names is live.
    mutable std::atomic<const symmetric_block *> last_{nullptr};
};

}  // namespace ccs
