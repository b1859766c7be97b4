// Shapes modelled on DDTBench (Schneider, Gerstenberger, Hoefler,
// "Micro-Applications for Communication Data Access Patterns and MPI
// Datatypes", EuroMPI 2012), rebuilt from the published descriptions of
// their datatypes; grid sizes are ours. Each is built the way the paper's
// MPI version builds it, so the datadesc engine sees the same nesting.
#include "datadesc_shapes.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>

namespace ccs_perf {
namespace {

// NAS LU, x-face: u[nz][ny][nx][5] doubles; one point (40 B) per (k, j)
// at i = 0. Built as a vector over j inside an hvector over k.
shape nas_lu_x() {
    shape s;
    s.name = "ddt_nas_lu_x";
    const int64_t nx = 102, ny = 102, nz = 102, point = 40;
    const int64_t row = nx * point, plane = ny * row;
    ccs_datadesc_t rows = nullptr;
    ccs_datadesc_vector(ny, point, row, CCS_BYTE, &rows);
    ccs_datadesc_hvector(nz, 1, plane, rows, &s.ccs);
    ccs_datadesc_free(&rows);
    MPI_Datatype mrows;
    MPI_Type_vector(ny, point, row, MPI_BYTE, &mrows);
    MPI_Type_create_hvector(nz, 1, plane, mrows, &s.mpi);
    MPI_Type_free(&mrows);
    s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
        for (int64_t k = 0; k < nz; ++k)
            for (int64_t j = 0; j < ny; ++j, p += point) std::memcpy(p, m + k * plane + j * row, point);
    };
    s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
        for (int64_t k = 0; k < nz; ++k)
            for (int64_t j = 0; j < ny; ++j, p += point) std::memcpy(m + k * plane + j * row, p, point);
    };
    finish(s);
    return s;
}

// MILC su3_zdown: a 4-D lattice [t][z][y][x] of su3 vectors (3 complex
// floats, 24 B), checkerboarded; the z = 0 face of the even sites. Each
// (t, y) row holds every other site, starting at site (t + y) % 2: a
// vector of sites placed by an hindexed_block over the rows.
shape milc_su3_zdown() {
    shape s;
    s.name = "ddt_milc_su3_zdown";
    const int64_t l = 32, site = 24;
    const int64_t row = l * site, plane = l * row, volume = l * plane;
    ccs_datadesc_t sites = nullptr;
    ccs_datadesc_vector(l / 2, site, 2 * site, CCS_BYTE, &sites);
    auto disp = std::make_shared<std::vector<int64_t>>();
    for (int64_t t = 0; t < l; ++t)
        for (int64_t y = 0; y < l; ++y) disp->push_back(t * volume + y * row + ((t + y) % 2) * site);
    ccs_datadesc_hindexed_block(l * l, 1, disp->data(), sites, &s.ccs);
    ccs_datadesc_free(&sites);
    MPI_Datatype msites;
    MPI_Type_vector(l / 2, site, 2 * site, MPI_BYTE, &msites);
    std::vector<MPI_Aint> adisp(disp->begin(), disp->end());
    MPI_Type_create_hindexed_block(static_cast<int>(l * l), 1, adisp.data(), msites, &s.mpi);
    MPI_Type_free(&msites);
    s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
        for (int64_t d : *disp)
            for (int64_t x = 0; x < l / 2; ++x, p += site) std::memcpy(p, m + d + 2 * x * site, site);
    };
    s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
        for (int64_t d : *disp)
            for (int64_t x = 0; x < l / 2; ++x, p += site) std::memcpy(m + d + 2 * x * site, p, site);
    };
    finish(s);
    return s;
}

// FFT2 transpose: an n x n matrix of complex doubles (16 B); a column
// resized to one element, n of them contiguous, so packing transposes.
shape fft2_transpose() {
    shape s;
    s.name = "ddt_fft2_transpose";
    const int64_t n = 1024, elem = 16;
    ccs_datadesc_t column = nullptr, one = nullptr;
    ccs_datadesc_vector(n, elem, n * elem, CCS_BYTE, &column);
    ccs_datadesc_resized(column, 0, elem, &one);
    ccs_datadesc_contiguous(n, one, &s.ccs);
    ccs_datadesc_free(&column);
    ccs_datadesc_free(&one);
    MPI_Datatype mcolumn, mone;
    MPI_Type_vector(static_cast<int>(n), elem, static_cast<int>(n * elem), MPI_BYTE, &mcolumn);
    MPI_Type_create_resized(mcolumn, 0, elem, &mone);
    MPI_Type_contiguous(static_cast<int>(n), mone, &s.mpi);
    MPI_Type_free(&mcolumn);
    MPI_Type_free(&mone);
    s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i, p += elem) std::memcpy(p, m + (i * n + j) * elem, elem);
    };
    s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i, p += elem) std::memcpy(m + (i * n + j) * elem, p, elem);
    };
    finish(s);
    return s;
}

