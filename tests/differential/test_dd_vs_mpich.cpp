// Differential test: the same random layouts built as CCS datadescs and as
// MPICH datatypes over MPI_BYTE must agree on size, lb, extent, true_lb,
// true_extent and on the bytes MPI_Pack produces. Restricted to where MPICH
// 4.0.2 follows the standard: no negative strides or displacements inside
// vectors, no zero-size types (MPICH gives them extent 0 whatever their
// markers say), no negative-extent resized type
// replicated more than once, and no struct mixing members that carry lb/ub
// markers (resized, subarray) with members that do not: there the standard
// makes the markers decide lb and ub ("sticky"), while MPICH 4.0.2 takes the
// minimum of the members' lbs. Runs as an MPI singleton (no mpiexec needed).
#include <ccs/datadesc.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using rng_t = std::mt19937_64;
int64_t pick(rng_t &r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }

// A layout built twice, once per library.
struct twin {
    ccs_datadesc_t ccs = nullptr;
    MPI_Datatype mpi = MPI_DATATYPE_NULL;
    bool negative_extent = false;  // replicating it is outside the subset
    bool markers = false;          // carries lb/ub markers (resized, subarray)
    std::string how;               // how it was built, for failure messages
    twin() = default;
    twin(const twin &) = delete;
    twin &operator=(const twin &) = delete;
    ~twin() {
        if (ccs) ccs_datadesc_free(&ccs);
        if (mpi != MPI_DATATYPE_NULL && mpi != MPI_BYTE) MPI_Type_free(&mpi);
    }
    int64_t size() const {
        int64_t s = 0;
        ccs_datadesc_size(ccs, &s);
        return s;
    }
};

std::unique_ptr<twin> leaf(rng_t &r) {
    auto t = std::make_unique<twin>();
    const int n = static_cast<int>(pick(r, 1, 5));
    EXPECT_EQ(ccs_datadesc_contiguous(n, CCS_BYTE, &t->ccs), CCS_OK);
    MPI_Type_contiguous(n, MPI_BYTE, &t->mpi);
    t->how = "bytes(" + std::to_string(n) + ")";
    return t;
}

std::unique_ptr<twin> build_node(rng_t &r, int depth);

// Any type with a negative extent, however it got it, must not be
// replicated (the subset), so the flag follows the extent itself.
std::unique_ptr<twin> build(rng_t &r, int depth) {
    auto t = build_node(r, depth);
    int64_t lb = 0, extent = 0;
    ccs_datadesc_extent(t->ccs, &lb, &extent);
    t->negative_extent = extent < 0;
    return t;
}

