// Remote keys as capabilities and the errors of RMA: what a key allows,
// what a stale or damaged one is refused, and that every failure says
// what failed. On every plugin configuration.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstring>
#include <string>

using namespace conformance;

namespace {

// Leaves an unrelated failure behind, so a test can tell a call's own
// detail from whatever came before it.
void leave_an_older_error() {
    EXPECT_EQ(ccs_mem_deregister(ccs_mem_t{~uint64_t{0}}), CCS_ERR_INVALID_MEMORY);
    ASSERT_NE(std::string(ccs_last_error()).find("never registered"), std::string::npos);
}

}  // namespace

TEST(RmaErrors, OperationsThatFailLaterSayWhatFailed) {
    scoped_context ctx("rma-error-detail");
    // An address nobody registered: the target refuses the implicit key
    // only when the request arrives, after the call returned.
    std::vector<uint8_t> unregistered(4096, 0xEE);
    const shared_bytes where = share_with_everyone({}, reinterpret_cast<uintptr_t>(unregistered.data()));
    const uint64_t there = where.words[static_cast<size_t>(right())];
    const uint64_t junk = 7;
    if (right() != rank()) {
        leave_an_older_error();
        EXPECT_EQ(ccs_put_sync(ctx, right(), &junk, 8, there, CCS_RKEY_IMPLICIT), CCS_ERR_NOT_REGISTERED);
        const std::string sync_detail = ccs_last_error();
        EXPECT_TRUE(mentions(sync_detail, "ccs_put_sync") && mentions(sync_detail, "rank " + std::to_string(right())))
            << sync_detail;

        ccs_counter_t counter;
        CCS_EXPECT_OK(ccs_counter_init(&counter));
        struct seen {
            ccs_status_t status = CCS_OK;
            std::string detail;
        } in_callback;
        const ccs_completion_t both{[](ccs_status_t st, void *arg) {
                                        auto *s = static_cast<seen *>(arg);
                                        s->status = st;
                                        s->detail = ccs_last_error();
                                    },
                                    &in_callback, &counter};
        uint64_t back = 0;
        CCS_EXPECT_OK(ccs_get(ctx, right(), &back, 8, there, CCS_RKEY_IMPLICIT, &both));
        leave_an_older_error();
        EXPECT_EQ(ccs_counter_wait(&counter, 1), CCS_ERR_NOT_REGISTERED);
        const std::string wait_detail = ccs_last_error();
        EXPECT_TRUE(mentions(wait_detail, "ccs_counter_wait") && mentions(wait_detail, "get of 8 bytes"))
            << wait_detail;
        EXPECT_EQ(in_callback.status, CCS_ERR_NOT_REGISTERED);
        EXPECT_TRUE(mentions(in_callback.detail, "get of 8 bytes from rank " + std::to_string(right())))
            << in_callback.detail;
    }
    CCS_EXPECT_OK(ccs_barrier());
    for (uint8_t b : unregistered) ASSERT_EQ(b, 0xEE) << "a refused put wrote";
    CCS_EXPECT_OK(ccs_barrier());
}

namespace {

// One registration per rank, its key unpacked by every rank.
struct shared_registration {
    std::vector<uint8_t> heap;
    void *base = nullptr;
    size_t length = 0;
    ccs_mem_t mem{};
    bool allocated = false;
    std::vector<uint8_t> key;        // this rank's, packed
    shared_bytes all;                // everyone's key and base
    std::vector<ccs_rkey_t> rkeys;   // everyone's, unpacked

    shared_registration(bool allocate, size_t bytes) : length(bytes), allocated(allocate) {
        if (allocate) {
            CCS_EXPECT_OK(ccs_mem_alloc(bytes, &base, &mem));
        } else {
            heap.assign(bytes, 0);
            base = heap.data();
            CCS_EXPECT_OK(ccs_mem_register(base, bytes, &mem));
        }
        key = packed_key(mem);
        all = share_with_everyone(key, reinterpret_cast<uintptr_t>(base));
        for (int r = 0; r < size(); ++r) {
            ccs_rkey_t k{};
            const auto &bytes_of = all.bytes[static_cast<size_t>(r)];
            CCS_EXPECT_OK(ccs_rkey_unpack(r, bytes_of.data(), bytes_of.size(), &k));
            rkeys.push_back(k);
        }
    }
    uint64_t base_of(int r) const { return all.words[static_cast<size_t>(r)]; }
    ccs_status_t end() { return allocated ? ccs_mem_free(mem) : ccs_mem_deregister(mem); }
};

}  // namespace

