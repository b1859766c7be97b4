// The shared memory a team's collectives use when all its members are on
// one node: each member's block (allocated shareable, mapped by the others
// through their transport, as ccs_mem_alloc memory is) holds counters the
// others poll and buffers they copy from, so small collectives take no
// message and large ones move each byte through memory once or twice
// (once straight between the members' buffers where cross_memory()).
//
// A block: counters on their own cache lines, two small slots and two
// large chunk buffers (double buffering: one fills while the other
// drains). Small operations use slot (collective number % 2); a member
// may fill it again only when every member is done with the collective
// two before (the `done` counter of that parity). Large operations number
// their chunks across the team's lifetime and use chunk buffer (chunk %
// 2), refilled once every member consumed the chunk two before.
#pragma once

#include <ccs/ccs.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include <sys/types.h>

namespace ccs::coll {

// When large collectives of a node's members move bytes straight between
// their buffers (node_area::cross_memory): automatic, while the members
// are no more than the node's CPUs.
enum class cross_memory_use { automatic, always, never };

class node_area {
public:
    static constexpr size_t header_bytes = 4096;
    static constexpr size_t slot_bytes = 8 * 1024;    // the largest small operation
    static constexpr size_t chunk_bytes = 256 * 1024;  // one step of a large one
    static constexpr size_t block_bytes = header_bytes + 2 * slot_bytes + 2 * chunk_bytes;

    // Counters hold (collective number or chunk) + 1, so 0 is "none yet".
    struct alignas(64) counter {
        std::atomic<uint64_t> value;
    };
    // Small collectives: `arrive` of parity p says this member's part of
    // the collective in slot p is in place (it arrived), `done` that it
    // finished with it. Parity p's arrive shares its line with parity
    // (p + 1)'s done: a member writes done for one collective just before
    // arrive for the next, so the reader who waited for that arrive holds
    // the done it checks next time, and a small collective costs it one
    // line from each member, not two.
    // Data of up to inline_bytes travels in the arrive word's line itself.
    static constexpr size_t inline_bytes = 48;
    // Collectives whose failure each member keeps (header::failed).
    static constexpr size_t failed_ring = 64;
    struct alignas(64) small_line {
        std::atomic<uint64_t> arrive;
        std::atomic<uint64_t> done_of_other_parity;
        alignas(16) uint8_t data[inline_bytes];
    };
    struct header {
        small_line small[2];
        counter posted;     // large: chunks this member put in its chunk buffers
        counter reduced;    // large: chunks whose portion this member combined
        counter consumed;   // large: chunks this member finished with
        // A collective (by number % failed_ring) that failed at this
        // member, and how (failed_word): the members that wait for what it
        // would have written, or would combine its garbage, end it with
        // that status. A long ring, packed: a member whose collectives fail
        // at once (nonblocking ones after a death) must not overwrite one
        // before the others read it.
        alignas(64) std::atomic<uint64_t> failed[failed_ring];
        // The collective of each parity this member started and what it
        // was, in one word (started_word): a member that called something
        // else is caught.
        counter started[2];
        // Two levels: the leader's word that its node's part is done (the
        // result in its slot), as its started_word.
        counter released[2];
        // Large collectives by cross-memory attach: this member's word that
        // it moved its part, as its started_word.
        counter moved[2];
    };
    // (number + 1) above 24 bits, the signature's kind (coll/signature.hpp)
    // and 20 bits of its hash below: one store, so a reader never pairs
    // one collective's number with another's signature.
    static uint64_t started_word(uint64_t seq, uint64_t signature) {
        return ((seq + 1) << 24) | ((signature >> 56 & 0xf) << 20) | (signature & 0xfffff);
    }
    static uint64_t started_seq(uint64_t word) { return (word >> 24) - 1; }
    static uint64_t started_kind(uint64_t word) { return word >> 20 & 0xf; }
    static uint64_t failed_word(uint64_t seq, ccs_status_t status) { return (seq + 1) << 8 | (status & 0xff); }
    // Whether `member` failed collective `seq`: its status, else CCS_OK.
    ccs_status_t failed_at(int member, uint64_t seq) const {
        const uint64_t word = of(member).failed[seq % failed_ring].load(std::memory_order_acquire);
        return word >> 8 == seq + 1 ? static_cast<ccs_status_t>(word & 0xff) : CCS_OK;
    }
    void fail(uint64_t seq, ccs_status_t status) const {
        mine().failed[seq % failed_ring].store(failed_word(seq, status), std::memory_order_release);
    }

