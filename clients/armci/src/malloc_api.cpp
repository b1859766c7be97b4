// Collective allocation (ARMCI_Malloc, its group and memory-device forms)
// and local allocation of memory CCS has registered.
#include "allocations.hpp"
#include "groups.hpp"

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace ccs::armci {
namespace {
// `problem`: what is wrong with this process's arguments, if anything. It
// still takes part (with an impossible size), so that the others hear of
// it instead of waiting.
int allocate(const char *call, void **ptr_arr, armci_size_t bytes, const ARMCI_Group *group,
             const char *problem = nullptr) {
    ready(call);
    const group_teams &g = teams_of(call, group);
    if (!ptr_arr && !problem) problem = "ptr_arr is NULL";
    std::string why;
    std::vector<void *> bases;
    const ccs_status_t st = allocations().create(g.all, g.members, problem ? -1 : bytes, bases, why);
    if (st != CCS_OK) return report(call, st, problem ? problem : why);
    std::memcpy(ptr_arr, bases.data(), bases.size() * sizeof(void *));
    return 0;
}

int release(const char *call, void *ptr, const ARMCI_Group *group) {
    ready(call);
    const group_teams &g = teams_of(call, group);
    std::string why;
    const ccs_status_t st = allocations().destroy(g.all, ptr, why);
    return st == CCS_OK ? 0 : report(call, st, why);
}

bool known_device(const char *device) {
    return !device || !*device || std::strcmp(device, "default") == 0 || std::strcmp(device, "dram") == 0 ||
           std::strcmp(device, "DRAM") == 0;
}

struct local_blocks {
    std::mutex lock;
    std::unordered_map<void *, ccs_mem_t> by_address;
};
local_blocks &locals() {
    static local_blocks b;
    return b;
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_Malloc(void **base_ptrs, armci_size_t size) {
    return allocate("ARMCI_Malloc", base_ptrs, size, &world_group());
}
int PARMCI_Free(void *ptr) { return release("ARMCI_Free", ptr, &world_group()); }
int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group) {
    return allocate("ARMCI_Malloc_group", ptr_arr, bytes, group);
}
int ARMCI_Free_group(void *ptr, ARMCI_Group *group) { return release("ARMCI_Free_group", ptr, group); }

int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device) {
    return PARMCI_Malloc_group_memdev(ptr_arr, bytes, &world_group(), device);
}
int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device) {
    const std::string problem =
        known_device(device) ? "" : std::string("CCS has no memory device '") + device + "' (it knows default, dram)";
    return allocate("ARMCI_Malloc_memdev", ptr_arr, bytes, group, problem.empty() ? nullptr : problem.c_str());
}
int PARMCI_Free_memdev(void *ptr) { return release("ARMCI_Free_memdev", ptr, &world_group()); }

void *PARMCI_Malloc_local(armci_size_t size) {
    const char *call = "ARMCI_Malloc_local";
    ready(call);
    if (size < 0) {
        report(call, CCS_ERR_INVALID_ARG, "size " + std::to_string(size) + " is negative");
        return nullptr;
    }
    // Registered memory: puts from it and gets into it need no
    // registration of their own.
    void *addr = nullptr;
    ccs_mem_t mem;
    const ccs_status_t st = ccs_mem_alloc(size > 0 ? static_cast<size_t>(size) : 1, &addr, &mem);
    if (st != CCS_OK) {
        report_ccs(call, st);
        return nullptr;
    }
    local_blocks &b = locals();
    std::lock_guard<std::mutex> hold(b.lock);
    b.by_address.emplace(addr, mem);
    return addr;
}

int PARMCI_Free_local(void *ptr) {
    const char *call = "ARMCI_Free_local";
    ready(call);
    local_blocks &b = locals();
    ccs_mem_t mem;
    {
        std::lock_guard<std::mutex> hold(b.lock);
        auto it = b.by_address.find(ptr);
        if (it == b.by_address.end())
            return report(call, CCS_ERR_INVALID_MEMORY, "the pointer is no block of ARMCI_Malloc_local");
        mem = it->second;
        b.by_address.erase(it);
    }
    const ccs_status_t st = ccs_mem_free(mem);
    return st == CCS_OK ? 0 : report_ccs(call, st);
}
}

ARMCI_PROFILED(ARMCI_Malloc)
ARMCI_PROFILED(ARMCI_Free)
ARMCI_PROFILED(ARMCI_Malloc_memdev)
ARMCI_PROFILED(ARMCI_Malloc_group_memdev)
ARMCI_PROFILED(ARMCI_Free_memdev)
ARMCI_PROFILED(ARMCI_Malloc_local)
ARMCI_PROFILED(ARMCI_Free_local)