std::unique_ptr<twin> build_node(rng_t &r, int depth) {
    if (depth == 0 || pick(r, 0, 4) == 0) return leaf(r);
    auto child = build(r, depth - 1);
    auto t = std::make_unique<twin>();
    // Replicating a child with negative extent is outside the subset.
    const int64_t max_reps = child->negative_extent ? 1 : 3;
    switch (pick(r, 0, 6)) {
    case 0: {
        const int n = static_cast<int>(pick(r, 1, max_reps));
        EXPECT_EQ(ccs_datadesc_contiguous(n, child->ccs, &t->ccs), CCS_OK);
        MPI_Type_contiguous(n, child->mpi, &t->mpi);
        t->markers = child->markers;
        t->how = "contiguous(" + std::to_string(n) + ", " + child->how + ")";
        break;
    }
    case 1: {
        const int n = static_cast<int>(pick(r, 1, max_reps)), bl = static_cast<int>(pick(r, 1, max_reps)),
                  stride = static_cast<int>(pick(r, bl, bl + 3));
        EXPECT_EQ(ccs_datadesc_vector(n, bl, stride, child->ccs, &t->ccs), CCS_OK);
        MPI_Type_vector(n, bl, stride, child->mpi, &t->mpi);
        t->markers = child->markers;
        t->how = "vector(" + std::to_string(n) + "," + std::to_string(bl) + "," + std::to_string(stride) + ", " + child->how + ")";
        break;
    }
    case 2: {
        const int n = static_cast<int>(pick(r, 1, max_reps)), bl = static_cast<int>(pick(r, 1, max_reps));
        const int64_t stride = pick(r, 0, 40);
        EXPECT_EQ(ccs_datadesc_hvector(n, bl, stride, child->ccs, &t->ccs), CCS_OK);
        MPI_Type_create_hvector(n, bl, stride, child->mpi, &t->mpi);
        t->markers = child->markers;
        t->how = "hvector(" + std::to_string(n) + "," + std::to_string(bl) + "," + std::to_string(stride) + ", " + child->how + ")";
        break;
    }
    case 3: {
        // Equal blocklengths and four or more blocks compile to table loops.
        const int n = static_cast<int>(pick(r, 1, 6));
        const int64_t same = pick(r, 0, 1) ? pick(r, 1, max_reps) : 0;
        std::vector<int64_t> bl, disp;
        std::vector<int> ibl;
        std::vector<MPI_Aint> adisp;
        for (int i = 0; i < n; ++i) {
            bl.push_back(same ? same : pick(r, 1, max_reps));
            disp.push_back(pick(r, 0, 40));
            ibl.push_back(static_cast<int>(bl.back()));
            adisp.push_back(disp.back());
        }
        EXPECT_EQ(ccs_datadesc_hindexed(n, bl.data(), disp.data(), child->ccs, &t->ccs), CCS_OK);
        MPI_Type_create_hindexed(n, ibl.data(), adisp.data(), child->mpi, &t->mpi);
        t->markers = child->markers;
        t->how = "hindexed(";
        for (int i = 0; i < n; ++i) t->how += std::to_string(bl[i]) + "@" + std::to_string(disp[i]) + " ";
        t->how += child->how + ")";
        break;
    }
    case 4: {
        auto second = build(r, depth - 1);
        if (second->size() == 0 || child->size() == 0) return leaf(r);  // no zero-size members
        if (second->markers != child->markers) return leaf(r);          // MPICH is not sticky
        const int64_t bl[] = {pick(r, 1, max_reps), pick(r, 1, second->negative_extent ? 1 : 2)};
        const int64_t disp[] = {pick(r, 0, 30), pick(r, 0, 30)};
        const ccs_datadesc_t types[] = {child->ccs, second->ccs};
        EXPECT_EQ(ccs_datadesc_struct(2, bl, disp, types, &t->ccs), CCS_OK);
        int ibl[] = {static_cast<int>(bl[0]), static_cast<int>(bl[1])};
        MPI_Aint adisp[] = {disp[0], disp[1]};
        MPI_Datatype mtypes[] = {child->mpi, second->mpi};
        MPI_Type_create_struct(2, ibl, adisp, mtypes, &t->mpi);
        t->markers = child->markers;
        t->how = "struct(" + std::to_string(bl[0]) + "@" + std::to_string(disp[0]) + " " + child->how + "; " +
                 std::to_string(bl[1]) + "@" + std::to_string(disp[1]) + " " + second->how + ")";
        break;
    }
    case 5: {
        const int64_t lb = pick(r, -10, 10), extent = pick(r, -6, 30);
        EXPECT_EQ(ccs_datadesc_resized(child->ccs, lb, extent, &t->ccs), CCS_OK);
        MPI_Type_create_resized(child->mpi, lb, extent, &t->mpi);
        t->markers = true;
        t->how = "resized(" + std::to_string(lb) + "," + std::to_string(extent) + ", " + child->how + ")";
        break;
    }
    default: {
        if (child->negative_extent) return leaf(r);
        int sizes[] = {static_cast<int>(pick(r, 1, 4)), static_cast<int>(pick(r, 1, 4))};
        int sub[] = {static_cast<int>(pick(r, 1, sizes[0])), static_cast<int>(pick(r, 1, sizes[1]))};
        int starts[] = {static_cast<int>(pick(r, 0, sizes[0] - sub[0])), static_cast<int>(pick(r, 0, sizes[1] - sub[1]))};
        const bool c_order = pick(r, 0, 1);
        const int64_t s64[] = {sizes[0], sizes[1]}, sub64[] = {sub[0], sub[1]}, st64[] = {starts[0], starts[1]};
        EXPECT_EQ(ccs_datadesc_subarray(2, s64, sub64, st64, c_order ? CCS_ORDER_C : CCS_ORDER_FORTRAN, child->ccs,
                                        &t->ccs),
                  CCS_OK);
        MPI_Type_create_subarray(2, sizes, sub, starts, c_order ? MPI_ORDER_C : MPI_ORDER_FORTRAN, child->mpi, &t->mpi);
        t->markers = true;
        t->how = std::string("subarray") + (c_order ? "C" : "F") + "([" + std::to_string(sizes[0]) + "," +
                 std::to_string(sizes[1]) + "] [" + std::to_string(sub[0]) + "," + std::to_string(sub[1]) + "] [" +
                 std::to_string(starts[0]) + "," + std::to_string(starts[1]) + "], " + child->how + ")";
        break;
    }
    }
    return t;
}

