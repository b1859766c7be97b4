// ARMCI_Init and its variants, ARMCI_Finalize, ARMCI_Error.
#include "allocations.hpp"
#include "groups.hpp"
#include "handles.hpp"
#include "layouts.hpp"
#include "message_p2p.hpp"
#include "mutexes.hpp"

#include <cstdlib>
#include <cstring>

namespace ccs::armci {
namespace {
bool progress_thread_wanted(const char *call) {
    // The progress thread serves accumulates, rmw and gets aimed at a
    // process while it computes (ARMCI operations complete without the
    // target's calls).
    const char *v = std::getenv("ARMCI_PROGRESS_THREAD");
    if (!v || !*v || std::strcmp(v, "1") == 0) return true;
    if (std::strcmp(v, "0") == 0) return false;
    fail(call, std::string("ARMCI_PROGRESS_THREAD='") + v + "' must be 0 or 1");
}

int ccs_level(const char *call, int mpi_level) {
    if (mpi_level == MPI_THREAD_SINGLE) return CCS_THREAD_SINGLE;
    if (mpi_level == MPI_THREAD_FUNNELED) return CCS_THREAD_FUNNELED;
    if (mpi_level == MPI_THREAD_SERIALIZED) return CCS_THREAD_SERIALIZED;
    if (mpi_level == MPI_THREAD_MULTIPLE) return CCS_THREAD_MULTIPLE;
    fail(call, "thread level " + std::to_string(mpi_level) + " is none of MPI_THREAD_*");
}

// Every process's node, numbered by its lowest process.
void map_nodes(const char *call, process_state &s) {
    int32_t leader = s.me;
    for (int p = 0; p < s.me; ++p) {
        ccs_peer_attr_t attr{};
        attr.struct_size = sizeof attr;
        check(call, ccs_peer_query(p, &attr));
        if (attr.flags & CCS_PEER_SAME_NODE) {
            leader = p;
            break;
        }
    }
    std::vector<int32_t> leaders(static_cast<size_t>(s.nproc));
    check(call, ccs_team_allgather(s.world, &leader, sizeof leader, leaders.data(), nullptr));
    s.node_of.assign(static_cast<size_t>(s.nproc), -1);
    s.node_procs.clear();
    for (int p = 0; p < s.nproc; ++p) {
        const int l = leaders[static_cast<size_t>(p)];
        if (l == p) {
            s.node_of[static_cast<size_t>(p)] = static_cast<int>(s.node_procs.size());
            s.node_procs.emplace_back();
        } else {
            s.node_of[static_cast<size_t>(p)] = s.node_of[static_cast<size_t>(l)];
        }
        s.node_procs[static_cast<size_t>(s.node_of[static_cast<size_t>(p)])].push_back(p);
    }
}

// CCS and MPI must number the processes alike: ARMCI ids are both. Each
// process's verdict is shared, so that all fail alike.
void check_numbering(const char *call, process_state &s, MPI_Comm comm) {
    int mpi_rank = -1, mpi_size = 0, comm_rank = -1, comm_size = 0, same = MPI_UNEQUAL;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    MPI_Comm_rank(comm, &comm_rank);
    MPI_Comm_size(comm, &comm_size);
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    int32_t bad = 0;
    if (mpi_rank != s.me || mpi_size != s.nproc)
        bad = 1;
    else if (same != MPI_IDENT && same != MPI_CONGRUENT)
        bad = 2;
    int32_t worst = 0;
    check(call, ccs_team_allreduce(CCS_TEAM_WORLD, &bad, &worst, 1, CCS_ACC_INT32, CCS_ACC_MAX, nullptr));
    if (worst == 1)
        fail(call, "CCS numbers the processes otherwise than MPI_COMM_WORLD (here CCS rank " + std::to_string(s.me) +
                       " of " + std::to_string(s.nproc) + ", MPI rank " + std::to_string(mpi_rank) + " of " +
                       std::to_string(mpi_size) + "): start the job with the MPI's own launcher");
    if (worst == 2)
        fail(call, "the communicator must hold every process of MPI_COMM_WORLD in its order (here rank " +
                       std::to_string(comm_rank) + " of " + std::to_string(comm_size) + ")");
}

int init(const char *call, int mpi_level, MPI_Comm comm) {
    process_state &s = the_process;
    if (s.init_count > 0) return ++s.init_count, 0;
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) fail(call, "MPI must be initialized first (MPI_Init), ARMCI runs inside an MPI job");
    if (comm == MPI_COMM_NULL) fail(call, "the communicator is MPI_COMM_NULL");
    ccs_init_params_t params{sizeof params, progress_thread_wanted(call) ? uint64_t{CCS_INIT_PROGRESS_THREAD} : 0u,
                             ccs_level(call, mpi_level)};
    check(call, ccs_init(&params));
    check(call, ccs_rank(&s.me));
    check(call, ccs_size(&s.nproc));
    check_numbering(call, s, comm);
    const ccs_am_handler_entry_t handlers[] = {{message_handler_id, on_message, nullptr}};
    const ccs_context_params_t ctx_params{sizeof ctx_params, 0, "armci", handlers, 1, nullptr, 0};
    check(call, ccs_context_create(&ctx_params, &s.context));
    check(call, ccs_team_world(s.context, &s.world));
    map_nodes(call, s);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    create_world_group(call, dup, &world_group());
    default_group() = world_group();
    s.init_count = 1;
    s.finalized = false;
    return 0;
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_Init(void) { return init("ARMCI_Init", MPI_THREAD_SINGLE, MPI_COMM_WORLD); }
int PARMCI_Init_args(int *, char ***) { return init("ARMCI_Init_args", MPI_THREAD_SINGLE, MPI_COMM_WORLD); }
int PARMCI_Init_thread(int requested) { return init("ARMCI_Init_thread", requested, MPI_COMM_WORLD); }
int PARMCI_Init_thread_comm(int requested, MPI_Comm comm) { return init("ARMCI_Init_thread_comm", requested, comm); }
int PARMCI_Init_mpi_comm(MPI_Comm comm) { return init("ARMCI_Init_mpi_comm", MPI_THREAD_SINGLE, comm); }
int PARMCI_Initialized(void) { return the_process.init_count > 0; }

int PARMCI_Finalize(void) {
    const char *call = "ARMCI_Finalize";
    process_state &s = ready(call);
    if (--s.init_count > 0) return 0;
    wait_all(call);
    check(call, ccs_fence_all(s.context));
    check(call, ccs_team_barrier(s.world, nullptr));
    forget_mutexes();
    allocations().clear();
    forget_layouts();
    free_all_groups();
    forget_messages();
    check(call, ccs_context_destroy(s.context));
    s.context = ccs_context_t{0};
    s.finalized = true;
    check(call, ccs_finalize());
    return 0;
}

void ARMCI_Cleanup(void) {
    // Called on the way out of a failing job: nothing to wait for.
}

void ARMCI_Error(const char *msg, int code) {
    const int status = code >= 1 && code <= 255 ? code : 1;
    std::fflush(stdout);
    std::fprintf(stderr, "ARMCI_Error: %s (code %d)\n", msg ? msg : "", code);
    ccs_abort(status, msg ? msg : "ARMCI_Error");
    std::_Exit(status);
}

void armci_msg_abort(int code) { ARMCI_Error("armci_msg_abort", code); }
}

ARMCI_PROFILED(ARMCI_Init)
ARMCI_PROFILED(ARMCI_Init_args)
ARMCI_PROFILED(ARMCI_Init_thread)
ARMCI_PROFILED(ARMCI_Init_thread_comm)
ARMCI_PROFILED(ARMCI_Init_mpi_comm)
ARMCI_PROFILED(ARMCI_Initialized)
ARMCI_PROFILED(ARMCI_Finalize)
