// Memory hooks and the registration cache: once the application unmaps
// memory a cached region covered (munmap, or free of a large malloc block),
// the next request over those pages registers anew, and the old region is
// deregistered as soon as nobody uses it. Real hooks (the verbs plugin's
// unmap watch, on UCX's UCM), so its own test binary, out of the
// ThreadSanitizer job.
#include "core/memory/registration_cache.hpp"
#include "verbs_unmap_watch.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

namespace {

class counting_backend : public ccs::registration_backend {
public:
    ccs_status_t mem_reg(ccs::region &r) override {
        live.insert(r.start);
        return CCS_OK;
    }
    void mem_dereg(ccs::region &r) override { live.erase(r.start); ++deregistered; }
    std::set<uintptr_t> live;
    int deregistered = 0;
};

// The core's side: what the hooks report goes to the cache.
ccs_plugin_services_v1_t services_for(ccs::registration_cache &cache) {
    ccs_plugin_services_v1_t s{};
    s.struct_size = sizeof s;
    s.core = &cache;
    s.log = [](void *, int32_t, const char *) {};
    s.mem_unmapped = [](void *core, const void *addr, size_t length) {
        static_cast<ccs::registration_cache *>(core)->note_unmapped(addr, length);
    };
    return s;
}

class UnmapWatch : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        ASSERT_TRUE(watch.start(why)) << why;
    }
    counting_backend backend;
    ccs::registration_cache cache{backend, size_t{1} << 30};
    ccs::verbs::unmap_watch watch{ccs::plugin::core_services(services_for(cache), "verbs")};
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
};

TEST_F(UnmapWatch, AnUnusedRegionOverUnmappedPagesIsDeregisteredAndNotHitAgain) {
    void *a = mmap(nullptr, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(a, MAP_FAILED);
    ccs::region *r = nullptr;
    ASSERT_EQ(cache.acquire(a, 8 * page, r), CCS_OK);
    const uint64_t first = r->id;
    cache.release(r);
    ASSERT_EQ(cache.acquire(a, page, r), CCS_OK);
    EXPECT_EQ(r->id, first) << "cached: a hit";
    cache.release(r);
    munmap(static_cast<char *>(a) + 2 * page, page);  // a hole in the middle
    void *again = mmap(static_cast<char *>(a) + 2 * page, page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    ASSERT_NE(again, MAP_FAILED);
    ASSERT_EQ(cache.acquire(a, 8 * page, r), CCS_OK);
    EXPECT_NE(r->id, first) << "registered anew over the new pages";
    EXPECT_EQ(backend.deregistered, 1);
    cache.release(r);
    munmap(a, 8 * page);
}

TEST_F(UnmapWatch, ARegionInUseLeavesTheLookupAndGoesWhenReleased) {
    void *a = mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(a, MAP_FAILED);
    ccs::region *held = nullptr, *r = nullptr;
    ASSERT_EQ(cache.acquire(a, 4 * page, held), CCS_OK);
    munmap(a, 4 * page);
    void *b = mmap(a, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    ASSERT_EQ(b, a);
    ASSERT_EQ(cache.acquire(b, 4 * page, r), CCS_OK);
    EXPECT_NE(r, held);
    EXPECT_EQ(backend.deregistered, 0) << "still in use";
    cache.release(held);
    EXPECT_EQ(backend.deregistered, 1);
    cache.release(r);
    munmap(b, 4 * page);
}

TEST_F(UnmapWatch, FreeingALargeMallocBlockCounts) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator keeps freed blocks mapped (its quarantine)";
#endif
    const size_t n = 8 << 20;  // beyond malloc's mmap threshold
    void *p = std::malloc(n);
    ASSERT_NE(p, nullptr);
    ccs::region *r = nullptr;
    ASSERT_EQ(cache.acquire(p, n, r), CCS_OK);
    cache.release(r);
    std::free(p);
    void *q = std::malloc(1);  // any later request looks at what was reported
    ASSERT_EQ(cache.acquire(q, 1, r), CCS_OK);
    cache.release(r);
    std::free(q);
    EXPECT_EQ(backend.deregistered, 1) << "the region over the freed block is gone";
}

}  // namespace
