// Arrivals of the dissemination barrier's messages (coll/barrier.cpp), per
// barrier epoch and round. A peer can be at most one barrier ahead of this
// process, so two slots suffice, each remembering which epoch it counts
// for. After a failure a round may give up on a live but slow peer; its
// message then arrives late, and must not count for the barrier that next
// uses the same slot (epoch + 2). So a message for an epoch older than its
// slot's is dropped, and a newer epoch clears the slot before counting. A
// message more than one barrier ahead (possible only after give-ups) would
// clear the running barrier's slot; it is dropped, and that round gives up
// in turn.
#pragma once

#include <array>
#include <cstdint>

namespace ccs {

class barrier_arrivals {
public:
    static constexpr uint64_t max_rounds = 32;  // 2^32 processes

    // A message of `epoch`, `round` carrying `flags` came in.
    void record(uint64_t epoch, uint64_t round, uint64_t flags) {
        if (round >= max_rounds || epoch > running_ + 1) return;
        slot &s = slot_for(epoch);
        if (s.epoch != epoch) return;  // a barrier this process already left
        ++s.arrived[round];
        s.flags[round] |= flags;
    }
    // This process starts barrier `epoch`.
    void begin(uint64_t epoch) {
        running_ = epoch;
        slot_for(epoch);
    }
    // Takes one arrival of `epoch`, `round`: false when none came; else
    // ORs the flags they carried into `flags`.
    bool take(uint64_t epoch, uint64_t round, uint64_t &flags) {
        slot &s = slots_[epoch & 1];
        if (s.epoch != epoch || s.arrived[round] == 0) return false;
        --s.arrived[round];
        flags |= s.flags[round];
        s.flags[round] = 0;
        return true;
    }
    bool arrived(uint64_t epoch, uint64_t round) const {
        const slot &s = slots_[epoch & 1];
        return s.epoch == epoch && s.arrived[round] > 0;
    }

private:
    struct slot {
        uint64_t epoch = 0;
        std::array<uint32_t, max_rounds> arrived{};
        std::array<uint64_t, max_rounds> flags{};
    };
    // The slot of `epoch`, cleared first if it counted an older epoch.
    slot &slot_for(uint64_t epoch) {
        slot &s = slots_[epoch & 1];
        if (epoch > s.epoch) s = slot{epoch, {}, {}};
        return s;
    }
    std::array<slot, 2> slots_{slot{0, {}, {}}, slot{1, {}, {}}};
    uint64_t running_ = 0;  // the barrier this process is in or left last
};

}  // namespace ccs
