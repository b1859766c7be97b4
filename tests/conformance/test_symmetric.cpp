// Symmetric allocation on every plugin configuration: parts of different
// lengths reached by the caller's own addresses (CCS_RKEY_SYMMETRIC) with
// put, get, datadesc put, atomics and accumulate; the same address in every
// process unless the configuration asks for offsets
// (CCS_SYMMETRIC_ADDRESS=offset), also where rank 0's address is taken in
// another process; node peers' parts by load and store; and
// bad input on one process failing the call on all, with nothing lost.
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/coll.h>
#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace conformance;

namespace {


bool offsets_asked() {
    const char *v = std::getenv("CCS_SYMMETRIC_ADDRESS");
    return v && std::string(v) == "offset";
}

// A part of 4 KiB per rank number plus 64 bytes: no two ranks alike.
size_t part_length(int r) { return 4096 * static_cast<size_t>(r + 1) + 64; }

struct symmetric {
    explicit symmetric(size_t length) { CCS_EXPECT_OK(ccs_mem_alloc_symmetric(length, &base, &mem)); }
    ~symmetric() {
        if (base) CCS_EXPECT_OK(ccs_mem_free_symmetric(mem));
    }
    uint8_t *bytes() const { return static_cast<uint8_t *>(base); }
    uint64_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(bytes() + offset); }
    void *base = nullptr;
    ccs_mem_t mem{};
};

}  // namespace

TEST(Symmetric, PartsAreReachedByTheCallersOwnAddresses) {
    scoped_context ctx("symmetric-reach");
    symmetric s(part_length(rank()));
    ASSERT_NE(s.base, nullptr);
    int same = -1;
    size_t span = 0;
    CCS_ASSERT_OK(ccs_mem_symmetric_query(s.mem, &same, &span));
    EXPECT_EQ(span, (part_length(size() - 1) + 4095) / 4096 * 4096);
    if (!offsets_asked() || size() == 1) {
        EXPECT_EQ(same, 1) << "the address space was free everywhere";
    }
    for (int r = 0; r < size(); ++r) {
        uint64_t theirs = 0;
        CCS_ASSERT_OK(ccs_mem_symmetric_address(s.bytes() + 100, r, &theirs));
        if (same == 1 || r == rank()) {
            EXPECT_EQ(theirs, s.at(100));
        }
    }
    // The new part is zeroed, like ccs_mem_alloc's.
    size_t nonzero = 0;
    for (size_t i = 0; i < part_length(rank()); ++i) nonzero += s.bytes()[i] != 0;
    EXPECT_EQ(nonzero, 0u);
    CCS_ASSERT_OK(ccs_barrier());

    // A put into the right neighbour at the end of its own part (longer or
    // shorter than this one), a get of what the left one put here.
    const size_t into_right = part_length(right()) - 64;
    std::vector<uint8_t> out(64);
    fill_pattern(out, 0x5e11, static_cast<uint64_t>(rank()));
    CCS_ASSERT_OK(ccs_put_sync(ctx, right(), out.data(), out.size(), s.at(into_right), CCS_RKEY_SYMMETRIC));
    CCS_ASSERT_OK(ccs_barrier());
    EXPECT_TRUE(check_pattern(s.bytes() + part_length(rank()) - 64, 64, 0x5e11, static_cast<uint64_t>(left())));
    std::vector<uint8_t> back(64);
    CCS_ASSERT_OK(ccs_get_sync(ctx, right(), back.data(), back.size(), s.at(into_right), CCS_RKEY_SYMMETRIC));
    EXPECT_TRUE(check_pattern(back.data(), back.size(), 0x5e11, static_cast<uint64_t>(rank())));

    // Nonblocking, counted, and a datadesc put of every other 8 bytes.
    ccs_counter_t done;
    ccs_counter_init(&done);
    const ccs_completion_t c{nullptr, nullptr, &done};
    const uint64_t word = 0xfeed0000u + static_cast<uint64_t>(rank());
    CCS_ASSERT_OK(ccs_put(ctx, right(), &word, 8, s.at(256), CCS_RKEY_SYMMETRIC, &c));
    ccs_datadesc_t strided{}, eight{};
    CCS_ASSERT_OK(ccs_datadesc_contiguous(8, CCS_BYTE, &eight));
    CCS_ASSERT_OK(ccs_datadesc_vector(4, 1, 2, eight, &strided));
    CCS_ASSERT_OK(ccs_datadesc_commit(strided));
    const uint64_t four[4] = {1, 2, 3, 4};
    CCS_ASSERT_OK(ccs_put_datadesc(ctx, right(), four, 32, CCS_BYTE, s.at(512), 1, strided, CCS_RKEY_SYMMETRIC, &c));
    CCS_ASSERT_OK(ccs_counter_wait(&done, 2));
    CCS_ASSERT_OK(ccs_barrier());
    uint64_t seen = 0;
    std::memcpy(&seen, s.bytes() + 256, 8);
    EXPECT_EQ(seen, 0xfeed0000u + static_cast<uint64_t>(left()));
    for (int i = 0; i < 4; ++i) {
        std::memcpy(&seen, s.bytes() + 512 + 16 * i, 8);
        EXPECT_EQ(seen, static_cast<uint64_t>(i + 1));
    }
    CCS_EXPECT_OK(ccs_datadesc_free(&strided));
    CCS_EXPECT_OK(ccs_datadesc_free(&eight));
    CCS_ASSERT_OK(ccs_barrier());
}

