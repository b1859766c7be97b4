#include "core/memory/memory_registry.hpp"

#include "core/memory/shared_allocation.hpp"
#include "util/error.hpp"
#include "util/range.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <sys/sysinfo.h>

namespace ccs {
namespace {

// Slots in the generation table: registrations live at once. Sparse, so
// the size costs address space, not memory.
constexpr size_t generation_slots = size_t{1} << 20;

}  // namespace

memory_registry::memory_registry(std::vector<transport *> transports, const transport *atomics, int rank,
                                 size_t max_unused_bytes, const key_secret &secret)
    : transports_(std::move(transports)), atomics_(atomics), rank_(rank), secret_(secret), cache_(*this, max_unused_bytes) {}

memory_registry::~memory_registry() {
    for (auto &[id, reg] : handles_) release_region(reg);
    handles_.clear();
    cache_.flush();
}

ccs_status_t memory_registry::acquire_region(void *addr, size_t length, registration &reg) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(addr);
    if (const shared_allocation *a = shared_allocation_find(start, length)) {
        const auto it = blocks_.find(a->addr);
        if (it != blocks_.end()) {
            ++it->second->refs;
            reg.r = it->second.get();
            reg.in_block = true;
            return CCS_OK;
        }
    }
    const ccs_status_t st = cache_.acquire(addr, length, reg.r);
    if (st == CCS_ERR_INVALID_ARG)
        return fail(CCS_ERR_INVALID_MEMORY,
                    "ccs_mem_register: " + describe_range(start, length) + " reaches past the end of the address space");
    if (st == CCS_ERR_INVALID_MEMORY) return fail(st, "ccs_mem_register: " + last_error());
    if (st == CCS_ERR_NO_RESOURCES)
        return fail(st, "ccs_mem_register: registration limit reached with every cached region in use");
    return st;
}

void memory_registry::release_region(const registration &reg) {
    if (!reg.r) return;
    if (!reg.in_block) return cache_.release(reg.r);
    if (--reg.r->refs > 0) return;
    mem_dereg(*reg.r);
    blocks_.erase(reg.r->start);
}

void *memory_registry::lend(const transport &t, const void *addr, size_t length, void *&hold) {
    const auto at = std::find(transports_.begin(), transports_.end(), &t);
    if (at == transports_.end()) return nullptr;
    registration reg;
    if (acquire_region(const_cast<void *>(addr), length, reg) != CCS_OK) return nullptr;
    hold = reg.r;
    return reg.r->handles[static_cast<size_t>(at - transports_.begin())];
}

void memory_registry::take_back(void *hold) {
    registration reg;
    reg.r = static_cast<region *>(hold);
    const auto block = blocks_.find(reg.r->start);
    reg.in_block = block != blocks_.end() && block->second.get() == reg.r;
    release_region(reg);
}

// Memory that is not mapped would be refused by some plugins and not by
// others (cross-memory attach registers nothing), and would fault only in
// a later put. msync(MS_ASYNC) does nothing to mapped pages and says
// ENOMEM for unmapped ones. The cache asks only on a miss.
ccs_status_t memory_registry::check_range(uintptr_t start, uintptr_t end) {
    if (::msync(reinterpret_cast<void *>(start), end - start, MS_ASYNC) != 0 && errno == ENOMEM)
        return fail(CCS_ERR_INVALID_MEMORY, describe_range(start, end - start) + " is not all mapped in this process");
    return CCS_OK;
}

ccs_status_t memory_registry::check_mapped(const void *addr, size_t length) {
    const uintptr_t page = cache_.page_size();
    const auto at = reinterpret_cast<uintptr_t>(addr);
    if (at + length < at || at + length > UINTPTR_MAX - page)
        return fail(CCS_ERR_INVALID_MEMORY, describe_range(at, length) + " reaches beyond the address space");
    return check_range(at & ~(page - 1), (at + length + page - 1) & ~(page - 1));
}

ccs_status_t memory_registry::mem_reg(region &r) {
    r.handles.assign(transports_.size(), nullptr);
    for (size_t i = 0; i < transports_.size(); ++i) {
        const ccs_plugin_status_t st =
            transports_[i]->mem_reg(reinterpret_cast<void *>(r.start), r.bytes(), &r.handles[i]);
        if (st == CCS_PLUGIN_OK) continue;
        for (size_t j = 0; j < i; ++j) transports_[j]->mem_dereg(r.handles[j]);
        if (st == CCS_PLUGIN_ERR_LIMIT) return CCS_ERR_NO_RESOURCES;
        return fail(status_from_plugin(st), "registering " + std::to_string(r.bytes()) + " bytes with plugin '" +
                                                transports_[i]->name() + "': " + plugin_status_name(st));
    }
    return CCS_OK;
}

