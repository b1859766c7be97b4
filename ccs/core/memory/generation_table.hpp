// Whether each registration of this process is still live, where the
// other processes of the node read it without asking: a memory file of
// pairs of 64-bit words, one pair per live registration: its handle (0
// when free), and a lock node peers take to accumulate in place into a
// ccs_mem_alloc block (block_lock.hpp; the block's own registration's). A key names its word (key_liveness); a process holding the key
// compares the word with the key's handle before each access. Handles are
// never reused, so a word a later registration takes never matches an old
// key: deregistering revokes every key to the registration at once, on
// every path that reads the word (mapped memory, cross-memory attach, a
// plugin's native RMA on the node).
#pragma once

#include "core/memory/key_format.hpp"

#include <ccs/ccs.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ccs {

using generation_word = std::atomic<uint64_t>;

class generation_table {
public:
    generation_table() = default;
    ~generation_table();
    generation_table(const generation_table &) = delete;
    generation_table &operator=(const generation_table &) = delete;

    // The file and its mapping, `slots` pairs of words (sparse: only used
    // pages cost memory).
    ccs_status_t open(size_t slots);
    // A word holding `handle`; CCS_ERR_NO_RESOURCES when all are taken.
    ccs_status_t take(uint64_t handle, uint32_t &slot);
    void give_back(uint32_t slot);
    key_liveness where(uint32_t slot) const;
    // Null for a slot this table does not have.
    const generation_word *word(uint32_t slot) const { return slot > 0 && slot < count_ ? &words_[2 * slot] : nullptr; }
    generation_word *lock(uint32_t slot) const { return slot > 0 && slot < count_ ? &words_[2 * slot + 1] : nullptr; }

private:
    int fd_ = -1;
    generation_word *words_ = nullptr;  // [0] holds the nonce (slot 0 is never taken)
    size_t count_ = 0;                  // slots
    uint64_t nonce_ = 0;
    uint32_t next_unused_ = 1;
    std::vector<uint32_t> free_;
};

// Other processes' tables, mapped read-only here, once per owner.
class generation_views {
public:
    generation_views() = default;
    ~generation_views();
    generation_views(const generation_views &) = delete;
    generation_views &operator=(const generation_views &) = delete;

    // The word `where` names in `owner`'s table, or null where the table
    // cannot be mapped here (not permitted, or the key names a file that
    // is not the owner's table). Only for owners on this node.
    const generation_word *word(int owner, const key_liveness &where);
    // The lock word of where.lock_slot, the same way.
    generation_word *lock(int owner, const key_liveness &where);

private:
    struct view {
        generation_word *words = nullptr;
        size_t count = 0;  // slots
        int32_t pid = 0;
        uint64_t nonce = 0;
    };
    // The owner's view, mapped on first use; null words when it cannot be.
    const view &view_of(int owner, const key_liveness &where);
    std::unordered_map<int, view> views_;
};

}  // namespace ccs
