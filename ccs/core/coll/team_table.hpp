// The teams of this process behind their public handles: CCS_TEAM_WORLD,
// each context's world team (made on first ask: every process knows its
// members), and teams made collectively from a parent.
#pragma once

#include "core/coll/coll_engine.hpp"
#include "core/coll/team.hpp"
#include "core/memory/memory_registry.hpp"
#include "core/rma/rma_engine.hpp"
#include "util/handle_table.hpp"

#include <ccs/ccs.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace ccs::coll {

class team_table {
public:
    static constexpr uint64_t world_handle = 1;  // CCS_TEAM_WORLD
    // Wire ids below this are world teams (a context's id); made teams
    // get ids from here up.
    static constexpr uint64_t first_made_id = 65536;

    // Where node memory for a team comes from: shareable allocations, keys
    // and the transports' mappings of node peers' memory (`node_of`: each
    // job rank's node).
    struct node_memory {
        memory_registry &memory;
        rma_engine &rma;
        std::vector<uint32_t> node_of;
        cross_memory_use cross_memory;  // CCS_COLL_CROSS_MEMORY
    };

    // `progress`: one pass of the runtime's progress (with back-off).
    team_table(coll_engine &engine, int rank, int size, std::function<void()> progress, node_memory memory);
    ~team_table();

    // Collective over every process: CCS_TEAM_WORLD's node memory.
    ccs_status_t set_up_world();
    // Collective over every process, once a context exists everywhere:
    // its world team, with node memory.
    ccs_status_t make_world(uint16_t context_id);

    // null for a handle never issued, destroyed, or of a destroyed context.
    team *find(uint64_t handle);
    // The handle of the world team of context `context_id` (made by
    // make_world), or 0.
    uint64_t world_of(uint16_t context_id) const;

    // Collective over `parent`: the parent ranks `ranks` become a team.
    // `local` is this process's verdict on its arguments: every member
    // takes part even when its own are bad, so all fail alike. *handle is
    // 0 on processes outside the new team.
    ccs_status_t create(const char *call, team &parent, ccs_status_t local, const std::vector<int> &ranks,
                        uint64_t &handle);
    ccs_status_t destroy(const char *call, uint64_t handle);
    // Its teams' handles go stale.
    void context_destroyed(uint16_t context_id);

    // Starts the team's next collective (blocking with `run`).
    void start(team &t, schedule &&s, const ccs_completion_t &completion, ccs_status_t failed = CCS_OK) {
        engine_.start(t.view, t.next_seq++, std::move(s), completion, failed);
    }
    ccs_status_t run(team &t, schedule &&s) { return engine_.run(t.view, t.next_seq++, std::move(s), progress_); }
    // A small blocking collective of a team in node memory (coll/node_now.cpp).
    ccs_status_t run_now(team &t, const coll_engine::small_in_node &call) {
        return engine_.run_now(t.view, t.next_seq++, call, progress_);
    }

private:
    // Collective over `t`: node memory for it where every member is on
    // this node and every transport between them maps it; without, its
    // collectives all go by messages (node_area_setup.cpp).
    ccs_status_t set_up_area(team &t);
    // Collective over `t`, all on this node: every member's block mapped
    // here, numbered from collective `first_seq` of the team that uses it;
    // `out` stays null where that did not work for every member.
    ccs_status_t make_area(team &t, uint64_t first_seq, std::shared_ptr<node_area> &out);

    coll_engine &engine_;
    node_memory node_memory_;
    int rank_, size_;
    std::function<void()> progress_;
    team world_;
    handle_table<team> teams_;
    std::map<uint16_t, uint64_t> worlds_;  // context id -> handle
    uint64_t next_wire_id_ = first_made_id;
};

}  // namespace ccs::coll