void memory_registry::mem_dereg(region &r) {
    for (size_t i = 0; i < transports_.size() && i < r.handles.size(); ++i) transports_[i]->mem_dereg(r.handles[i]);
}

ccs_status_t memory_registry::check_atomics_mechanism(uintptr_t addr, size_t length, bool network) const {
    if (length == 0 || (!network && network_registrations_ == 0)) return CCS_OK;
    const uintptr_t end = addr + length;
    for (auto it = by_addr_.begin(); it != by_addr_.end() && it->first < end; ++it) {
        const registration &reg = handles_.at(it->second);
        if (reg.internal || reg.network_atomics == network || reg.length == 0 || reg.addr + reg.length <= addr)
            continue;
        return fail(CCS_ERR_INVALID_ARG,
                    describe_range(addr, length) + " overlaps registration " + std::to_string(reg.id) + " " +
                        describe_range(reg.addr, reg.length) + ", whose atomics are carried out by " +
                        (reg.network_atomics ? "the network adapter" : "the CPU") +
                        ": one word must never be updated by both mechanisms");
    }
    return CCS_OK;
}

ccs_status_t memory_registry::register_memory(void *addr, size_t length, ccs_mem_t &out, bool network_atomics,
                                              bool internal) {
    const char *call = network_atomics ? "ccs_mem_register_atomics: " : "ccs_mem_register: ";
    if (network_atomics && !atomics_) {
        std::string names;
        for (const transport *t : transports_) names += (names.empty() ? "" : ", ") + t->name();
        return fail(CCS_ERR_UNSUPPORTED, call + ("no transport of this process carries out atomics itself "
                                                 "(loaded: " + names + ")"));
    }
    if (const ccs_status_t st = check_atomics_mechanism(reinterpret_cast<uintptr_t>(addr), length, network_atomics);
        st != CCS_OK)
        return fail(st, call + last_error());
    if (!generations_open_) {
        const ccs_status_t st = generations_.open(generation_slots);
        if (st != CCS_OK) return st;
        generations_open_ = true;
    }
    registration reg;
    reg.id = next_id_;
    reg.addr = reinterpret_cast<uintptr_t>(addr);
    reg.length = length;
    reg.internal = internal;
    if (length > 0) {
        const ccs_status_t st = acquire_region(addr, length, reg);
        if (st != CCS_OK) return st;
    }
    if (const ccs_status_t st = generations_.take(reg.id, reg.slot); st != CCS_OK) {
        release_region(reg);
        return fail(st, "ccs_mem_register: " + last_error());
    }
    if (reg.in_block) {
        // The block's own registration comes first (ccs_mem_alloc); every
        // registration inside the block shares its lock.
        const auto lock = block_locks_.emplace(reg.r->start, reg.slot).first;
        reg.lock_slot = lock->second;
    }
    reg.network_atomics = network_atomics;
    network_registrations_ += network_atomics;
    ++next_id_;
    handles_.emplace(reg.id, reg);
    by_addr_.emplace(reg.addr, reg.id);
    out = ccs_mem_t{reg.id};
    return CCS_OK;
}

ccs_status_t memory_registry::deregister(ccs_mem_t mem) {
    auto it = handles_.find(mem.id);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_deregister: handle " + std::to_string(mem.id) +
                                                " was never registered or is already deregistered");
    if (it->second.allocated)
        return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_deregister: handle " + std::to_string(mem.id) +
                                                " came from ccs_mem_alloc: ccs_mem_free ends it and unmaps its pages");
    drop(it);
    return CCS_OK;
}

void memory_registry::drop(std::unordered_map<uint64_t, registration>::iterator it) {
    const registration reg = it->second;
    network_registrations_ -= reg.network_atomics;
    handles_.erase(it);
    // Every key to it is stale from here on, wherever it is checked.
    generations_.give_back(reg.slot);
    // Others reached it without a key of their own: tell them it is gone.
    if (on_revoke)
        for (int holder : reg.implicit_holders) on_revoke(holder, reg.id);
    for (auto [a, b] = by_addr_.equal_range(reg.addr); a != b; ++a)
        if (a->second == reg.id) {
            by_addr_.erase(a);
            break;
        }
    release_region(reg);
}

ccs_status_t memory_registry::allocate(size_t length, void *&addr, ccs_mem_t &out) {
    return allocate_at("ccs_mem_alloc", length, {}, addr, out, nullptr);
}

