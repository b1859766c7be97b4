// The registration cache: one per process, shared by every transport
// through two callbacks (registration_backend), as UCX's rcache is.
//
// Regions are page-granular and never overlap in the lookup map: a request
// that a region covers is a hit (a reference, no transport call); a miss
// registers the union of the request and every region it overlaps or
// touches, and the old regions leave the map (deregistered at once when
// unused, when their last user releases them otherwise). Unused regions
// stay registered (lazy deregistration) until the unused bytes pass
// `max_unused_bytes`, least recently used first; when a transport reports
// its limit, unused regions are evicted one by one and the registration
// retried (the firehose idea).
#pragma once

#include "core/memory/unmapped_ranges.hpp"

#include <ccs/ccs.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ccs {

struct region {
    uintptr_t start = 0;  // page aligned
    uintptr_t end = 0;    // page aligned, exclusive
    uint64_t id = 0;      // unique per process, never reused
    int64_t refs = 0;
    bool findable = true;  // in the lookup map
    std::list<region *>::iterator lru;  // valid while unused and findable
    // The backend's: one entry per transport.
    std::vector<void *> handles;

    size_t bytes() const { return end - start; }
};

class registration_backend {
public:
    virtual ~registration_backend() = default;
    // Registers [r.start, r.end) with every transport, filling r.handles.
    // CCS_ERR_NO_RESOURCES means a transport's limit is reached: the cache
    // evicts and retries. Anything else fails the registration.
    virtual ccs_status_t mem_reg(region &r) = 0;
    virtual void mem_dereg(region &r) = 0;
    // On a miss, before the request [start, end) is merged with cached
    // regions (whose pages may have been unmapped since: they are kept
    // lazily): whether the request itself can be registered.
    virtual ccs_status_t check_range(uintptr_t start, uintptr_t end) {
        (void)start;
        (void)end;
        return CCS_OK;
    }
};

struct registration_stats {
    uint64_t hits = 0;             // requests a cached region covered
    uint64_t misses = 0;
    uint64_t registrations = 0;    // successful backend mem_reg calls
    uint64_t deregistrations = 0;  // backend mem_dereg calls
    uint64_t evictions = 0;        // deregistrations of unused regions (threshold or limit)
    uint64_t limit_retries = 0;    // mem_reg calls repeated after a reported limit
    uint64_t regions = 0;          // registered now
    uint64_t registered_bytes = 0;
    uint64_t unused_bytes = 0;     // registered, no user
};

class registration_cache {
public:
    registration_cache(registration_backend &backend, size_t max_unused_bytes);
    ~registration_cache();  // deregisters everything still registered
    registration_cache(const registration_cache &) = delete;
    registration_cache &operator=(const registration_cache &) = delete;

    // A referenced region covering [addr, addr + len), len > 0.
    ccs_status_t acquire(const void *addr, size_t len, region *&out);
    void release(region *r);
    // Deregisters every unused region now.
    void flush();
    // The pages [addr, addr + len) are being unmapped: no later request may
    // hit a region over them. Unused ones are deregistered, used ones leave
    // the lookup map (their users still release them).
    void invalidate(const void *addr, size_t len);
    // The same, reported by a transport's memory hooks from any thread at
    // any moment: acted on before the next request is looked up.
    void note_unmapped(const void *addr, size_t len) {
        const auto start = reinterpret_cast<uintptr_t>(addr);
        unmapped_.add(start & ~(page_ - 1), start + len);
    }

    const registration_stats &stats() const { return stats_; }
    size_t page_size() const { return page_; }

private:
    region *lookup(uintptr_t start, uintptr_t end) const;
    void take(region *r);  // a new reference to a findable region
    void detach(region *r);
    void destroy(region *r, bool eviction);
    bool evict_one();
    void trim();

    registration_backend &backend_;
    size_t page_;
    unmapped_ranges unmapped_;
    size_t max_unused_;
    uint64_t next_id_ = 1;
    std::map<uintptr_t, region *> by_start_;  // findable regions, disjoint
    std::list<region *> unused_;              // findable, refs == 0; front = least recent
    std::unordered_map<region *, std::unique_ptr<region>> owned_;
    registration_stats stats_;
};

}  // namespace ccs
