// armci_msg_* reductions: gop (allreduce), reduce (to the scope's first
// process), sel (the contributor with the smallest or largest value), the
// node-scope "clus" forms, and the address exchanges.
#include "groups.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ccs::armci {
namespace {
struct reduction {
    int op;  // a ccs_acc_op_t
    bool absolute;
};

reduction parse_op(const char *call, const char *op) {
    if (!op) fail(call, "op is NULL");
    if (std::strcmp(op, "+") == 0) return {CCS_ACC_SUM, false};
    if (std::strcmp(op, "*") == 0) return {CCS_ACC_PROD, false};
    if (std::strcmp(op, "max") == 0) return {CCS_ACC_MAX, false};
    if (std::strcmp(op, "min") == 0) return {CCS_ACC_MIN, false};
    if (std::strcmp(op, "absmax") == 0) return {CCS_ACC_MAX, true};
    if (std::strcmp(op, "absmin") == 0) return {CCS_ACC_MIN, true};
    fail(call, std::string("op '") + op + "' is none of + * max min absmax absmin");
}

struct element {
    int ccs_type;
    size_t size;
};
element parse_type(const char *call, int type) {
    switch (type) {
        case ARMCI_INT: return {CCS_ACC_INT32, sizeof(int)};
        case ARMCI_LONG: return {sizeof(long) == 8 ? CCS_ACC_INT64 : CCS_ACC_INT32, sizeof(long)};
        case ARMCI_LONG_LONG: return {CCS_ACC_INT64, sizeof(long long)};
        case ARMCI_FLOAT: return {CCS_ACC_FLOAT, sizeof(float)};
        case ARMCI_DOUBLE: return {CCS_ACC_DOUBLE, sizeof(double)};
        default: fail(call, "type " + std::to_string(type) + " is none of ARMCI_INT .. ARMCI_DOUBLE");
    }
}

template <typename T>
void make_absolute(void *x, int n) {
    T *v = static_cast<T *>(x);
    for (int i = 0; i < n; ++i) v[i] = v[i] < 0 ? static_cast<T>(-v[i]) : v[i];
}
void absolute(int type, void *x, int n) {
    switch (type) {
        case ARMCI_INT: make_absolute<int>(x, n); break;
        case ARMCI_LONG: make_absolute<long>(x, n); break;
        case ARMCI_LONG_LONG: make_absolute<long long>(x, n); break;
        case ARMCI_FLOAT: make_absolute<float>(x, n); break;
        default: make_absolute<double>(x, n);
    }
}

// All processes of the scope (rooted: only the first) get the reduction
// of their x in place.
void reduce(const char *call, int scope, void *x, int n, const char *op, int type, const ARMCI_Group *group,
            bool to_all) {
    ready(call);
    const scope_team t = team_of_scope(call, teams_of(call, group), scope);
    const reduction r = parse_op(call, op);
    const element e = parse_type(call, type);
    if (!t.team.id) return;
    if (n < 0 || (n > 0 && !x)) fail(call, "x is NULL or n negative");
    if (r.absolute) absolute(type, x, n);
    const size_t count = static_cast<size_t>(n);
    check(call, to_all ? ccs_team_allreduce(t.team, x, x, count, e.ccs_type, r.op, nullptr)
                       : ccs_team_reduce(t.team, x, x, count, e.ccs_type, r.op, 0, nullptr));
}

template <typename T>
bool better(const void *a, const void *b, bool smallest) {
    T x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    return smallest ? x < y : x > y;
}

void select(const char *call, int scope, void *x, int n, const char *op, int type, int contribute) {
    ready(call);
    const scope_team t = team_of_scope(call, teams_of(call, &world_group()), scope);
    const bool smallest = op && std::strcmp(op, "min") == 0;
    if (!op || (!smallest && std::strcmp(op, "max") != 0)) fail(call, "op is neither \"min\" nor \"max\"");
    const element e = parse_type(call, type);
    if (!t.team.id) return;
    if (n < static_cast<int>(e.size) || !x) fail(call, "x is NULL or shorter than one element of its type");
    // Every process's record (flag, then x) to every process; each picks
    // the same winner, the lowest rank among equals.
    const size_t record = 8 + static_cast<size_t>(n);
    std::vector<char> mine(record, 0), all(record * t.members->size());
    mine[0] = contribute ? 1 : 0;
    std::memcpy(&mine[8], x, static_cast<size_t>(n));
    check(call, ccs_team_allgather(t.team, mine.data(), record, all.data(), nullptr));
    const char *best = nullptr;
    for (size_t i = 0; i < t.members->size(); ++i) {
        const char *r = &all[i * record];
        if (!r[0]) continue;
        bool win = !best;
        if (best) {
            switch (type) {
                case ARMCI_INT: win = better<int>(r + 8, best + 8, smallest); break;
                case ARMCI_LONG: win = better<long>(r + 8, best + 8, smallest); break;
                case ARMCI_LONG_LONG: win = better<long long>(r + 8, best + 8, smallest); break;
                case ARMCI_FLOAT: win = better<float>(r + 8, best + 8, smallest); break;
                default: win = better<double>(r + 8, best + 8, smallest);
            }
        }
        if (win) best = r;
    }
    if (best) std::memcpy(x, best + 8, static_cast<size_t>(n));
}

void exchange(const char *call, void *ptr_arr[], int n, const ARMCI_Group *group) {
    ready(call);
    const group_teams &g = teams_of(call, group);
    if (!ptr_arr || n != static_cast<int>(g.members.size()))
        fail(call, "ptr_arr is NULL or n (" + std::to_string(n) + ") is not the group's size " +
                       std::to_string(g.members.size()));
    int rank = 0;
    check(call, ccs_team_rank(g.all, &rank));
    void *mine = ptr_arr[rank];
    check(call, ccs_team_allgather(g.all, &mine, sizeof mine, ptr_arr, nullptr));
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group) {
    reduce("armci_msg_group_gop_scope", scope, x, n, op, type, group, true);
}
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group) {
    reduce("armci_msg_group_igop", SCOPE_ALL, x, n, op, ARMCI_INT, group, true);
}
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group) {
    reduce("armci_msg_group_lgop", SCOPE_ALL, x, n, op, ARMCI_LONG, group, true);
}
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group) {
    reduce("armci_msg_group_llgop", SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, group, true);
}
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group) {
    reduce("armci_msg_group_fgop", SCOPE_ALL, x, n, op, ARMCI_FLOAT, group, true);
}
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group) {
    reduce("armci_msg_group_dgop", SCOPE_ALL, x, n, op, ARMCI_DOUBLE, group, true);
}

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type) {
    reduce("armci_msg_gop_scope", scope, x, n, op, type, &world_group(), true);
}
void armci_msg_igop(int *x, int n, char *op) {
    reduce("armci_msg_igop", SCOPE_ALL, x, n, op, ARMCI_INT, &world_group(), true);
}
void armci_msg_lgop(long *x, int n, char *op) {
    reduce("armci_msg_lgop", SCOPE_ALL, x, n, op, ARMCI_LONG, &world_group(), true);
}
void armci_msg_llgop(long long *x, int n, char *op) {
    reduce("armci_msg_llgop", SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, &world_group(), true);
}
void armci_msg_fgop(float *x, int n, char *op) {
    reduce("armci_msg_fgop", SCOPE_ALL, x, n, op, ARMCI_FLOAT, &world_group(), true);
}
void armci_msg_dgop(double *x, int n, char *op) {
    reduce("armci_msg_dgop", SCOPE_ALL, x, n, op, ARMCI_DOUBLE, &world_group(), true);
}