class RmaKeys : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(RmaKeys, RmaKeys, window_kinds(), window_kind_name);

// A key is verifiable: any change to its bytes, a cut, or bytes that are
// no key at all are refused, and nothing else happens: the real key still
// works and no byte outside the registration moved.
TEST_P(RmaKeys, DamagedKeysAreRefusedAndTheRealOneStillWorks) {
    scoped_context ctx("rma-damaged-keys");
    shared_registration reg(GetParam(), 4096);
    const std::vector<uint8_t> &real = reg.all.bytes[static_cast<size_t>(right())];
    int refused = 0, tried = 0;
    for (size_t i = 0; i < real.size(); ++i)
        for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
            std::vector<uint8_t> bad = real;
            bad[i] ^= flip;
            ccs_rkey_t k{12345};
            const ccs_status_t st = ccs_rkey_unpack(right(), bad.data(), bad.size(), &k);
            ++tried;
            if (st == CCS_ERR_INVALID_KEY && k.id == 12345) ++refused;
            else ADD_FAILURE() << "byte " << i << " ^ " << int(flip) << ": " << ccs_strerror(st);
        }
    EXPECT_EQ(refused, tried);
    for (size_t cut = 0; cut < real.size(); ++cut)
        EXPECT_EQ(ccs_rkey_unpack(right(), real.data(), cut, &reg.rkeys[0]), CCS_ERR_INVALID_KEY) << "cut at " << cut;
    std::vector<uint8_t> longer = real;
    longer.push_back(0);
    EXPECT_EQ(ccs_rkey_unpack(right(), longer.data(), longer.size(), &reg.rkeys[0]), CCS_ERR_INVALID_KEY);
    std::vector<uint8_t> noise(real.size());
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<uint8_t>(i * 131 + 7);
    EXPECT_EQ(ccs_rkey_unpack(right(), noise.data(), noise.size(), &reg.rkeys[0]), CCS_ERR_INVALID_KEY);
    EXPECT_NE(std::string(ccs_last_error()).find("tag does not match"), std::string::npos) << ccs_last_error();
    // Another rank's key is refused for this owner, tag and all.
    if (size() > 1) {
        const std::vector<uint8_t> &mine = reg.all.bytes[static_cast<size_t>(rank())];
        ccs_rkey_t k{};
        EXPECT_EQ(ccs_rkey_unpack(right(), mine.data(), mine.size(), &k), CCS_ERR_INVALID_KEY);
    }
    // The real key still works, and reaches no byte outside its region.
    const uint64_t value = 0xfeed0000u + static_cast<uint64_t>(rank());
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &value, 8, reg.base_of(right()) + 8, reg.rkeys[static_cast<size_t>(right())]));
    EXPECT_EQ(ccs_put_sync(ctx, right(), &value, 8, reg.base_of(right()) + 4096, reg.rkeys[static_cast<size_t>(right())]),
              CCS_ERR_OUT_OF_RANGE);
    CCS_EXPECT_OK(ccs_barrier());
    uint64_t seen = 0;
    std::memcpy(&seen, static_cast<uint8_t *>(reg.base) + 8, 8);
    EXPECT_EQ(seen, 0xfeed0000u + static_cast<uint64_t>(left()));
    for (ccs_rkey_t k : reg.rkeys) CCS_EXPECT_OK(ccs_rkey_release(k));
    CCS_EXPECT_OK(reg.end());
    CCS_EXPECT_OK(ccs_barrier());
}