// Rank 0's part goes where its kernel finds room; rank 1 holds the address
// space around that place, so the first address tried is taken there. The
// call must find another address free everywhere, not fall back to offsets.
TEST(Symmetric, AnAddressTakenInOneProcessIsReplacedByOneFreeEverywhere) {
    if (offsets_asked() || size() < 2) GTEST_SKIP() << "needs two processes placing at one address";
    scoped_context ctx("symmetric-taken");
    ccs_team_t world{};
    CCS_ASSERT_OK(ccs_team_world(ctx, &world));
    const size_t length = 1 << 20;
    constexpr size_t around = size_t{1} << 30;
    uint64_t predicted = 0;
    if (rank() == 0) {
        void *p = ::mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        EXPECT_NE(p, MAP_FAILED);
        if (p != MAP_FAILED) ::munmap(p, length);
        predicted = p == MAP_FAILED ? 0 : reinterpret_cast<uintptr_t>(p);
    }
    CCS_ASSERT_OK(ccs_team_broadcast(world, &predicted, sizeof predicted, 0, nullptr));
    ASSERT_GT(predicted, around);
    const uintptr_t held_from = predicted - around;
    void *held = MAP_FAILED;
    if (rank() == 1) {
        held = ::mmap(reinterpret_cast<void *>(held_from), 2 * around, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        // Kernels before 4.17 take the flag as a hint.
        if (held != MAP_FAILED && held != reinterpret_cast<void *>(held_from)) {
            ::munmap(held, 2 * around);
            held = MAP_FAILED;
        }
    }
    // Rank 1's own mappings may lie in the range (rarely: address space
    // layouts are random); then nobody knows whether the first address is
    // taken, and every rank skips alike.
    uint64_t holding = held != MAP_FAILED;
    CCS_ASSERT_OK(ccs_team_broadcast(world, &holding, sizeof holding, 1, nullptr));
    if (!holding) GTEST_SKIP() << "rank 1 has mappings around rank 0's place";
    {
        symmetric s(length);
        ASSERT_NE(s.base, nullptr);
        int same = -1;
        CCS_ASSERT_OK(ccs_mem_symmetric_query(s.mem, &same, nullptr));
        EXPECT_EQ(same, 1);
        const uintptr_t at = reinterpret_cast<uintptr_t>(s.base);
        EXPECT_TRUE(at + length <= held_from || at >= held_from + 2 * around) << "the part lies in the held range";
        // The part is usable: the right neighbour's part at this address.
        std::vector<uint8_t> out(64);
        fill_pattern(out, 0x7a4e, static_cast<uint64_t>(rank()));
        CCS_ASSERT_OK(ccs_put_sync(ctx, right(), out.data(), out.size(), s.at(0), CCS_RKEY_SYMMETRIC));
        CCS_ASSERT_OK(ccs_barrier());
        EXPECT_TRUE(check_pattern(s.bytes(), 64, 0x7a4e, static_cast<uint64_t>(left())));
        CCS_ASSERT_OK(ccs_barrier());
    }
    if (held != MAP_FAILED) ::munmap(held, 2 * around);
}

// Every rank adds to rank 0's word M times and accumulates into its array:
// the sums come out exact, whichever way each rank's operations went.
TEST(Symmetric, AtomicsAndAccumulateReachTheSameLocationEverywhere) {
    scoped_context ctx("symmetric-atomics");
    symmetric s(4096);
    constexpr int adds = 50;
    for (int i = 0; i < adds; ++i)
        CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_UINT64, s.at(8), CCS_RKEY_SYMMETRIC, 1, 0, nullptr));
    const double ones[4] = {1, 1, 1, 1};
    const double two = 2;
    CCS_ASSERT_OK(ccs_accumulate_sync(ctx, 0, CCS_ACC_SUM, CCS_ACC_DOUBLE, ones, sizeof ones, s.at(64),
                                      CCS_RKEY_SYMMETRIC, &two, nullptr));
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        uint64_t sum = 0;
        std::memcpy(&sum, s.bytes() + 8, 8);
        EXPECT_EQ(sum, static_cast<uint64_t>(adds) * static_cast<uint64_t>(size()));
        for (int i = 0; i < 4; ++i) {
            double d = 0;
            std::memcpy(&d, s.bytes() + 64 + 8 * i, 8);
            EXPECT_EQ(d, 2.0 * size());
        }
    }
    uint64_t fetched = 0;
    CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_FETCH, CCS_UINT64, s.at(8), CCS_RKEY_SYMMETRIC, 0, 0, &fetched));
    EXPECT_EQ(fetched, static_cast<uint64_t>(adds) * static_cast<uint64_t>(size()));
    CCS_ASSERT_OK(ccs_barrier());
}

