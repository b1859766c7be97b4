// Domain queries: a domain is a node, as CCS finds them (processes whose
// transports share memory; CCS_NODE_ID splits one host into pretend nodes).
#include "groups.hpp"

using namespace ccs::armci;

namespace {
const process_state &domain_state(const char *call, armci_domain_t domain) {
    const process_state &s = ready(call);
    if (domain != ARMCI_DOMAIN_SMP) fail(call, "domain " + std::to_string(domain) + " is not ARMCI_DOMAIN_SMP");
    return s;
}
void check_node(const char *call, const process_state &s, int id) {
    if (id < 0 || static_cast<size_t>(id) >= s.node_procs.size())
        fail(call, "node " + std::to_string(id) + " is not in 0 .. " + std::to_string(s.node_procs.size() - 1));
}
void check_proc(const char *call, const process_state &s, int proc) {
    if (!valid_proc(s, proc)) fail(call, "process " + std::to_string(proc) + " is not in " + proc_range(s));
}
}  // namespace

extern "C" {
int armci_domain_nprocs(armci_domain_t domain, int id) {
    const process_state &s = domain_state("armci_domain_nprocs", domain);
    check_node("armci_domain_nprocs", s, id);
    return static_cast<int>(s.node_procs[static_cast<size_t>(id)].size());
}
int armci_domain_id(armci_domain_t domain, int glob_proc_id) {
    const process_state &s = domain_state("armci_domain_id", domain);
    check_proc("armci_domain_id", s, glob_proc_id);
    return s.node_of[static_cast<size_t>(glob_proc_id)];
}
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id) {
    const char *call = "armci_domain_glob_proc_id";
    const process_state &s = domain_state(call, domain);
    check_node(call, s, id);
    const auto &procs = s.node_procs[static_cast<size_t>(id)];
    if (loc_proc_id < 0 || static_cast<size_t>(loc_proc_id) >= procs.size())
        fail(call, "local process " + std::to_string(loc_proc_id) + " is not in 0 .. " +
                       std::to_string(procs.size() - 1) + " of node " + std::to_string(id));
    return procs[static_cast<size_t>(loc_proc_id)];
}
int armci_domain_my_id(armci_domain_t domain) {
    const process_state &s = domain_state("armci_domain_my_id", domain);
    return s.node_of[static_cast<size_t>(s.me)];
}
int armci_domain_count(armci_domain_t domain) {
    return static_cast<int>(domain_state("armci_domain_count", domain).node_procs.size());
}
int armci_domain_same_id(armci_domain_t domain, int proc) {
    const process_state &s = domain_state("armci_domain_same_id", domain);
    check_proc("armci_domain_same_id", s, proc);
    return s.node_of[static_cast<size_t>(proc)] == s.node_of[static_cast<size_t>(s.me)];
}
int ARMCI_Same_node(int proc) { return armci_domain_same_id(ARMCI_DOMAIN_SMP, proc); }

// ARMCI_Malloc's table holds each process's own addresses; none of a node
// peer's is valid here, so callers must not load or store through them.
int ARMCI_Uses_shm(void) {
    ready("ARMCI_Uses_shm");
    return 0;
}
int ARMCI_Uses_shm_grp(ARMCI_Group *) {
    ready("ARMCI_Uses_shm_grp");
    return 0;
}
void ARMCI_Set_shm_limit(unsigned long) { ready("ARMCI_Set_shm_limit"); }
}
