#include "mutexes.hpp"

#include "access.hpp"

namespace ccs::armci {
namespace {
constexpr uint32_t granted = 0x8000'0000u;

struct mutex_set {
    bool live = false;
    std::vector<int> counts;    // mutexes hosted by each process
    std::vector<size_t> first;  // each process's first mutex in the places array
    std::vector<void *> bases;  // each process's words
    std::vector<int> holding;   // per mutex index (first[p] + m): held here
};
mutex_set the_set;

uint32_t ticket(const process_state &s) { return static_cast<uint32_t>(s.me) + 1; }

// The word's address on `proc`: the tail of mutex m hosted there, or this
// line's place there.
uint64_t tail_of(int m, int proc) {
    return address(the_set.bases[static_cast<size_t>(proc)]) + 4u * static_cast<unsigned>(m);
}
uint64_t place_of(size_t index, int proc) {
    return address(the_set.bases[static_cast<size_t>(proc)]) +
           4u * (static_cast<uint64_t>(the_set.counts[static_cast<size_t>(proc)]) + index);
}
uint32_t *my_place(const process_state &s, size_t index) { return reinterpret_cast<uint32_t *>(place_of(index, s.me)); }

uint32_t apply(const char *call, const process_state &s, int op, uint64_t word, int proc, uint32_t operand,
               uint32_t compare = 0) {
    ccs_rkey_t key;
    if (locate(call, s, proc, reinterpret_cast<void *>(word), 4, key) != 0) fail(call, "a mutex word is gone");
    uint32_t old = 0;
    check(call, ccs_atomic_sync(s.context, proc, op, CCS_UINT32, word, key, operand, compare, &old));
    return old;
}

size_t checked_index(const char *call, const process_state &s, int mutex, int proc) {
    if (!the_set.live) fail(call, "no mutexes exist (ARMCI_Create_mutexes)");
    if (!valid_proc(s, proc)) fail(call, "process " + std::to_string(proc) + " is not in " + proc_range(s));
    const int n = the_set.counts[static_cast<size_t>(proc)];
    if (mutex < 0 || mutex >= n)
        fail(call, "mutex " + std::to_string(mutex) + " is not in the " + std::to_string(n) + " process " +
                       std::to_string(proc) + " hosts");
    return the_set.first[static_cast<size_t>(proc)] + static_cast<size_t>(mutex);
}
}  // namespace

void forget_mutexes() { the_set = mutex_set{}; }
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_Create_mutexes(int count) {
    const char *call = "ARMCI_Create_mutexes";
    const process_state &s = ready(call);
    // Every process learns every count first, so that a bad one fails all.
    int32_t mine = count;
    std::vector<int32_t> counts(static_cast<size_t>(s.nproc));
    check(call, ccs_team_allgather(s.world, &mine, sizeof mine, counts.data(), nullptr));
    for (int p = 0; p < s.nproc; ++p)
        if (counts[static_cast<size_t>(p)] < 0)
            return report(call, CCS_ERR_INVALID_ARG,
                          "process " + std::to_string(p) + " asked for " +
                              std::to_string(counts[static_cast<size_t>(p)]) + " mutexes");
    if (the_set.live) return report(call, CCS_ERR_INVALID_ARG, "mutexes exist already: ARMCI_Destroy_mutexes first");
    mutex_set set;
    size_t total = 0;
    for (int32_t c : counts) {
        set.counts.push_back(c);
        set.first.push_back(total);
        total += static_cast<size_t>(c);
    }
    std::vector<int> members;
    for (int p = 0; p < s.nproc; ++p) members.push_back(p);
    std::string why;
    const ccs_status_t st = allocations().create(
        s.world, members, 4 * static_cast<int64_t>(static_cast<size_t>(count) + total), set.bases, why);
    if (st != CCS_OK) return report(call, st, why);
    set.holding.assign(total, 0);
    set.live = true;
    the_set = std::move(set);
    check(call, ccs_team_barrier(s.world, nullptr));
    return 0;
}

int PARMCI_Destroy_mutexes(void) {
    const char *call = "ARMCI_Destroy_mutexes";
    const process_state &s = ready(call);
    if (!the_set.live) return report(call, CCS_ERR_INVALID_ARG, "no mutexes exist");
    std::string why;
    const ccs_status_t st = allocations().destroy(s.world, the_set.bases[static_cast<size_t>(s.me)], why);
    the_set = mutex_set{};
    return st == CCS_OK ? 0 : report(call, st, why);
}

void PARMCI_Lock(int mutex, int proc) {
    const char *call = "ARMCI_Lock";
    const process_state &s = ready(call);
    const size_t index = checked_index(call, s, mutex, proc);
    if (the_set.holding[index])
        fail(call,
             "this process holds mutex " + std::to_string(mutex) + " of process " + std::to_string(proc) + " already");
    const uint32_t before = apply(call, s, CCS_ATOMIC_SWAP, tail_of(mutex, proc), proc, ticket(s));
    if (before != 0) {
        if (before > static_cast<uint32_t>(s.nproc)) fail(call, "the mutex's tail holds no process");
        apply(call, s, CCS_ATOMIC_OR, place_of(index, static_cast<int>(before) - 1), static_cast<int>(before) - 1,
              ticket(s));
        uint32_t *place = my_place(s, index);
        check(call, ccs_wait_until(place, CCS_UINT32, CCS_CMP_GE, granted));
        __atomic_fetch_and(place, ~granted, __ATOMIC_ACQ_REL);
    }
    the_set.holding[index] = 1;
}

void PARMCI_Unlock(int mutex, int proc) {
    const char *call = "ARMCI_Unlock";
    const process_state &s = ready(call);
    const size_t index = checked_index(call, s, mutex, proc);
    if (!the_set.holding[index])
        fail(call, "this process does not hold mutex " + std::to_string(mutex) + " of process " + std::to_string(proc));
    // What the lock protected is complete before the next holder goes.
    check(call, ccs_fence_all(s.context));
    forget_all_in_flight();
    the_set.holding[index] = 0;
    uint32_t *place = my_place(s, index);
    if (__atomic_load_n(place, __ATOMIC_ACQUIRE) == 0 &&
        apply(call, s, CCS_ATOMIC_CSWAP, tail_of(mutex, proc), proc, 0, ticket(s)) == ticket(s))
        return;  // nobody in line
    // Someone swapped in behind: wait for it to link, then hand over.
    check(call, ccs_wait_until(place, CCS_UINT32, CCS_CMP_NE, 0));
    const uint32_t next = __atomic_exchange_n(place, 0u, __ATOMIC_ACQ_REL);
    apply(call, s, CCS_ATOMIC_OR, place_of(index, static_cast<int>(next) - 1), static_cast<int>(next) - 1, granted);
}
}

ARMCI_PROFILED(ARMCI_Create_mutexes)
ARMCI_PROFILED(ARMCI_Destroy_mutexes)
ARMCI_PROFILED(ARMCI_Lock)
ARMCI_PROFILED(ARMCI_Unlock)