// Where the transport maps a node peer's memory, its part is a pointer away.
TEST(Symmetric, NodePeersPartsAreMappedWhereTheTransportMapsMemory) {
    symmetric s(4096);
    const bool maps = size() == 1 || (peer_flags(right()) & CCS_PEER_MAPS_MEMORY);
    void *p = nullptr;
    const ccs_status_t st = ccs_mem_symmetric_ptr(s.bytes() + 128, right(), 8, &p);
    if (maps) {
        CCS_ASSERT_OK(st);
        const uint64_t mark = 0xabc0u + static_cast<uint64_t>(rank());
        std::memcpy(p, &mark, 8);
    } else {
        EXPECT_EQ(st, CCS_ERR_UNSUPPORTED);
        EXPECT_EQ(p, nullptr);
        EXPECT_TRUE(mentions(ccs_last_error(), "ccs_mem_symmetric_ptr: ")) << ccs_last_error();
    }
    // Past the longest part: out of range, said by this call.
    EXPECT_EQ(ccs_mem_symmetric_ptr(s.bytes() + 4088, right(), 16, &p), CCS_ERR_OUT_OF_RANGE);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_mem_symmetric_ptr: ")) << ccs_last_error();
    CCS_ASSERT_OK(ccs_barrier());
    const bool left_maps = size() == 1 || (peer_flags(left()) & CCS_PEER_MAPS_MEMORY);
    if (left_maps) {
        uint64_t seen = 0;
        std::memcpy(&seen, s.bytes() + 128, 8);
        EXPECT_EQ(seen, 0xabc0u + static_cast<uint64_t>(left()));
    }
    CCS_ASSERT_OK(ccs_barrier());
}

