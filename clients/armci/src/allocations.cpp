#include "allocations.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ccs::armci {
namespace {
constexpr size_t max_key_bytes = 192;

// What each member tells the others about its part.
struct part_record {
    int32_t status;
    uint32_t key_bytes;
    uint64_t base;
    uint64_t length;
    uint8_t key[max_key_bytes];
};

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}
}  // namespace

allocation_table &allocations() {
    static allocation_table t;
    return t;
}

ccs_status_t allocation_table::create(ccs_team_t team, const std::vector<int> &members, int64_t length,
                                      std::vector<void *> &bases, std::string &why) {
    const process_state &s = the_process;
    if (parts_.size() != static_cast<size_t>(s.nproc)) parts_.resize(static_cast<size_t>(s.nproc));
    auto a = std::make_unique<allocation>();
    part_record mine{};
    if (length < 0) {
        mine.status = CCS_ERR_INVALID_ARG;
        why = "the size " + std::to_string(length) + " is negative";
    } else if (length > 0) {
        mine.length = static_cast<uint64_t>(length);
        ccs_status_t st = ccs_mem_alloc(mine.length, &a->mine, &a->mem);
        size_t key_bytes = max_key_bytes;
        if (st == CCS_OK) st = ccs_rkey_pack(a->mem, mine.key, &key_bytes);
        mine.status = st;
        if (st != CCS_OK) {
            why = ccs_last_error();
            if (a->mem.id) ccs_mem_free(a->mem);
            a->mem = ccs_mem_t{0};
            a->mine = nullptr;
        }
        mine.key_bytes = static_cast<uint32_t>(key_bytes);
        mine.base = reinterpret_cast<uintptr_t>(a->mine);
    }
    std::vector<part_record> all(members.size());
    ccs_status_t st = ccs_team_allgather(team, &mine, sizeof mine, all.data(), nullptr);
    if (st != CCS_OK) {
        why = ccs_last_error();
        if (a->mem.id) ccs_mem_free(a->mem);
        return st;
    }
    for (size_t i = 0; i < all.size(); ++i) {
        if (all[i].status == CCS_OK) continue;
        if (a->mem.id) ccs_mem_free(a->mem);
        if (mine.status == CCS_OK) why = "process " + std::to_string(members[i]) + " could not allocate its part";
        return static_cast<ccs_status_t>(all[i].status);
    }
    a->members = members;
    bases.assign(members.size(), nullptr);
    for (size_t i = 0; i < all.size(); ++i) {
        ccs_rkey_t key{0};
        if (all[i].length > 0) {
            st = ccs_rkey_unpack(members[i], all[i].key, all[i].key_bytes, &key);
            if (st != CCS_OK) {
                why = std::string("the key of process ") + std::to_string(members[i]) + ": " + ccs_last_error();
                forget(*a);
                if (a->mem.id) ccs_mem_free(a->mem);
                return st;
            }
            parts_[static_cast<size_t>(members[i])][all[i].base] = remote_part{all[i].base + all[i].length, key};
        }
        a->bases.push_back(all[i].base);
        a->lengths.push_back(all[i].length);
        a->keys.push_back(key);
        bases[i] = reinterpret_cast<void *>(all[i].base);
    }
    allocations_.push_back(std::move(a));
    return CCS_OK;
}

void allocation_table::forget(allocation &a) {
    for (size_t i = 0; i < a.keys.size(); ++i) {
        if (!a.keys[i].id) continue;
        parts_[static_cast<size_t>(a.members[i])].erase(a.bases[i]);
        ccs_rkey_release(a.keys[i]);
    }
    a.keys.clear();
}

ccs_status_t allocation_table::destroy(ccs_team_t team, void *mine, std::string &why) {
    int size = 0;
    ccs_status_t st = ccs_team_size(team, &size);
    if (st != CCS_OK) return why = ccs_last_error(), st;
    const uint64_t base = reinterpret_cast<uintptr_t>(mine);
    std::vector<uint64_t> all(static_cast<size_t>(size));
    st = ccs_team_allgather(team, &base, sizeof base, all.data(), nullptr);
    if (st != CCS_OK) return why = ccs_last_error(), st;
    // The allocation every member named; a member that gave length 0
    // passes NULL and is found by the others' bases.
    auto it = std::find_if(allocations_.begin(), allocations_.end(), [&](const std::unique_ptr<allocation> &a) {
        if (a->bases.size() != all.size()) return false;
        bool any = false;
        for (size_t i = 0; i < all.size(); ++i) {
            if (all[i] != a->bases[i]) return false;
            any = any || all[i] != 0;
        }
        return any;
    });
    if (it == allocations_.end()) {
        why = "the members passed no one allocation: this process " + hex(base) + (mine ? "" : " (NULL)") +
              "; not an ARMCI_Malloc pointer, or not the same allocation everywhere";
        return CCS_ERR_INVALID_ARG;
    }
    // Every member's operations on it are complete before any part goes.
    st = ccs_fence_all(the_process.context);
    if (st == CCS_OK) st = ccs_team_barrier(team, nullptr);
    if (st != CCS_OK) return why = ccs_last_error(), st;
    allocation &a = **it;
    forget(a);
    if (a.mem.id) st = ccs_mem_free(a.mem);
    if (st != CCS_OK) why = ccs_last_error();
    allocations_.erase(it);
    return st;
}

ccs_status_t allocation_table::find(int proc, uint64_t addr, uint64_t length, ccs_rkey_t &key, std::string &why) const {
    static const std::map<uint64_t, remote_part> none;
    const auto &parts = static_cast<size_t>(proc) < parts_.size() ? parts_[static_cast<size_t>(proc)] : none;
    auto it = parts.upper_bound(addr);
    if (it == parts.begin() || (--it)->second.end <= addr) {
        why = "address " + hex(addr) + " of process " + std::to_string(proc) +
              " is in none of its ARMCI_Malloc allocations";
        return CCS_ERR_NOT_REGISTERED;
    }
    if (length > it->second.end - addr) {
        why = std::to_string(length) + " bytes at " + hex(addr) + " of process " + std::to_string(proc) +
              " run past the end of its allocation (" + hex(it->first) + " .. " + hex(it->second.end) + ")";
        return CCS_ERR_OUT_OF_RANGE;
    }
    key = it->second.key;
    return CCS_OK;
}

void allocation_table::clear() {
    for (auto &a : allocations_) {
        forget(*a);
        if (a->mem.id) ccs_mem_free(a->mem);
    }
    allocations_.clear();
    parts_.clear();
}

}  // namespace ccs::armci