class mpi_environment : public testing::Environment {
    void SetUp() override { MPI_Init(nullptr, nullptr); }
    void TearDown() override { MPI_Finalize(); }
};
const auto *registered = testing::AddGlobalTestEnvironment(new mpi_environment);

}  // namespace

TEST(DatadescVsMpich, BoundsAndPackedBytesAgree) {
    const char *seed_env = std::getenv("CCS_DATADESC_SEED");
    const char *rounds_env = std::getenv("CCS_DATADESC_ROUNDS");
    const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 4022;
    const uint64_t rounds = rounds_env ? std::strtoull(rounds_env, nullptr, 10) : 1500;
    rng_t r(seed);
    for (uint64_t round = 0; round < rounds; ++round) {
        auto t = build(r, 4);
        SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round) + ": " + t->how);
        ASSERT_EQ(ccs_datadesc_commit(t->ccs), CCS_OK);
        MPI_Type_commit(&t->mpi);
        int64_t size = 0, lb = 0, extent = 0, tlb = 0, text = 0;
        ccs_datadesc_size(t->ccs, &size);
        ccs_datadesc_extent(t->ccs, &lb, &extent);
        ccs_datadesc_true_extent(t->ccs, &tlb, &text);
        MPI_Count msize = 0, mlb = 0, mext = 0, mtlb = 0, mtext = 0;
        MPI_Type_size_x(t->mpi, &msize);
        MPI_Type_get_extent_x(t->mpi, &mlb, &mext);
        MPI_Type_get_true_extent_x(t->mpi, &mtlb, &mtext);
        ASSERT_EQ(size, msize);
        ASSERT_EQ(lb, mlb);
        ASSERT_EQ(extent, mext);
        if (size > 0) {
            ASSERT_EQ(tlb, mtlb);
            ASSERT_EQ(text, mtext);
        }
        const int count = t->negative_extent ? 1 : static_cast<int>(pick(r, 1, 3));
        // Memory covering every byte of `count` elements.
        const int64_t lo = std::min<int64_t>(tlb, tlb + (count - 1) * extent) - 1;
        const int64_t hi = std::max<int64_t>(tlb + text, tlb + text + (count - 1) * extent) + 1;
        std::vector<uint8_t> mem(static_cast<size_t>(hi - lo));
        for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(i * 7 + round);
        const uint8_t *at = mem.data() - lo;
        std::vector<uint8_t> ours(static_cast<size_t>(size * count) + 1), theirs(ours.size());
        int64_t done = 0;
        ASSERT_EQ(ccs_datadesc_pack(at, count, t->ccs, 0, ours.data(), size * count, &done), CCS_OK);
        int position = 0;
        MPI_Pack(at, count, t->mpi, theirs.data(), static_cast<int>(theirs.size()), &position, MPI_COMM_SELF);
        ASSERT_EQ(position, size * count);
        ASSERT_EQ(ours, theirs);
    }
}