// Addresses outside every part, or past the target's own part, fail with
// their own error and write nothing.
TEST(Symmetric, AddressesOutsideAPartAreRefusedAndChangeNothing) {
    scoped_context ctx("symmetric-bad");
    symmetric s(part_length(rank()));
    const uint64_t word = 0xbad;
    uint64_t stack_word = 0;
    EXPECT_EQ(ccs_put_sync(ctx, right(), &word, 8, reinterpret_cast<uintptr_t>(&stack_word), CCS_RKEY_SYMMETRIC),
              CCS_ERR_NOT_REGISTERED);
    EXPECT_TRUE(mentions(ccs_last_error(), "no symmetric allocation")) << ccs_last_error();
    EXPECT_EQ(ccs_atomic_sync(ctx, right(), CCS_ATOMIC_ADD, CCS_UINT64, reinterpret_cast<uintptr_t>(&stack_word),
                              CCS_RKEY_SYMMETRIC, 1, 0, nullptr),
              CCS_ERR_NOT_REGISTERED);
    uint64_t remote = 0;
    EXPECT_EQ(ccs_mem_symmetric_address(&stack_word, right(), &remote), CCS_ERR_NOT_REGISTERED);
    EXPECT_EQ(ccs_mem_symmetric_address(s.base, size(), &remote), CCS_ERR_INVALID_RANK);
    // Rank 0's part is the shortest: the span reaches past it.
    const size_t past_rank0 = part_length(0) + 4096;
    if (size() > 1 && rank() == 1) {
        const ccs_status_t st = ccs_put_sync(ctx, 0, &word, 8, s.at(past_rank0), CCS_RKEY_SYMMETRIC);
        EXPECT_EQ(st, CCS_ERR_OUT_OF_RANGE) << ccs_last_error();
    }
    CCS_ASSERT_OK(ccs_barrier());
    EXPECT_EQ(stack_word, 0u);
    size_t nonzero = 0;
    for (size_t i = 0; i < part_length(rank()); ++i) nonzero += s.bytes()[i] != 0;
    EXPECT_EQ(nonzero, 0u);
    // Not a block ccs_mem_free ends alone.
    EXPECT_EQ(ccs_mem_free(s.mem), CCS_ERR_INVALID_MEMORY);
    EXPECT_TRUE(mentions(ccs_last_error(), "ccs_mem_free_symmetric")) << ccs_last_error();
    CCS_ASSERT_OK(ccs_barrier());
}

// One process's bad argument fails the collective call on every process,
// naming it; nothing stays allocated and the next calls work.
TEST(Symmetric, OneProcesssBadArgumentFailsItEverywhere) {
    const int culprit = size() - 1;
    void *base = nullptr;
    ccs_mem_t mem{};
    ccs_status_t st = ccs_mem_alloc_symmetric(4096, rank() == culprit ? nullptr : &base, &mem);
    EXPECT_EQ(st, CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "rank " + std::to_string(culprit) + ": addr or mem is NULL"))
        << ccs_last_error();
    EXPECT_EQ(base, nullptr);

    symmetric a(4096), b(8192);
    ccs_mem_t plain{};
    void *plain_base = nullptr;
    CCS_ASSERT_OK(ccs_mem_alloc(4096, &plain_base, &plain));
    // The culprit frees a plain block, the others a symmetric one: refused
    // everywhere, both still there.
    st = ccs_mem_free_symmetric(rank() == culprit ? plain : a.mem);
    EXPECT_EQ(st, CCS_ERR_INVALID_MEMORY);
    EXPECT_TRUE(mentions(ccs_last_error(), "rank " + std::to_string(culprit))) << ccs_last_error();
    // Different allocations on different processes: refused too.
    if (size() > 1) {
        st = ccs_mem_free_symmetric(rank() == culprit ? b.mem : a.mem);
        EXPECT_EQ(st, CCS_ERR_INVALID_MEMORY);
        EXPECT_TRUE(mentions(ccs_last_error(), "another symmetric allocation")) << ccs_last_error();
    }
    CCS_EXPECT_OK(ccs_mem_free(plain));
    // a and b still work.
    scoped_context ctx("symmetric-after-refusals");
    const uint64_t word = 7;
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &word, 8, a.at(0), CCS_RKEY_SYMMETRIC));
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &word, 8, b.at(8000), CCS_RKEY_SYMMETRIC));
    CCS_ASSERT_OK(ccs_barrier());
    uint64_t seen = 0;
    std::memcpy(&seen, a.bytes(), 8);
    EXPECT_EQ(seen, 7u);
    std::memcpy(&seen, b.bytes() + 8000, 8);
    EXPECT_EQ(seen, 7u);
    CCS_ASSERT_OK(ccs_barrier());
}