// Sorted random distinct indices: the boundary points of an unstructured mesh.
std::shared_ptr<std::vector<int64_t>> random_indices(int64_t picks, int64_t range, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int64_t> all(static_cast<size_t>(range));
    for (int64_t i = 0; i < range; ++i) all[static_cast<size_t>(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<size_t>(picks));
    std::sort(all.begin(), all.end());
    return std::make_shared<std::vector<int64_t>>(std::move(all));
}

// SPECFEM3D_oc: single floats of the outer core's boundary, at irregular
// indices: an indexed_block of one 4-byte element each.
shape specfem3d_oc() {
    shape s;
    s.name = "ddt_specfem3d_oc";
    const int64_t points = 4 << 20, picks = 1 << 18, elem = 4;
    auto idx = random_indices(picks, points, 11);
    ccs_datadesc_t flt = nullptr;
    ccs_datadesc_contiguous(elem, CCS_BYTE, &flt);
    ccs_datadesc_indexed_block(picks, 1, idx->data(), flt, &s.ccs);
    ccs_datadesc_free(&flt);
    MPI_Datatype mflt;
    MPI_Type_contiguous(elem, MPI_BYTE, &mflt);
    std::vector<int> iidx(idx->begin(), idx->end());
    MPI_Type_create_indexed_block(static_cast<int>(picks), 1, iidx.data(), mflt, &s.mpi);
    MPI_Type_free(&mflt);
    s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
        for (int64_t i : *idx) std::memcpy(p, m + i * elem, elem), p += elem;
    };
    s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
        for (int64_t i : *idx) std::memcpy(m + i * elem, p, elem), p += elem;
    };
    finish(s);
    return s;
}

template <size_t L>
uint8_t *gather(const uint8_t *array, const std::vector<int64_t> &idx, uint8_t *p) {
    for (int64_t i : idx) std::memcpy(p, array + i * static_cast<int64_t>(L), L), p += L;
    return p;
}

template <size_t L>
const uint8_t *scatter(const uint8_t *p, const std::vector<int64_t> &idx, uint8_t *array) {
    for (int64_t i : idx) std::memcpy(array + i * static_cast<int64_t>(L), p, L), p += L;
    return p;
}

// LAMMPS full: the exchanged atoms' entries of five per-atom arrays
// (x[3] double, tag, type, mask int, q double), one indexed_block per
// array joined by a struct at the arrays' offsets.
shape lammps_full() {
    shape s;
    s.name = "ddt_lammps_full";
    const int64_t atoms = 1 << 20, picks = 1 << 17;
    const int64_t sizes[] = {24, 4, 4, 4, 8};
    int64_t offsets[5], at = 0;
    for (int a = 0; a < 5; ++a) offsets[a] = at, at += atoms * sizes[a];
    auto idx = random_indices(picks, atoms, 13);
    ccs_datadesc_t members[5];
    MPI_Datatype mmembers[5];
    std::vector<int> iidx(idx->begin(), idx->end());
    for (int a = 0; a < 5; ++a) {
        ccs_datadesc_t elem = nullptr;
        ccs_datadesc_contiguous(sizes[a], CCS_BYTE, &elem);
        ccs_datadesc_indexed_block(picks, 1, idx->data(), elem, &members[a]);
        ccs_datadesc_free(&elem);
        MPI_Datatype melem;
        MPI_Type_contiguous(static_cast<int>(sizes[a]), MPI_BYTE, &melem);
        MPI_Type_create_indexed_block(static_cast<int>(picks), 1, iidx.data(), melem, &mmembers[a]);
        MPI_Type_free(&melem);
    }
    const int64_t ones[] = {1, 1, 1, 1, 1};
    ccs_datadesc_struct(5, ones, offsets, members, &s.ccs);
    int iones[] = {1, 1, 1, 1, 1};
    MPI_Aint aoffsets[5];
    for (int a = 0; a < 5; ++a) aoffsets[a] = offsets[a];
    MPI_Type_create_struct(5, iones, aoffsets, mmembers, &s.mpi);
    for (int a = 0; a < 5; ++a) {
        ccs_datadesc_free(&members[a]);
        MPI_Type_free(&mmembers[a]);
    }
    // As an application would write it: one loop per array, sizes known.
    const std::vector<int64_t> off(offsets, offsets + 5);
    s.hand_pack = [=](const uint8_t *m, uint8_t *p) {
        p = gather<24>(m + off[0], *idx, p);
        for (int a = 1; a < 4; ++a) p = gather<4>(m + off[a], *idx, p);
        gather<8>(m + off[4], *idx, p);
    };
    s.hand_unpack = [=](const uint8_t *p, uint8_t *m) {
        p = scatter<24>(p, *idx, m + off[0]);
        for (int a = 1; a < 4; ++a) p = scatter<4>(p, *idx, m + off[a]);
        scatter<8>(p, *idx, m + off[4]);
    };
    finish(s);
    return s;
}

}  // namespace

std::vector<shape> ddtbench_shapes() {
    std::vector<shape> shapes;
    shapes.push_back(nas_lu_x());
    shapes.push_back(milc_su3_zdown());
    shapes.push_back(fft2_transpose());
    shapes.push_back(specfem3d_oc());
    shapes.push_back(lammps_full());
    return shapes;
}

}  // namespace ccs_perf