// After the owner deregisters (or frees), every key to the registration is
// stale: put, get and ccs_rkey_ptr through it are refused on whatever path
// they would take, and a new registration of the same memory does not
// revive it. The owner's bytes are untouched.
TEST_P(RmaKeys, StaleKeysAreRefusedOnEveryPath) {
    scoped_context ctx("rma-stale-keys");
    shared_registration reg(GetParam(), 8192);
    std::memset(reg.base, 0x5a, reg.length);
    CCS_EXPECT_OK(ccs_barrier());
    const ccs_rkey_t there = reg.rkeys[static_cast<size_t>(right())];
    const uint64_t at = reg.base_of(right()) + 64;
    const uint64_t value = 1;
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &value, 8, at, there));  // live: works
    CCS_EXPECT_OK(ccs_barrier());
    std::memset(reg.base, 0x5a, reg.length);
    // Ended, and (registered memory) the same pages registered again, so
    // whatever the owner has there now is registered and mapped.
    CCS_EXPECT_OK(reg.end());
    ccs_mem_t again{};
    if (!GetParam()) CCS_EXPECT_OK(ccs_mem_register(reg.base, reg.length, &again));
    CCS_EXPECT_OK(ccs_barrier());
    uint64_t small[4] = {2, 2, 2, 2};
    std::vector<uint8_t> large(6000, 3);
    const ccs_rkey_t keys[] = {there};
    for (ccs_rkey_t k : keys) {
        leave_an_older_error();
        EXPECT_EQ(ccs_put_sync(ctx, right(), small, 8, at, k), CCS_ERR_INVALID_KEY) << ccs_last_error();
        EXPECT_TRUE(mentions(ccs_last_error(), "stale")) << ccs_last_error();
        EXPECT_EQ(ccs_get_sync(ctx, right(), small, 32, at, k), CCS_ERR_INVALID_KEY) << ccs_last_error();
        EXPECT_EQ(ccs_put_sync(ctx, right(), large.data(), large.size(), reg.base_of(right()), k), CCS_ERR_INVALID_KEY);
        // The non-blocking forms: refused at the call or in the counter.
        ccs_counter_t counter;
        CCS_EXPECT_OK(ccs_counter_init(&counter));
        const ccs_completion_t done{nullptr, nullptr, &counter};
        const ccs_status_t st = ccs_put(ctx, right(), small, 8, at, k, &done);
        if (st == CCS_OK) EXPECT_EQ(ccs_counter_wait(&counter, 1), CCS_ERR_INVALID_KEY);
        else EXPECT_EQ(st, CCS_ERR_INVALID_KEY);
        void *p = &p;
        const ccs_status_t ptr_st = ccs_rkey_ptr(k, at, 8, &p);
        EXPECT_TRUE(ptr_st == CCS_ERR_INVALID_KEY || (right() != rank() && ptr_st == CCS_ERR_UNSUPPORTED &&
                                                      !(peer_flags(right()) & CCS_PEER_SAME_NODE)))
            << ccs_strerror(ptr_st);
        EXPECT_EQ(p, nullptr);
        CCS_EXPECT_OK(ccs_fence(ctx, right()));
    }
    // The packed bytes of the ended registration no longer unpack where
    // the owner's liveness is readable; elsewhere they unpack, and every
    // access through them is refused by the owner.
    const std::vector<uint8_t> &old_bytes = reg.all.bytes[static_cast<size_t>(right())];
    ccs_rkey_t late{};
    const ccs_status_t unpacked = ccs_rkey_unpack(right(), old_bytes.data(), old_bytes.size(), &late);
    if (unpacked == CCS_OK) {
        EXPECT_EQ(ccs_put_sync(ctx, right(), small, 8, at, late), CCS_ERR_INVALID_KEY);
        CCS_EXPECT_OK(ccs_rkey_release(late));
    } else {
        EXPECT_EQ(unpacked, CCS_ERR_INVALID_KEY);
    }
    CCS_EXPECT_OK(ccs_barrier());
    for (size_t i = 0; i < reg.length && GetParam() == false; ++i)
        ASSERT_EQ(static_cast<uint8_t *>(reg.base)[i], 0x5a) << "a stale key wrote at " << i;
    for (ccs_rkey_t k : reg.rkeys) CCS_EXPECT_OK(ccs_rkey_release(k));
    if (!GetParam()) CCS_EXPECT_OK(ccs_mem_deregister(again));
    CCS_EXPECT_OK(ccs_barrier());
}

