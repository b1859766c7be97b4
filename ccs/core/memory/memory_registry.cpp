#include "core/memory/memory_registry.hpp"

#include "core/memory/shared_allocation.hpp"
#include "util/error.hpp"
#include "util/range.hpp"
#include "util/serialize.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <sys/sysinfo.h>

namespace ccs {
namespace {

constexpr uint32_t key_magic = 0x4b534343;  // "CCSK"
constexpr uint32_t key_version = 1;

}  // namespace

memory_registry::memory_registry(std::vector<transport *> transports, int rank, size_t max_unused_bytes)
    : transports_(std::move(transports)), rank_(rank), cache_(*this, max_unused_bytes) {}

memory_registry::~memory_registry() {
    for (auto &[id, reg] : handles_)
        if (reg.r) cache_.release(reg.r);
    handles_.clear();
    cache_.flush();
}

// Memory that is not mapped would be refused by some plugins and not by
// others (cross-memory attach registers nothing), and would fault only in
// a later put. msync(MS_ASYNC) does nothing to mapped pages and says
// ENOMEM for unmapped ones. The cache asks only on a miss.
ccs_status_t memory_registry::check_range(uintptr_t start, uintptr_t end) {
    if (::msync(reinterpret_cast<void *>(start), end - start, MS_ASYNC) != 0 && errno == ENOMEM)
        return fail(CCS_ERR_INVALID_MEMORY, "[" + std::to_string(start) + ", +" + std::to_string(end - start) +
                                                ") is not all mapped in this process");
    return CCS_OK;
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

ccs_status_t memory_registry::register_memory(void *addr, size_t length, ccs_mem_t &out) {
    registration reg{next_id_, reinterpret_cast<uintptr_t>(addr), length, nullptr, {}};
    if (length > 0) {
        const ccs_status_t st = cache_.acquire(addr, length, reg.r);
        if (st == CCS_ERR_INVALID_ARG)
            return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_register: [" + std::to_string(reinterpret_cast<uintptr_t>(addr)) +
                                                    ", +" + std::to_string(length) +
                                                    ") reaches past the end of the address space");
        if (st == CCS_ERR_INVALID_MEMORY) return fail(st, "ccs_mem_register: " + last_error());
        if (st == CCS_ERR_NO_RESOURCES)
            return fail(st, "ccs_mem_register: registration limit reached with every cached region in use");
        if (st != CCS_OK) return st;
    }
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
    handles_.erase(it);
    // Others reached it without a key of their own: tell them it is gone.
    if (on_revoke)
        for (int holder : reg.implicit_holders) on_revoke(holder, reg.id);
    for (auto [a, b] = by_addr_.equal_range(reg.addr); a != b; ++a)
        if (a->second == reg.id) {
            by_addr_.erase(a);
            break;
        }
    if (reg.r) cache_.release(reg.r);
}

ccs_status_t memory_registry::allocate(size_t length, void *&addr, ccs_mem_t &out) {
    // Whole pages, so the registration's page-rounded region lies inside.
    const size_t page = cache_.page_size();
    if (length > SIZE_MAX - page) return fail(CCS_ERR_NO_MEMORY, "ccs_mem_alloc: length too large");
    const size_t rounded = (length + page - 1) / page * page;
    // The file is sparse, so any size maps; pages the node cannot back
    // would only fault later, inside some put. Refuse them now.
    struct sysinfo si {};
    if (::sysinfo(&si) == 0) {
        const unsigned long long backing =
            (static_cast<unsigned long long>(si.totalram) + si.totalswap) * (si.mem_unit ? si.mem_unit : 1);
        if (rounded > backing)
            return fail(CCS_ERR_NO_RESOURCES, "ccs_mem_alloc: " + std::to_string(length) +
                                                  " bytes is more than this node's memory and swap (" +
                                                  std::to_string(backing) + " bytes) can ever back");
    }
    shared_allocation a;
    ccs_status_t st = shared_allocation_create(rounded ? rounded : page, a);
    if (st != CCS_OK) return st;
    if ((st = register_memory(reinterpret_cast<void *>(a.addr), length, out)) != CCS_OK) {
        shared_allocation_destroy(a.addr);
        return st;
    }
    handles_.at(out.id).allocated = true;
    addr = reinterpret_cast<void *>(a.addr);
    return CCS_OK;
}

ccs_status_t memory_registry::free_allocation(ccs_mem_t mem) {
    auto it = handles_.find(mem.id);
    if (it == handles_.end())
        return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_free: handle " + std::to_string(mem.id) +
                                                " was never allocated or is already freed");
    const uintptr_t addr = it->second.addr;
    const shared_allocation *a = shared_allocation_find(addr, 1);
    if (!it->second.allocated || !a || a->addr != addr)
        return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_free: handle " + std::to_string(mem.id) +
                                                " was registered, not allocated (use ccs_mem_deregister)");
    const size_t length = a->length;
    drop(it);
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
        if (range_holds(reg.addr, reg.length, addr, length)) return reg.id;
    }
    return 0;
}

// Layout: magic, version, owner, handle, base, length, then per transport
// (name, plugin key). Packed by the owner, read by anyone.
ccs_status_t memory_registry::pack(const registration &reg, std::vector<uint8_t> &out) const {
    blob_writer w;
    w.u32(key_magic).u32(key_version).u32(static_cast<uint32_t>(rank_)).u64(reg.id).u64(reg.addr).u64(reg.length);
    w.u32(static_cast<uint32_t>(transports_.size()));
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
        w.str(transports_[i]->name()).bytes(part);
    }
    out = w.take();
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

bool unpack_key(const void *buffer, size_t length, key_contents &out) {
    const std::vector<uint8_t> bytes(static_cast<const uint8_t *>(buffer), static_cast<const uint8_t *>(buffer) + length);
    blob_reader r(bytes);
    if (r.u32() != key_magic || r.u32() != key_version) return false;
    out.owner = static_cast<int>(r.u32());
    out.handle = r.u64();
    out.base = r.u64();
    out.length = r.u64();
    const uint32_t n = r.u32();
    if (!r.ok() || n > 64) return false;
    out.transports.clear();
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        std::string name = r.str();
        std::vector<uint8_t> part = r.bytes();
        out.transports.emplace_back(std::move(name), std::move(part));
    }
    return r.ok() && r.at_end() && out.base + out.length >= out.base;
}

}  // namespace ccs
