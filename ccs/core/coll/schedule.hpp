// A collective as a schedule of rounds (as libNBC builds them): a round
// sends its messages when it starts, waits for its receives, then runs its
// step. Reductions are steps, so the order of combination is the
// schedule's, the same on every process however messages arrive. Built by
// the algorithms (coll/algorithms.hpp), run by the engine (coll_engine).
#pragma once

#include "core/coll/team.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ccs::coll {

struct schedule {
    struct send {
        int peer;  // team rank
        const uint8_t *data;
        size_t length;
    };
    struct receive {
        int peer;       // team rank
        uint8_t *into;  // exactly `length` bytes are expected
        size_t length;
    };
    struct round {
        // Names the round's messages; a message is matched by (sender,
        // tag), so the two ends of one message give it the same tag even
        // where their schedules have different rounds before it.
        uint32_t tag = 0;
        std::vector<send> sends;
        std::vector<receive> receives;
        // Also waited for, after the receives: a condition on memory other
        // members write (coll/node_area.hpp): > 0 holds, 0 not yet, -1 - m
        // member m showed it called something else. Empty: none.
        std::function<int()> ready;
        // For a round while other members may still move bytes into this
        // member's buffers (coll/algorithms_node_direct.cpp): whether it
        // still waits on node memory member m. No failure elsewhere ends
        // such a round early (a failed member says so in the words `ready`
        // reads); only the death of every member it waits on.
        std::function<bool(int member)> waits_on;
        std::function<void()> step;  // once every receive arrived and ready held
    };

    std::vector<round> rounds;
    // Memory the rounds point into, kept until the collective ends.
    std::vector<std::unique_ptr<uint8_t[]>> scratch;
    // What the call was (kind, root, sizes, type, op): every message
    // carries it, so a member that called something else is caught.
    uint64_t signature = 0;
    // Through shared memory (coll/node_area.hpp): after a failure here the
    // rounds still wait and run (their steps skip what is missing), since
    // the other members wait for this member's counters, not messages.
    bool in_node_memory = false;
    // Where a step that can fail (a move between processes) says so: the
    // engine then ends the collective with it. Such a step also stores
    // this member's failed word (node_area::fail) before any word that lets
    // another member finish, so every member ends with the failure.
    struct step_failure {
        ccs_status_t status = CCS_OK;
        std::string detail;
    };
    std::vector<std::shared_ptr<step_failure>> step_failures;
    // Bytes move straight between the members' buffers (by cross-memory
    // attach: coll/algorithms_node_direct.cpp).
    bool cross_memory = false;
    // Large ones in node memory: one past the last chunk number they use.
    // A member whose collective failed sets its chunk counters there, so
    // the team's next large collectives do not wait for the rest of it.
    uint64_t chunks_end = 0;

    round &add_round(uint32_t tag) {
        round &r = rounds.emplace_back();
        r.tag = tag;
        return r;
    }
    // A round after all the others that only runs `step` (it sends and
    // receives nothing, so its tag names no message).
    void add_last_step(std::function<void()> step) {
        const uint32_t tag = rounds.empty() ? 0 : rounds.back().tag + 1;
        add_round(tag).step = std::move(step);
    }
    // Keeps `other`'s scratch alive as this schedule's own, and hears of
    // its steps' failures.
    void adopt_scratch(schedule &other) {
        for (auto &bytes : other.scratch) scratch.push_back(std::move(bytes));
        other.scratch.clear();
        for (auto &f : other.step_failures) step_failures.push_back(std::move(f));
        other.step_failures.clear();
    }
    std::shared_ptr<step_failure> new_step_failure() { return step_failures.emplace_back(std::make_shared<step_failure>()); }
    uint8_t *scratch_bytes(size_t n) {
        scratch.push_back(std::make_unique_for_overwrite<uint8_t[]>(n ? n : 1));
        return scratch.back().get();
    }
};

}  // namespace ccs::coll