ccs_status_t memory_registry::allocate_symmetric(size_t length, const placement &where, void *&addr, ccs_mem_t &out,
                                                 bool &placed) {
    const ccs_status_t st = allocate_at("ccs_mem_alloc_symmetric", length, where, addr, out, &placed);
    if (st == CCS_OK) handles_.at(out.id).symmetric = true;
    return st;
}

ccs_status_t memory_registry::allocate_at(const char *call, size_t length, const placement &where, void *&addr,
                                          ccs_mem_t &out, bool *placed) {
    // Whole pages, so the registration's page-rounded region lies inside.
    const size_t page = cache_.page_size();
    if (length > SIZE_MAX - page) return fail(CCS_ERR_NO_MEMORY, std::string(call) + ": length too large");
    const size_t rounded = (length + page - 1) / page * page;
    // The file is sparse, so any size maps; pages the node cannot back
    // would only fault later, inside some put. Refuse them now.
    struct sysinfo si {};
    if (::sysinfo(&si) == 0) {
        const unsigned long long backing =
            (static_cast<unsigned long long>(si.totalram) + si.totalswap) * (si.mem_unit ? si.mem_unit : 1);
        if (rounded > backing)
            return fail(CCS_ERR_NO_RESOURCES, std::string(call) + ": " + std::to_string(length) +
                                                  " bytes is more than this node's memory and swap (" +
                                                  std::to_string(backing) + " bytes) can ever back");
    }
    shared_allocation a;
    ccs_status_t st = shared_allocation_create(rounded ? rounded : page, a, where, placed);
    if (st != CCS_OK) return st;
    // The block's own region (the whole file), which no other merges with.
    auto r = std::make_unique<region>();
    r->start = a.addr;
    r->end = a.addr + a.length;
    r->refs = 1;
    r->findable = false;
    if ((st = mem_reg(*r)) != CCS_OK) {
        shared_allocation_destroy(a.addr);
        return st == CCS_ERR_NO_RESOURCES ? fail(st, std::string(call) + ": a transport's registration limit is reached")
                                          : st;
    }
    region *block = r.get();
    blocks_.emplace(a.addr, std::move(r));
    st = register_memory(reinterpret_cast<void *>(a.addr), length, out);  // its own reference (length > 0)
    if (--block->refs == 0) {
        mem_dereg(*block);
        blocks_.erase(a.addr);
    }
    if (st != CCS_OK) {
        shared_allocation_destroy(a.addr);
        return st;
    }
    handles_.at(out.id).allocated = true;
    addr = reinterpret_cast<void *>(a.addr);
    return CCS_OK;
}

ccs_status_t memory_registry::check_free(ccs_mem_t mem, bool symmetric) const {
    const std::string call = symmetric ? "ccs_mem_free_symmetric: " : "ccs_mem_free: ";
    const auto it = handles_.find(mem.id);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_MEMORY, call + "handle " + std::to_string(mem.id) +
                                                " was never allocated or is already freed");
    const uintptr_t addr = it->second.addr;
    const shared_allocation *a = shared_allocation_find(addr, 1);
    if (!it->second.allocated || !a || a->addr != addr)
        return fail(CCS_ERR_INVALID_MEMORY, call + "handle " + std::to_string(mem.id) +
                                                " was registered, not allocated (use ccs_mem_deregister)");
    if (it->second.symmetric != symmetric)
        return fail(CCS_ERR_INVALID_MEMORY,
                    call + "handle " + std::to_string(mem.id) +
                        (symmetric ? " came from ccs_mem_alloc (use ccs_mem_free)"
                                   : " came from ccs_mem_alloc_symmetric, which every process frees together "
                                     "with ccs_mem_free_symmetric"));
    const auto block = blocks_.find(addr);
    if (block != blocks_.end() && block->second->refs > 1)
        return fail(CCS_ERR_INVALID_MEMORY, call + std::to_string(block->second->refs - 1) +
                                                " registration(s) made with ccs_mem_register inside the block are "
                                                "still live; deregister them first");
    return CCS_OK;
}

ccs_status_t memory_registry::free_allocation(ccs_mem_t mem, bool symmetric) {
    const ccs_status_t st = check_free(mem, symmetric);
    if (st != CCS_OK) return st;
    auto it = handles_.find(mem.id);
    const uintptr_t addr = it->second.addr;
    const size_t length = shared_allocation_find(addr, 1)->length;
    drop(it);
    block_locks_.erase(addr);
    // The pages go away: nothing cached may stand for them any more.
    cache_.invalidate(reinterpret_cast<void *>(addr), length);
    shared_allocation_destroy(addr);
    return CCS_OK;
}