// Blocks from ccs_mem_alloc that lie side by side stay separate
// registrations: each one is mapped by peers that map memory, or
// ccs_rkey_ptr says why not.
TEST(RmaKeys, AdjacentAllocationsAreEachMappedOrSayWhyNot) {
    constexpr int blocks = 6;
    std::vector<void *> base(blocks);
    std::vector<ccs_mem_t> mem(blocks);
    for (int i = 0; i < blocks; ++i) CCS_ASSERT_OK(ccs_mem_alloc(4096, &base[static_cast<size_t>(i)], &mem[static_cast<size_t>(i)]));
    int adjacent = 0;
    for (int i = 1; i < blocks; ++i) {
        const auto a = reinterpret_cast<uintptr_t>(base[static_cast<size_t>(i - 1)]);
        const auto b = reinterpret_cast<uintptr_t>(base[static_cast<size_t>(i)]);
        if (a + 4096 == b || b + 4096 == a) ++adjacent;
    }
    RecordProperty("adjacent_pairs", adjacent);
    // Routes are symmetric: the left neighbour maps this process's blocks
    // exactly when this process maps its own.
    const bool maps = size() > 1 && (peer_flags(right()) & CCS_PEER_MAPS_MEMORY);
    const bool left_maps = size() > 1 && (peer_flags(left()) & CCS_PEER_MAPS_MEMORY);
    for (int i = 0; i < blocks; ++i) {
        auto *bytes = static_cast<uint8_t *>(base[static_cast<size_t>(i)]);
        std::memset(bytes, 0, 4096);
        const shared_bytes all = share_with_everyone(packed_key(mem[static_cast<size_t>(i)]), reinterpret_cast<uintptr_t>(bytes));
        const auto &theirs = all.bytes[static_cast<size_t>(right())];
        ccs_rkey_t k{};
        CCS_EXPECT_OK(ccs_rkey_unpack(right(), theirs.data(), theirs.size(), &k));
        void *p = nullptr;
        const ccs_status_t st = ccs_rkey_ptr(k, all.words[static_cast<size_t>(right())] + 100, 8, &p);
        if (maps || size() == 1) {
            CCS_EXPECT_OK(st);
            ASSERT_NE(p, nullptr);
            const uint64_t mark = 0xb10c0000u + static_cast<uint64_t>(i);
            std::memcpy(p, &mark, 8);
        } else {
            EXPECT_EQ(st, CCS_ERR_UNSUPPORTED);
            EXPECT_EQ(p, nullptr);
            EXPECT_TRUE(mentions(ccs_last_error(), "not mapped")) << ccs_last_error();
        }
        CCS_EXPECT_OK(ccs_barrier());
        if (left_maps || size() == 1) {
            uint64_t seen = 0;
            std::memcpy(&seen, bytes + 100, 8);
            EXPECT_EQ(seen, 0xb10c0000u + static_cast<uint64_t>(i)) << "block " << i;
        }
        CCS_EXPECT_OK(ccs_rkey_release(k));
        CCS_EXPECT_OK(ccs_barrier());
    }
    // A registration inside a block keeps the block until it ends.
    ccs_mem_t inside{};
    CCS_EXPECT_OK(ccs_mem_register(static_cast<uint8_t *>(base[0]) + 64, 128, &inside));
    EXPECT_EQ(ccs_mem_free(mem[0]), CCS_ERR_INVALID_MEMORY);
    EXPECT_TRUE(mentions(ccs_last_error(), "still live")) << ccs_last_error();
    CCS_EXPECT_OK(ccs_mem_deregister(inside));
    for (ccs_mem_t m : mem) CCS_EXPECT_OK(ccs_mem_free(m));
    CCS_EXPECT_OK(ccs_barrier());
}
