// What every C entry point of a collective does (ccs/coll.h): find the
// runtime and the team, check the shared arguments, and start or run the
// schedule the algorithms built (api_coll.cpp, api_coll_datadesc.cpp).
#pragma once

#include "api_guard.hpp"
#include "core/coll/coll_engine.hpp"
#include "core/coll/schedule.hpp"

#include <ccs/coll.h>

#include <string>

namespace ccs {

struct coll_call {
    const char *name;
    runtime *rt = nullptr;
    coll::team *team = nullptr;
    const ccs_completion_t *completion = nullptr;
    ccs_status_t local = CCS_OK;  // this process's own arguments refused

    int me() const { return team->view.rank; }
    int size() const { return team->view.size(); }
    // Records the first of this process's own mistakes: the call still
    // takes part, without data, so the others end with it.
    void refuse(const std::string &why) {
        if (local == CCS_OK) local = fail(CCS_ERR_INVALID_ARG, std::string(name) + ": " + why);
    }
};

// The runtime and team of c; errors every member shares end the call.
ccs_status_t coll_begin(coll_call &c, ccs_team_t handle, const ccs_completion_t *completion);
ccs_status_t coll_check_root(const coll_call &c, int root);
// bytes = count * each, refused when it does not fit.
ccs_status_t coll_checked_product(const coll_call &c, size_t count, size_t each, size_t &bytes);
// A small blocking collective of a team in node memory runs in the call
// (coll/node_now.cpp); everything else through a schedule.
bool coll_runs_now(const coll_call &c, size_t bytes);
ccs_status_t coll_run_now(coll_call &c, const coll::coll_engine::small_in_node &call);
// Starts the schedule (a completion given) or runs it to its end.
ccs_status_t coll_launch(coll_call &c, coll::schedule &&s);

// The reductions, of contiguous buffers and of datadescs alike.
enum class reduction_kind { all, to_root, scan, exscan };

}  // namespace ccs
