// The registration cache, counted by its backend's calls: hits make none,
// misses merge what they overlap or touch, unused regions stay until the
// threshold, and a reported limit evicts and retries.
#include "core/memory/registration_cache.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <set>
#include <utility>
#include <vector>

namespace {

// Records every call and what is registered now; can play a limit.
class recording_backend : public ccs::registration_backend {
public:
    ccs_status_t mem_reg(ccs::region &r) override {
        ++reg_calls;
        if (limit_regions && live.size() >= limit_regions) return CCS_ERR_NO_RESOURCES;
        if (fail_next) {
            fail_next = false;
            return CCS_ERR_TRANSPORT;
        }
        live.insert({r.start, r.end});
        return CCS_OK;
    }
    ccs_status_t check_range(uintptr_t start, uintptr_t end) override {
        checked.push_back({start, end});
        return refuse_range ? CCS_ERR_INVALID_MEMORY : CCS_OK;
    }
    void mem_dereg(ccs::region &r) override {
        ++dereg_calls;
        EXPECT_EQ(live.erase({r.start, r.end}), 1u) << "deregistered what was not registered";
    }
    int reg_calls = 0, dereg_calls = 0;
    size_t limit_regions = 0;
    bool fail_next = false;
    bool refuse_range = false;
    std::vector<std::pair<uintptr_t, uintptr_t>> checked;  // check_range calls
    std::multiset<std::pair<uintptr_t, uintptr_t>> live;
};

class RegistrationCache : public ::testing::Test {
protected:
    void SetUp() override {
        page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        memory.resize(64 * page);
        // A page-aligned base inside the buffer.
        const auto raw = reinterpret_cast<uintptr_t>(memory.data());
        base = reinterpret_cast<char *>((raw + page - 1) & ~(page - 1));
    }
    char *at(size_t pages) { return base + pages * page; }
    size_t page = 4096;
    std::vector<char> memory;
    char *base = nullptr;
    recording_backend backend;
};

TEST_F(RegistrationCache, HitMakesNoBackendCall) {
    ccs::registration_cache cache(backend, 1 << 30);
    ccs::region *a = nullptr, *b = nullptr;
    ASSERT_EQ(cache.acquire(at(1) + 10, 3 * page, a), CCS_OK);
    EXPECT_EQ(a->start, reinterpret_cast<uintptr_t>(at(1)));
    EXPECT_EQ(a->end, reinterpret_cast<uintptr_t>(at(5)));  // 10 + 3 pages spills into a 4th
    ASSERT_EQ(cache.acquire(at(2), page, b), CCS_OK);       // inside: a hit
    EXPECT_EQ(a, b);
    EXPECT_EQ(backend.reg_calls, 1);
    EXPECT_EQ(cache.stats().hits, 1u);
    EXPECT_EQ(cache.stats().misses, 1u);
    EXPECT_EQ(a->refs, 2);
    cache.release(a);
    cache.release(b);
    EXPECT_EQ(backend.dereg_calls, 0) << "lazy: unused regions stay registered";
    EXPECT_EQ(cache.stats().unused_bytes, 4 * page);
    ccs::region *again = nullptr;
    ASSERT_EQ(cache.acquire(at(3), 1, again), CCS_OK);  // still cached while unused
    EXPECT_EQ(backend.reg_calls, 1);
    EXPECT_EQ(cache.stats().unused_bytes, 0u);
    cache.release(again);
}

// The backend checks only what a miss asks for, before merging: cached
// neighbours (whose pages may be gone by now) are not its business, and a
// refused request leaves the cache as it was.
TEST_F(RegistrationCache, MissesCheckTheRequestAloneAndARefusalChangesNothing) {
    ccs::registration_cache cache(backend, 1 << 30);
    ccs::region *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(cache.acquire(at(1), 2 * page, a), CCS_OK);
    ASSERT_EQ(cache.acquire(at(2), page, b), CCS_OK);  // a hit: not checked
    ASSERT_EQ(backend.checked.size(), 1u);
    cache.release(b);
    ASSERT_EQ(cache.acquire(at(3), page, c), CCS_OK);  // touches a: merged, but only the request checked
    ASSERT_EQ(backend.checked.size(), 2u);
    EXPECT_EQ(backend.checked[1].first, reinterpret_cast<uintptr_t>(at(3)));
    EXPECT_EQ(backend.checked[1].second, reinterpret_cast<uintptr_t>(at(4)));
    backend.refuse_range = true;
    const int regs = backend.reg_calls;
    const auto stats = cache.stats();
    ccs::region *refused = nullptr;
    EXPECT_EQ(cache.acquire(at(4), page, refused), CCS_ERR_INVALID_MEMORY);  // touches c, refused
    EXPECT_EQ(refused, nullptr);
    EXPECT_EQ(backend.reg_calls, regs);
    EXPECT_EQ(cache.stats().regions, stats.regions);
    EXPECT_EQ(cache.stats().registered_bytes, stats.registered_bytes);
    backend.refuse_range = false;
    ccs::region *d = nullptr;
    ASSERT_EQ(cache.acquire(at(3), page, d), CCS_OK);  // c is still there: a hit
    EXPECT_EQ(d, c);
    cache.release(a);
    cache.release(c);
    cache.release(d);
}

TEST_F(RegistrationCache, OverlappingAndAdjacentRequestsMerge) {
    ccs::registration_cache cache(backend, 1 << 30);
    ccs::region *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(cache.acquire(at(0), 2 * page, a), CCS_OK);   // [0, 2)
    ASSERT_EQ(cache.acquire(at(4), 2 * page, b), CCS_OK);   // [4, 6)
    cache.release(b);                                        // unused now
    ASSERT_EQ(cache.acquire(at(2), 2 * page, c), CCS_OK);   // [2, 4) touches both
    EXPECT_EQ(c->start, reinterpret_cast<uintptr_t>(at(0)));
    EXPECT_EQ(c->end, reinterpret_cast<uintptr_t>(at(6)));
    EXPECT_EQ(backend.reg_calls, 3);
    // b was unused and replaced: deregistered now; a is in use: kept.
    EXPECT_EQ(backend.dereg_calls, 1);
    EXPECT_EQ(backend.live.size(), 2u);
    cache.release(a);  // a left the lookup map, so its last release deregisters it
    EXPECT_EQ(backend.dereg_calls, 2);
    ccs::region *d = nullptr;
    ASSERT_EQ(cache.acquire(at(1), 4 * page, d), CCS_OK);  // covered by the merged region
    EXPECT_EQ(d, c);
    EXPECT_EQ(backend.reg_calls, 3);
    cache.release(c);
    cache.release(d);
}

TEST_F(RegistrationCache, UnusedBytesAboveThresholdEvictLeastRecentlyUsed) {
    ccs::registration_cache cache(backend, 4 * page);
    ccs::region *r[3];
    for (int i = 0; i < 3; ++i) ASSERT_EQ(cache.acquire(at(10 * i), 2 * page, r[i]), CCS_OK);
    cache.release(r[1]);
    cache.release(r[0]);  // unused: 4 pages, at the threshold
    EXPECT_EQ(backend.dereg_calls, 0);
    cache.release(r[2]);  // 6 pages: the least recently released (r[1]) goes
    EXPECT_EQ(backend.dereg_calls, 1);
    EXPECT_EQ(cache.stats().evictions, 1u);
    EXPECT_EQ(backend.live.count({reinterpret_cast<uintptr_t>(at(10)), reinterpret_cast<uintptr_t>(at(12))}), 0u);
    EXPECT_EQ(cache.stats().unused_bytes, 4 * page);
    cache.flush();
    EXPECT_EQ(backend.live.size(), 0u);
    EXPECT_EQ(cache.stats().regions, 0u);
}

TEST_F(RegistrationCache, ReportedLimitEvictsUnusedAndRetries) {
    ccs::registration_cache cache(backend, 1 << 30);
    backend.limit_regions = 2;
    ccs::region *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(cache.acquire(at(0), page, a), CCS_OK);
    ASSERT_EQ(cache.acquire(at(10), page, b), CCS_OK);
    cache.release(a);
    ASSERT_EQ(cache.acquire(at(20), page, c), CCS_OK);  // full: a is evicted, then it fits
    EXPECT_EQ(cache.stats().limit_retries, 1u);
    EXPECT_EQ(cache.stats().evictions, 1u);
    // Everything in use: the limit is an error, and nothing is lost.
    ccs::region *d = nullptr;
    EXPECT_EQ(cache.acquire(at(30), page, d), CCS_ERR_NO_RESOURCES);
    EXPECT_EQ(backend.live.size(), 2u);
    EXPECT_EQ(b->refs, 1);
    EXPECT_EQ(c->refs, 1);
    cache.release(b);
    cache.release(c);
}

TEST_F(RegistrationCache, FailedMergeLeavesTheOldRegionsUsable) {
    ccs::registration_cache cache(backend, 1 << 30);
    ccs::region *a = nullptr, *b = nullptr;
    ASSERT_EQ(cache.acquire(at(0), 2 * page, a), CCS_OK);
    cache.release(a);
    backend.fail_next = true;
    EXPECT_EQ(cache.acquire(at(1), 4 * page, b), CCS_ERR_TRANSPORT);
    EXPECT_EQ(backend.live.size(), 1u);
    ASSERT_EQ(cache.acquire(at(0), page, b), CCS_OK);  // the old region is still there
    EXPECT_EQ(b, a);
    EXPECT_EQ(backend.reg_calls, 2);
    cache.release(b);
}

TEST_F(RegistrationCache, BadRangesAreRefused) {
    ccs::registration_cache cache(backend, 1 << 30);
    ccs::region *r = nullptr;
    EXPECT_EQ(cache.acquire(at(0), 0, r), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(cache.acquire(reinterpret_cast<void *>(UINTPTR_MAX - 10), 100, r), CCS_ERR_INVALID_ARG);
    EXPECT_EQ(backend.reg_calls, 0);
}

TEST_F(RegistrationCache, DestructionDeregistersEverything) {
    {
        ccs::registration_cache cache(backend, 1 << 30);
        ccs::region *a = nullptr, *b = nullptr;
        ASSERT_EQ(cache.acquire(at(0), page, a), CCS_OK);
        ASSERT_EQ(cache.acquire(at(8), page, b), CCS_OK);
        cache.release(b);
    }
    EXPECT_EQ(backend.live.size(), 0u);
    EXPECT_EQ(backend.dereg_calls, 2);
}

}  // namespace
