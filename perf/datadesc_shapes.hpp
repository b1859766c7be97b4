// Shapes for the datadesc benchmark (perf/datadesc_perf.cpp): each is the
// same layout as a CCS datadesc, an MPI datatype and a hand-written loop.
#pragma once

#include <ccs/datadesc.h>

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ccs_perf {

constexpr int64_t n3 = 256;  // the 256^3 array of doubles

struct shape {
    std::string name;
    ccs_datadesc_t ccs = nullptr;
    MPI_Datatype mpi = MPI_DATATYPE_NULL;
    std::function<void(const uint8_t *mem, uint8_t *packed)> hand_pack;
    std::function<void(const uint8_t *packed, uint8_t *mem)> hand_unpack;
    int64_t packed_bytes = 0;
};

// One 128 MiB source/destination for every shape, and one packed buffer.
inline std::vector<uint8_t> &memory() {
    static std::vector<uint8_t> m(static_cast<size_t>(n3 * n3 * n3 * 8) + 4096, 1);
    return m;
}
inline std::vector<uint8_t> &packed_buffer() {
    static std::vector<uint8_t> p(static_cast<size_t>(n3 * n3 * n3 * 8), 2);
    return p;
}

inline void finish(shape &s) {
    ccs_datadesc_commit(s.ccs);
    MPI_Type_commit(&s.mpi);
    ccs_datadesc_size(s.ccs, &s.packed_bytes);
}

// Shapes modelled on DDTBench's micro-applications (datadesc_ddtbench.cpp).
std::vector<shape> ddtbench_shapes();

}  // namespace ccs_perf
