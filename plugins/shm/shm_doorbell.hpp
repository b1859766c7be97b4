// A process's doorbell: the set of local senders that have pushed records
// into their rings to it since it last looked. A sender rings after a push
// to a ring the receiver does not poll on every call; the receiver takes
// the whole set at once. So an idle receiver reads one word, however many
// processes share the node, and polls only the rings of senders that rang
// (and those it watches).
//
// One bit per sender in 64-bit group words; with more than 64 senders a
// summary word says which groups are non-empty. A sender sets the summary
// bit only when it is not set already, so a busy group costs one atomic
// per push. No ordering is lost: a sender's push happens before its ring
// (release), and the receiver clears a word with one exchange (acquire)
// before polling the rings it names, so a bit set after that exchange stays
// set for the next look.
#pragma once

#include <atomic>
#include <cstdint>

namespace ccs::shm {

// Bits of a group word; summary bits index group words.
constexpr uint32_t doorbell_group_senders = 64;
constexpr uint32_t doorbell_max_senders = doorbell_group_senders * 64;

// Bytes of one process's doorbell in the segment: the summary word and the
// group words on cache lines of their own, apart from the neighbours'.
constexpr uint64_t doorbell_bytes(uint32_t senders) {
    const uint64_t groups = (senders + doorbell_group_senders - 1) / doorbell_group_senders;
    return 64 + (groups * 8 + 63) / 64 * 64;
}

class doorbell {
public:
    doorbell() = default;
    // words: doorbell_bytes(senders) bytes, 64-byte aligned, zero at first.
    doorbell(uint64_t *words, uint32_t senders)
        : summary_(words), groups_(words + 8),
          group_count_((senders + doorbell_group_senders - 1) / doorbell_group_senders) {}

    void ring(uint32_t sender) {
        const uint32_t group = sender / doorbell_group_senders;
        // The result unused: one locked OR, never a compare-and-swap loop
        // that the receiver's exchange can make go round again.
        std::atomic_ref<uint64_t>(groups_[group])
            .fetch_or(uint64_t{1} << (sender % doorbell_group_senders), std::memory_order_seq_cst);
        if (group_count_ == 1) return;
        // The OR above is a full barrier, so this load comes after it: a
        // summary bit seen set is cleared only by an exchange that then
        // looks at this group and finds our bit.
        std::atomic_ref<uint64_t> summary(*summary_);
        const uint64_t bit = uint64_t{1} << group;
        if (!(summary.load(std::memory_order_seq_cst) & bit)) summary.fetch_or(bit, std::memory_order_seq_cst);
    }

    // Forgets that `sender` rang (its ring was retired: nothing to read).
    void clear(uint32_t sender) {
        std::atomic_ref<uint64_t>(groups_[sender / doorbell_group_senders])
            .fetch_and(~(uint64_t{1} << (sender % doorbell_group_senders)), std::memory_order_relaxed);
    }

    // False for a process with no segment (alone on its node): nobody rings.
    bool exists() const { return summary_ != nullptr; }

    // Whether any sender rang since the last take (a look, no change).
    bool rung() const {
        if (group_count_ > 1) return std::atomic_ref<uint64_t>(*summary_).load(std::memory_order_seq_cst) != 0;
        return group_count_ == 1 && std::atomic_ref<uint64_t>(groups_[0]).load(std::memory_order_seq_cst) != 0;
    }

    // The owner sleeps until a sender wakes it (shm_wakeup.hpp). The word
    // sits on the summary's line, which senders of a small node never
    // write, so reading it after a ring costs no transfer while nobody sleeps.
    void say_sleeping(bool on) { std::atomic_ref<uint64_t>(summary_[1]).store(on ? 1 : 0, std::memory_order_seq_cst); }
    // For a sender, after ring() (a full barrier, so this load is ordered
    // after the push): true once per sleep, for the one sender that must
    // wake the owner.
    bool take_sleeper() {
        std::atomic_ref<uint64_t> word(summary_[1]);
        return word.load(std::memory_order_seq_cst) != 0 && word.exchange(0, std::memory_order_seq_cst) != 0;
    }

    // Clears the set and calls on_sender(uint32_t) for each sender in it.
    template <typename OnSender>
    void take(OnSender &&on_sender) {
        if (group_count_ <= 1) {  // none: a node of one process
            if (group_count_ == 1) take_group(0, on_sender);
            return;
        }
        std::atomic_ref<uint64_t> summary(*summary_);
        if (summary.load(std::memory_order_relaxed) == 0) return;
        for (uint64_t groups = summary.exchange(0, std::memory_order_seq_cst); groups; groups &= groups - 1)
            take_group(static_cast<uint32_t>(__builtin_ctzll(groups)), on_sender);
    }

private:
    template <typename OnSender>
    void take_group(uint32_t group, OnSender &on_sender) {
        std::atomic_ref<uint64_t> word(groups_[group]);
        // A plain load first: an idle receiver keeps the line shared
        // instead of taking it from the senders with a write.
        if (word.load(std::memory_order_relaxed) == 0) return;
        for (uint64_t senders = word.exchange(0, std::memory_order_seq_cst); senders; senders &= senders - 1)
            on_sender(group * doorbell_group_senders + static_cast<uint32_t>(__builtin_ctzll(senders)));
    }

    uint64_t *summary_ = nullptr;
    uint64_t *groups_ = nullptr;
    uint32_t group_count_ = 0;
};

}  // namespace ccs::shm
