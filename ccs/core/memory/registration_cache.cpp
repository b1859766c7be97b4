#include "core/memory/registration_cache.hpp"

#include <unistd.h>

#include <algorithm>

namespace ccs {

registration_cache::registration_cache(registration_backend &backend, size_t max_unused_bytes)
    : backend_(backend), max_unused_(max_unused_bytes) {
    const long page = sysconf(_SC_PAGESIZE);
    page_ = page > 0 ? static_cast<size_t>(page) : 4096;
}

registration_cache::~registration_cache() {
    while (!owned_.empty()) destroy(owned_.begin()->first, false);
}

region *registration_cache::lookup(uintptr_t start, uintptr_t end) const {
    auto it = by_start_.upper_bound(start);
    if (it == by_start_.begin()) return nullptr;
    region *r = std::prev(it)->second;
    return r->end >= end ? r : nullptr;
}

void registration_cache::take(region *r) {
    if (r->refs++ == 0) {
        unused_.erase(r->lru);
        stats_.unused_bytes -= r->bytes();
    }
}

void registration_cache::detach(region *r) {
    by_start_.erase(r->start);
    r->findable = false;
    if (r->refs == 0) {
        unused_.erase(r->lru);
        stats_.unused_bytes -= r->bytes();
    }
}

void registration_cache::destroy(region *r, bool eviction) {
    if (r->findable) detach(r);
    backend_.mem_dereg(*r);
    ++stats_.deregistrations;
    if (eviction) ++stats_.evictions;
    --stats_.regions;
    stats_.registered_bytes -= r->bytes();
    owned_.erase(r);
}

bool registration_cache::evict_one() {
    if (unused_.empty()) return false;
    destroy(unused_.front(), true);
    return true;
}

void registration_cache::trim() {
    while (stats_.unused_bytes > max_unused_ && evict_one()) {
    }
}

ccs_status_t registration_cache::acquire(const void *addr, size_t len, region *&out) {
    const auto at = reinterpret_cast<uintptr_t>(addr);
    if (len == 0 || at + len < at || at + len > UINTPTR_MAX - page_) return CCS_ERR_INVALID_ARG;
    const uintptr_t start = at & ~(page_ - 1);
    const uintptr_t end = (at + len + page_ - 1) & ~(page_ - 1);
    if (unmapped_.pending()) [[unlikely]]
        unmapped_.take([this](uintptr_t s, uintptr_t e) { invalidate(reinterpret_cast<const void *>(s), e - s); });
    if (region *hit = lookup(start, end)) {
        take(hit);
        ++stats_.hits;
        out = hit;
        return CCS_OK;
    }
    ++stats_.misses;
    if (const ccs_status_t bad = backend_.check_range(start, end); bad != CCS_OK) return bad;
    // The union with every region that overlaps or touches the request;
    // extending the end may reach further regions.
    uintptr_t lo = start, hi = end;
    std::vector<region *> merged;
    auto it = by_start_.upper_bound(start);
    if (it != by_start_.begin() && std::prev(it)->second->end >= start) --it;
    for (; it != by_start_.end() && it->second->start <= hi; ++it) {
        merged.push_back(it->second);
        lo = std::min(lo, it->second->start);
        hi = std::max(hi, it->second->end);
    }
    for (region *m : merged) detach(m);

    auto fresh = std::make_unique<region>();
    fresh->start = lo;
    fresh->end = hi;
    fresh->id = next_id_++;
    ccs_status_t st;
    while ((st = backend_.mem_reg(*fresh)) == CCS_ERR_NO_RESOURCES && evict_one()) ++stats_.limit_retries;
    if (st != CCS_OK) {  // put the old regions back as they were
        for (region *m : merged) {
            m->findable = true;
            by_start_[m->start] = m;
            if (m->refs == 0) {
                m->lru = unused_.insert(unused_.end(), m);
                stats_.unused_bytes += m->bytes();
            }
        }
        return st;
    }
    ++stats_.registrations;
    ++stats_.regions;
    stats_.registered_bytes += fresh->bytes();
    for (region *m : merged)
        if (m->refs == 0) destroy(m, false);  // replaced; users keep the others alive
    region *r = fresh.get();
    r->refs = 1;
    by_start_[r->start] = r;
    owned_[r] = std::move(fresh);
    out = r;
    return CCS_OK;
}

void registration_cache::release(region *r) {
    if (--r->refs > 0) return;
    if (!r->findable) {  // merged into a larger region while in use
        destroy(r, false);
        return;
    }
    r->lru = unused_.insert(unused_.end(), r);
    stats_.unused_bytes += r->bytes();
    trim();
}

void registration_cache::invalidate(const void *addr, size_t len) {
    const auto start = reinterpret_cast<uintptr_t>(addr);
    const uintptr_t end = start + len;
    std::vector<region *> hit;
    auto it = by_start_.upper_bound(start);
    if (it != by_start_.begin() && std::prev(it)->second->end > start) --it;
    for (; it != by_start_.end() && it->second->start < end; ++it) hit.push_back(it->second);
    for (region *r : hit) {
        if (r->refs == 0) destroy(r, false);
        else detach(r);
    }
}

void registration_cache::flush() {
    while (evict_one()) {
    }
}

}  // namespace ccs
