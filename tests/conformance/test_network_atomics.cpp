// Atomics on memory registered for network atomics (ccs_mem_register_atomics):
// every one, from every rank and from the owner itself, goes through the
// transport's own atomics, or is refused where no transport here does
// them; and the two mechanisms never meet on one word.
#include "atomic_model.hpp"
#include "harness.hpp"
#include "rma_window.hpp"

#include <ccs/rma.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace conformance;

namespace {

bool network_atomics_here() { return (peer_flags(rank()) & CCS_PEER_NETWORK_ATOMICS) != 0; }

// Whether atomics on network-atomics memory of `peer` must go through: as
// ccs_peer_query says, unless the configuration says the transport's lanes
// to some processes only emulate them (CCS_TEST_NETWORK_ATOMICS=self: they
// go to this process's own memory only; =node: to this node's).
bool expect_network_atomics(int peer) {
    const uint32_t flags = peer_flags(peer);
    if (!(flags & CCS_PEER_NETWORK_ATOMICS)) return false;
    const char *env = std::getenv("CCS_TEST_NETWORK_ATOMICS");
    const std::string only = env ? env : "";
    if (only == "self") return peer == rank();
    if (only == "node") return (flags & CCS_PEER_SAME_NODE) != 0;
    return true;
}

uint64_t get_word(ccs_context_t ctx, int owner, uint64_t address, ccs_rkey_t key) {
    uint64_t v = ~0ull;
    CCS_EXPECT_OK(ccs_get_sync(ctx, owner, &v, 8, address, key));
    return v;
}

}  // namespace

TEST(NetworkAtomics, RegistrationSaysWhetherATransportCarriesThemOut) {
    std::vector<uint64_t> buf(64);
    ccs_mem_t mem{};
    EXPECT_EQ(ccs_mem_register_atomics(buf.data(), 512, 7, &mem), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "not a ccs_atomics_by_t")) << ccs_last_error();
    EXPECT_EQ(ccs_mem_register_atomics(buf.data(), 512, CCS_ATOMICS_BY_NETWORK, nullptr), CCS_ERR_INVALID_ARG);
    const ccs_status_t st = ccs_mem_register_atomics(buf.data(), 512, CCS_ATOMICS_BY_NETWORK, &mem);
    if (network_atomics_here()) {
        CCS_EXPECT_OK(st);
        CCS_EXPECT_OK(ccs_mem_deregister(mem));
    } else {
        EXPECT_EQ(st, CCS_ERR_UNSUPPORTED);
        EXPECT_TRUE(mentions(ccs_last_error(), "carries out atomics itself")) << ccs_last_error();
    }
    // Either way nothing stays registered that would refuse the CPU's.
    CCS_EXPECT_OK(ccs_mem_register_atomics(buf.data(), 512, CCS_ATOMICS_BY_CPU, &mem));
    CCS_EXPECT_OK(ccs_mem_deregister(mem));
}

