// Runs collectives: each started collective is a schedule (coll/schedule.hpp)
// advanced inside progress; its messages travel on the core's internal
// context, named by (team wire id, the team's collective number, round tag),
// and wait in a mailbox when they arrive before this process got there.
// Any number of collectives, on any teams, may be in flight at once.
#pragma once

#include "core/am/am_engine.hpp"
#include "core/coll/algorithms.hpp"
#include "core/coll/schedule.hpp"
#include "core/internal_handlers.hpp"
#include "util/completion.hpp"

#include <ccs/ccs.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ccs::coll {

class coll_engine {
public:
    explicit coll_engine(am_engine &am) : am_(am) {}

    ccs_status_t install(internal_handlers &handlers);

    // Starts collective number `seq` of team `t`; `completion` runs in
    // progress once it ended here. `failed`: this process refused its own
    // arguments, but takes part (without data) so the other members end
    // with that status instead of waiting for it.
    void start(const team_view &t, uint64_t seq, schedule &&s, const ccs_completion_t &completion,
               ccs_status_t failed = CCS_OK);
    // Starts it and makes progress until it ended; its status, with the
    // detail in the last error.
    ccs_status_t run(const team_view &t, uint64_t seq, schedule &&s, const std::function<void()> &progress);

    // A small blocking barrier, broadcast or allreduce of a team in node
    // memory, run here without a schedule: the same protocol as the
    // schedules of coll/algorithms_node.cpp, so the two mix in one team.
    struct small_in_node {
        uint64_t signature = 0;
        kind what = kind::barrier;
        const uint8_t *src = nullptr;
        uint8_t *dst = nullptr;  // the buffer of a broadcast
        size_t bytes = 0;        // at most node_area::slot_bytes
        int root = 0;
        const reduction *r = nullptr;
    };
    ccs_status_t run_now(const team_view &t, uint64_t seq, const small_in_node &call,
                         const std::function<void()> &progress);

    // Collectives ended here, by how they went.
    struct counts {
        uint64_t by_messages = 0;     // every step by messages
        uint64_t in_node_memory = 0;  // a team on this node, through its memory
        uint64_t in_the_call = 0;     // of those, small blocking ones run in the call
        uint64_t two_levels = 0;      // a team across nodes: node memory, then leaders
        uint64_t cross_memory = 0;    // of those in node memory, bytes moved straight between buffers
        uint64_t failed = 0;
    };
    const counts &stats() const { return counts_; }

    bool busy() const { return !running_.empty(); }
    // Advances every running collective; the number that moved.
    int progress();
    bool in_callback() const { return depth_ > 0; }

private:
    struct arrival {
        uint64_t signature = 0;
        ccs_status_t failed = CCS_OK;  // the sender's collective had already failed
        std::vector<uint8_t> bytes;
    };
    // (team wire id, collective number, round tag, sender's job rank)
    using mail_key = std::tuple<uint64_t, uint64_t, uint32_t, int>;

    struct operation {
        team_view team;
        uint64_t seq = 0;
        schedule plan;
        size_t round = 0;
        bool round_started = false;
        std::vector<bool> received;  // per receive of the current round
        ccs_completion_t completion{};
        ccs_status_t status = CCS_OK;
        std::string detail;
        std::optional<std::chrono::steady_clock::time_point> give_up_at;
        uint32_t idle_checks = 0;  // polls of node memory that found nothing
        uint64_t *counted_in = nullptr;  // which of counts_ it ends in
    };

    static void on_message(const ccs_am_message_t *message, void *self);
    // Moves `op` as far as it goes; true once it ended.
    bool advance(operation &op);
    void start_round(operation &op);
    // Whether receive `i` of the current round is in (or never will be).
    bool take(operation &op, size_t i);
    // A collective in node memory waits for a member that will never write:
    // true once it ended it.
    bool node_trouble(operation &op);
    // A round whose node members may still move bytes into this member's
    // buffers: true once it ended it, because every member it waits on died.
    bool movers_died(operation &op, const std::function<bool(int)> &waits_on);
    // A member started collective `seq` as another (or, with `or_failed`,
    // failed it): true once it ended it here.
    bool node_mismatch(operation &op, bool or_failed);
    void node_disagreement(operation &op, int member);
    void set_failure(operation &op, ccs_status_t status, std::string detail);
    // The first member of the team known to have failed, or -1.
    int failed_member(const team_view &t) const;
    void finish(operation &op);

    am_engine &am_;
    counts counts_;
    context *internal_ = nullptr;
    uint16_t handler_ = 0;
    int depth_ = 0;
    std::list<operation> running_;
    std::map<mail_key, arrival> mailbox_;
    // Collectives that ended here before every message for them came (a
    // failure): their late messages are dropped.
    std::set<std::pair<uint64_t, uint64_t>> abandoned_;
};

}  // namespace ccs::coll