// Freed allocations leave the others working and their addresses unknown.
TEST(Symmetric, FreeingOneLeavesTheOthers) {
    scoped_context ctx("symmetric-free");
    auto first = std::make_unique<symmetric>(4096);
    symmetric second(4096);
    const uint64_t gone = first->at(0);
    first.reset();
    uint64_t remote = 0;
    EXPECT_EQ(ccs_mem_symmetric_address(reinterpret_cast<void *>(gone), right(), &remote), CCS_ERR_NOT_REGISTERED);
    const uint64_t word = 9;
    CCS_EXPECT_OK(ccs_put_sync(ctx, right(), &word, 8, second.at(16), CCS_RKEY_SYMMETRIC));
    CCS_ASSERT_OK(ccs_barrier());
    uint64_t seen = 0;
    std::memcpy(&seen, second.bytes() + 16, 8);
    EXPECT_EQ(seen, 9u);
    CCS_ASSERT_OK(ccs_barrier());
}

// A queue in rank 0's part that every rank appends to by its own
// addresses: the limit is translated like the pointer's address, and the
// word and the places are rank 0's addresses, also where parts lie apart.
TEST(Symmetric, IndexedPutsAppendToAQueueNamedByTheCallersAddresses) {
    scoped_context ctx("symmetric-queue");
    constexpr size_t slots = 8;
    symmetric s(64 + slots * 8 * static_cast<size_t>(size()));
    const uint64_t tail = s.at(0), first = s.at(64), end = s.at(64 + slots * 8 * static_cast<size_t>(size()));
    if (rank() == 0) std::memcpy(s.bytes(), &first, 8);  // rank 0's own address of its first slot
    CCS_ASSERT_OK(ccs_barrier());
    uint64_t rank0_first = 0;
    CCS_ASSERT_OK(ccs_mem_symmetric_address(s.bytes() + 64, 0, &rank0_first));
    for (size_t i = 0; i < slots; ++i) {
        const uint64_t item = static_cast<uint64_t>(rank()) << 32 | i;
        uint64_t at = 0;
        CCS_ASSERT_OK(ccs_put_indexed_sync(ctx, 0, &item, 8, tail, end, CCS_RKEY_SYMMETRIC, &at));
        EXPECT_GE(at, rank0_first);
        EXPECT_LT(at, rank0_first + slots * 8 * static_cast<size_t>(size()));
    }
    CCS_ASSERT_OK(ccs_barrier());
    // Every slot up to the limit is taken now.
    const uint64_t item = 0;
    EXPECT_EQ(ccs_put_indexed_sync(ctx, 0, &item, 8, tail, end, CCS_RKEY_SYMMETRIC, nullptr), CCS_ERR_OUT_OF_RANGE)
        << ccs_last_error();
    CCS_ASSERT_OK(ccs_barrier());
    if (rank() == 0) {
        uint64_t word = 0;
        std::memcpy(&word, s.bytes(), 8);
        EXPECT_EQ(word, first + slots * 8 * static_cast<size_t>(size()));
        std::set<uint64_t> seen;
        for (size_t i = 0; i < slots * static_cast<size_t>(size()); ++i) {
            uint64_t v = 0;
            std::memcpy(&v, s.bytes() + 64 + 8 * i, 8);
            seen.insert(v);
        }
        EXPECT_EQ(seen.size(), slots * static_cast<size_t>(size()));
    }
    CCS_ASSERT_OK(ccs_barrier());
}