void armci_msg_reduce(void *x, int n, char *op, int type) {
    reduce("armci_msg_reduce", SCOPE_ALL, x, n, op, type, &world_group(), false);
}
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type) {
    reduce("armci_msg_reduce_scope", scope, x, n, op, type, &world_group(), false);
}

void armci_msg_clus_igop(int *x, int n, char *op) {
    reduce("armci_msg_clus_igop", SCOPE_NODE, x, n, op, ARMCI_INT, &world_group(), true);
}
void armci_msg_clus_fgop(float *x, int n, char *op) {
    reduce("armci_msg_clus_fgop", SCOPE_NODE, x, n, op, ARMCI_FLOAT, &world_group(), true);
}
void armci_msg_clus_lgop(long *x, int n, char *op) {
    reduce("armci_msg_clus_lgop", SCOPE_NODE, x, n, op, ARMCI_LONG, &world_group(), true);
}
void armci_msg_clus_llgop(long long *x, int n, char *op) {
    reduce("armci_msg_clus_llgop", SCOPE_NODE, x, n, op, ARMCI_LONG_LONG, &world_group(), true);
}
void armci_msg_clus_dgop(double *x, int n, char *op) {
    reduce("armci_msg_clus_dgop", SCOPE_NODE, x, n, op, ARMCI_DOUBLE, &world_group(), true);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute) {
    select("armci_msg_sel", SCOPE_ALL, x, n, op, type, contribute);
}
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute) {
    select("armci_msg_sel_scope", scope, x, n, op, type, contribute);
}

void armci_exchange_address(void *ptr_ar[], int n) { exchange("armci_exchange_address", ptr_ar, n, &world_group()); }
void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group) {
    exchange("armci_exchange_address_grp", ptr_arr, n, group);
}
}