// Each rank works on its slot in its right neighbour's window and in its
// own: the owner's atomics on its own memory take the same mechanism.
TEST(NetworkAtomics, EveryOpAndWidthMatchesTheModelOrIsRefusedUnchanged) {
    if (!network_atomics_here()) GTEST_SKIP() << "no transport here carries out atomics (the test above checks that)";
    scoped_context ctx("network-atomics-model");
    window w(false, CCS_ATOMICS_BY_NETWORK);
    const uint64_t by_cpu = stat("rma.atomics_at_target"), by_network = stat("rma.atomics_by_network");
    for (const int target : {right(), rank()}) {
        const uint64_t slot = w.slot(target, rank());
        if (expect_network_atomics(target)) {
            EXPECT_EQ(check_every_op(ctx, target, w.key(target), slot, true), 4 * 8 * 5) << "to rank " << target;
            continue;
        }
        uint64_t old = 99;
        ccs_counter_t counter;
        CCS_ASSERT_OK(ccs_counter_init(&counter));
        const ccs_completion_t done{nullptr, nullptr, &counter};
        for (const ccs_rkey_t key : {w.key(target), CCS_RKEY_IMPLICIT}) {
            EXPECT_EQ(ccs_atomic_sync(ctx, target, CCS_ATOMIC_ADD, CCS_UINT64, slot, key, 5, 0, &old),
                      CCS_ERR_UNSUPPORTED);
            EXPECT_TRUE(mentions(ccs_last_error(), "would emulate them")) << ccs_last_error();
            CCS_EXPECT_OK(ccs_atomic(ctx, target, CCS_ATOMIC_SET, CCS_UINT64, slot, key, 5, 0, nullptr, &done));
        }
        EXPECT_EQ(ccs_counter_wait(&counter, 2), CCS_ERR_UNSUPPORTED);
        EXPECT_EQ(counter.errors, 2u);
        EXPECT_EQ(counter.first_error, CCS_ERR_UNSUPPORTED);
        EXPECT_EQ(old, 99u);
        EXPECT_EQ(get_word(ctx, target, slot, w.key(target)), 0u);
    }
    // Never the CPU's path; the transport's every time it went.
    EXPECT_EQ(stat("rma.atomics_at_target"), by_cpu);
    if (expect_network_atomics(right())) {
        EXPECT_GE(stat("rma.atomics_by_network") - by_network, 2u * 4 * 8 * 5);
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// Every rank whose atomics reach rank 0, rank 0 itself included, adds to
// one of its words: the sums are exact.
TEST(NetworkAtomics, FetchAddsFromEveryRankAndTheOwnerSumExactly) {
    if (!network_atomics_here()) GTEST_SKIP() << "no transport here carries out atomics (the test above checks that)";
    scoped_context ctx("network-atomics-contention");
    window w(false, CCS_ATOMICS_BY_NETWORK);
    constexpr int adds = 200;
    const uint64_t at64 = w.slot(0, 0), at32 = at64 + 8;
    if (expect_network_atomics(0)) {
        uint64_t last = 0;
        for (int i = 0; i < adds; ++i) {
            uint64_t old64 = 0;
            uint32_t old32 = 0;
            CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_UINT64, at64, w.key(0), 1, 0, &old64));
            CCS_ASSERT_OK(ccs_atomic_sync(ctx, 0, CCS_ATOMIC_ADD, CCS_INT32, at32, w.key(0),
                                          static_cast<uint64_t>(int64_t{-2}), 0, &old32));
            if (i > 0) {
                EXPECT_GT(old64, last);  // ours only grow
            }
            last = old64;
        }
    }
    CCS_EXPECT_OK(ccs_barrier());
    if (rank() == 0) {
        // Those whose atomics reach rank 0 are those rank 0's reach.
        int adders = 0;
        for (int r = 0; r < size(); ++r) adders += expect_network_atomics(r);
        uint64_t total = 0;
        int32_t total32 = 0;
        std::memcpy(&total, w.local_slot(0), 8);
        std::memcpy(&total32, w.local_slot(0) + 8, 4);
        EXPECT_EQ(total, static_cast<uint64_t>(adds) * static_cast<uint64_t>(adders));
        EXPECT_EQ(total32, -2 * adds * adders);
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// A registration's mechanism is exclusive: the other one's registrations
// cannot overlap it, and the indexed put (CPU atomics on its pointer)
// cannot touch it. Each refusal changes nothing.
TEST(NetworkAtomics, TheTwoMechanismsNeverMeetOnAWord) {
    if (!network_atomics_here()) GTEST_SKIP() << "no transport here carries out atomics (the test above checks that)";
    scoped_context ctx("network-atomics-exclusive");
    std::vector<uint64_t> buf(4096);
    const size_t quarter = buf.size() / 4 * 8;
    auto *base = reinterpret_cast<uint8_t *>(buf.data());
    ccs_mem_t network{}, cpu{}, more{};
    CCS_ASSERT_OK(ccs_mem_register_atomics(base, 2 * quarter, CCS_ATOMICS_BY_NETWORK, &network));
    EXPECT_EQ(ccs_mem_register(base + quarter, 2 * quarter, &cpu), CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "whose atomics are carried out by the network adapter")) << ccs_last_error();
    CCS_ASSERT_OK(ccs_mem_register(base + 2 * quarter, quarter, &cpu));
    EXPECT_EQ(ccs_mem_register_atomics(base + quarter, 2 * quarter, CCS_ATOMICS_BY_NETWORK, &more),
              CCS_ERR_INVALID_ARG);
    EXPECT_TRUE(mentions(ccs_last_error(), "whose atomics are carried out by the CPU")) << ccs_last_error();
    // The same mechanism overlaps freely.
    CCS_ASSERT_OK(ccs_mem_register_atomics(base + 8, quarter, CCS_ATOMICS_BY_NETWORK, &more));
    CCS_EXPECT_OK(ccs_mem_deregister(more));

    // An indexed put on this process's own queue whose pointer takes
    // network atomics, then on the right neighbour's.
    const uint64_t pointer = reinterpret_cast<uintptr_t>(base);
    buf[0] = pointer + 64;
    const uint64_t element = 0x5eed;
    uint64_t placed = 7;
    EXPECT_EQ(ccs_put_indexed_sync(ctx, rank(), &element, 8, pointer, pointer + quarter, CCS_RKEY_IMPLICIT, &placed),
              CCS_ERR_UNSUPPORTED);
    EXPECT_TRUE(mentions(ccs_last_error(), "registered for network atomics")) << ccs_last_error();
    EXPECT_EQ(buf[0], pointer + 64);
    EXPECT_EQ(buf[8], 0u);
    EXPECT_EQ(placed, 7u);
    {
        window w(false, CCS_ATOMICS_BY_NETWORK);
        const uint64_t queue = w.slot(right(), rank());
        EXPECT_EQ(ccs_put_indexed_sync(ctx, right(), &element, 8, queue, queue + 4096, w.key(right()), &placed),
                  CCS_ERR_UNSUPPORTED);
        EXPECT_TRUE(mentions(ccs_last_error(), "registered for network atomics")) << ccs_last_error();
        EXPECT_EQ(get_word(ctx, right(), queue, w.key(right())), 0u);
        CCS_EXPECT_OK(ccs_barrier());
    }
    // Once it ends, the CPU's registrations may have the memory back.
    CCS_EXPECT_OK(ccs_mem_deregister(network));
    CCS_ASSERT_OK(ccs_mem_register(base + quarter, 2 * quarter, &more));
    CCS_EXPECT_OK(ccs_mem_deregister(more));
    CCS_EXPECT_OK(ccs_mem_deregister(cpu));
}