uint64_t memory_registry::covering(uint64_t addr, size_t length) const {
    // Registrations may overlap; any one holding the whole range will do.
    // Candidates start at or before addr.
    for (auto it = by_addr_.upper_bound(static_cast<uintptr_t>(addr)); it != by_addr_.begin();) {
        --it;
        const registration &reg = handles_.at(it->second);
        if (!reg.internal && range_holds(reg.addr, reg.length, addr, length)) return reg.id;
    }
    return 0;
}

// The key's fields (key_format.hpp), each transport's part among them.
ccs_status_t memory_registry::pack(const registration &reg, std::vector<uint8_t> &out) const {
    key_contents c;
    c.owner = rank_;
    c.handle = reg.id;
    c.base = reg.addr;
    c.length = reg.length;
    c.liveness = generations_.where(reg.slot);
    c.liveness.lock_slot = reg.lock_slot;
    c.network_atomics = reg.network_atomics;
    for (size_t i = 0; i < transports_.size(); ++i) {
        void *memh = reg.r ? reg.r->handles[i] : nullptr;
        size_t n = 0;
        ccs_plugin_status_t st = reg.r ? transports_[i]->rkey_pack(memh, nullptr, &n) : CCS_PLUGIN_OK;
        std::vector<uint8_t> part(n);
        if (st == CCS_PLUGIN_OK && n > 0) st = transports_[i]->rkey_pack(memh, part.data(), &n);
        if (st != CCS_PLUGIN_OK)
            return fail(status_from_plugin(st), "packing a key with plugin '" + transports_[i]->name() + "': " +
                                                    plugin_status_name(st));
        part.resize(n);
        c.transports.emplace_back(transports_[i]->name(), std::move(part));
    }
    out = key_write(c, secret_);
    return CCS_OK;
}

ccs_status_t memory_registry::pack_key(ccs_mem_t mem, void *buffer, size_t *length) {
    auto it = handles_.find(mem.id);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_MEMORY, "ccs_rkey_pack: handle " + std::to_string(mem.id) +
                                                " was never registered or is already deregistered");
    std::vector<uint8_t> key;
    const ccs_status_t st = pack(it->second, key);
    if (st != CCS_OK) return st;
    const size_t capacity = *length;
    *length = key.size();
    if (!buffer) return CCS_OK;
    if (capacity < key.size())
        return fail(CCS_ERR_INVALID_ARG, "ccs_rkey_pack: buffer of " + std::to_string(capacity) +
                                             " bytes is too small for the key (" + std::to_string(key.size()) + ")");
    std::memcpy(buffer, key.data(), key.size());
    return CCS_OK;
}

ccs_status_t memory_registry::pack_key(ccs_mem_t mem, std::vector<uint8_t> &out) {
    const auto it = handles_.find(mem.id);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_MEMORY, "handle " + std::to_string(mem.id) + " is not registered");
    out.clear();
    return pack(it->second, out);
}

ccs_status_t memory_registry::key_for_range(int requester, uint64_t addr, size_t length, bool expose,
                                            std::vector<uint8_t> &key) {
    uint64_t id = covering(addr, length);
    if (id == 0) {
        if (!expose)
            return fail(CCS_ERR_NOT_REGISTERED, "implicit key: [" + std::to_string(addr) + ", +" +
                                                    std::to_string(length) + ") is not registered here");
        // Exposed on demand: registered for good (until finalize), through the cache.
        ccs_mem_t mem{};
        const ccs_status_t st = register_memory(reinterpret_cast<void *>(addr), length, mem);
        if (st != CCS_OK) return st;
        id = mem.id;
    }
    registration &reg = handles_.at(id);
    if (std::find(reg.implicit_holders.begin(), reg.implicit_holders.end(), requester) == reg.implicit_holders.end())
        reg.implicit_holders.push_back(requester);
    return pack(reg, key);
}

generation_word *memory_registry::block_lock(uint64_t addr, size_t length) const {
    const shared_allocation *a = shared_allocation_find(static_cast<uintptr_t>(addr), length);
    if (!a) return nullptr;
    const auto it = block_locks_.find(a->addr);
    return it == block_locks_.end() ? nullptr : generations_.lock(it->second);
}

ccs_status_t memory_registry::check_access(uint64_t handle, uint64_t addr, uint64_t length) const {
    const auto it = handles_.find(handle);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_KEY, "registration " + std::to_string(handle) + " of rank " +
                                             std::to_string(rank_) + " has ended (deregistered or freed): the key is stale");
    if (!range_holds(it->second.addr, it->second.length, addr, length))
        return fail(CCS_ERR_OUT_OF_RANGE, describe_range(addr, length) + " is outside registration " +
                                              std::to_string(handle));
    return CCS_OK;
}

}  // namespace ccs