    // What a member that refused its own arguments says instead (no kind
    // has the number 15).
    static uint64_t refused_word(uint64_t seq) { return ((seq + 1) << 24) | 0xffffff; }
    static bool is_refusal(uint64_t word) { return (word & 0xffffff) == 0xffffff; }

    // Small collectives: each member's arrive word is its started_word,
    // stored once its part is in place. Whether every member arrived at
    // collective `seq` (this member's word `word`): size() when all did,
    // -1 while one has not, or the rank of a member that arrived with
    // another word (it called something else, or refused).
    int arrivals(uint64_t seq, uint64_t word) const {
        const size_t p = seq % 2;
        const uint64_t least = (seq + 1) << 24;
        int result = size();
        for (int m = 0; m < size(); ++m) {
            const uint64_t theirs = arrived(m, p);
            if (theirs < least) result = -1;
            else if (theirs != word && started_seq(theirs) == seq) return m;
        }
        return result;
    }
    void arrive(uint64_t seq, uint64_t word) const {
        mine().small[seq % 2].arrive.store(word, std::memory_order_release);
    }
    uint64_t arrived(int member, size_t parity) const {
        return of(member).small[parity].arrive.load(std::memory_order_acquire);
    }
    std::atomic<uint64_t> &done(int member, size_t parity) const {
        return of(member).small[1 - parity].done_of_other_parity;
    }
    static_assert(sizeof(header) <= header_bytes);

    // `blocks`: every member's block as mapped here, by team rank;
    // `first_seq`: the team's next collective number; `release` undoes
    // the mappings and this member's allocation; `pids`: every member's
    // process, when each member may reach each other's memory by
    // cross-memory attach, else empty.
    node_area(std::vector<uint8_t *> blocks, int rank, uint64_t first_seq, std::function<void()> release,
              std::vector<pid_t> pids = {});
    ~node_area();
    node_area(const node_area &) = delete;
    node_area &operator=(const node_area &) = delete;

    int size() const { return static_cast<int>(blocks_.size()); }
    // Whether large collectives move bytes between the members' buffers
    // directly (the same answer at every member).
    bool cross_memory() const { return !pids_.empty(); }
    pid_t pid(int member) const { return pids_[static_cast<size_t>(member)]; }
    int rank() const { return rank_; }
    header &of(int member) const { return *reinterpret_cast<header *>(blocks_[static_cast<size_t>(member)]); }
    header &mine() const { return of(rank_); }
    // Where a member's `bytes` of small collective `seq` lie.
    uint8_t *slot(int member, uint64_t seq, size_t bytes) const {
        if (bytes <= inline_bytes) return of(member).small[seq % 2].data;
        return blocks_[static_cast<size_t>(member)] + header_bytes + (seq % 2) * slot_bytes;
    }
    uint8_t *chunk(int member, uint64_t chunk_number) const {
        return blocks_[static_cast<size_t>(member)] + header_bytes + 2 * slot_bytes + (chunk_number % 2) * chunk_bytes;
    }

    // Whether every member's counter (chosen by `which`) reached `value`.
    template <typename Which>
    bool all_reached(Which which, uint64_t value) const {
        for (int m = 0; m < size(); ++m)
            if (which(of(m)).value.load(std::memory_order_acquire) < value) return false;
        return true;
    }
    // Whether slot (seq % 2) is free for collective `seq` everywhere.
    bool slot_free(uint64_t seq) const;

    // Chunk numbers for a large operation, handed out in call order.
    uint64_t take_chunks(uint64_t count) {
        const uint64_t first = next_chunk_;
        next_chunk_ += count;
        return first;
    }

    // A large collective failed here: this member's chunk counters jump to
    // `end` (one past its last chunk), as if it had done its part.
    void skip_chunks(uint64_t end) const;

    // Collective `seq` of the team ended here (by whatever path): `done`
    // of its parity advances once every earlier one of that parity ended.
    void finished(uint64_t seq);

private:
    std::vector<uint8_t *> blocks_;
    std::vector<pid_t> pids_;
    int rank_;
    uint64_t first_seq_;
    uint64_t next_chunk_ = 0;
    uint64_t next_done_[2];          // the next collective of each parity to end
    std::set<uint64_t> ended_early_;  // ended before one of its parity before it
    std::function<void()> release_;
};

}  // namespace ccs::coll
