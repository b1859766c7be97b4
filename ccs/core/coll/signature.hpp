// What a collective call was, in one word every message of it carries: a
// member whose call differs (another kind, root, size, type or op) is
// caught where its message arrives instead of corrupting the result.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace ccs::coll {

enum class kind : uint64_t { barrier = 1, broadcast, reduce, allreduce, scan, exscan, gather, allgather, alltoall };

inline const char *kind_name(uint64_t k) {
    static const char *const names[] = {"?",      "barrier", "broadcast", "reduce",   "allreduce",
                                        "scan",   "exscan",  "gather",    "allgather", "alltoall"};
    return k < sizeof names / sizeof *names ? names[k] : "?";
}

// The kind in the top byte (so an error can name it), a hash of the rest.
inline uint64_t signature_from(kind k, std::initializer_list<uint64_t> parts) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t p : parts) h = (h ^ p) * 0x100000001b3ull;
    return (static_cast<uint64_t>(k) << 56) | (h & ((uint64_t{1} << 56) - 1));
}
template <typename... Parts>
uint64_t signature_of(kind k, Parts... parts) {
    return signature_from(k, {static_cast<uint64_t>(parts)...});
}

}  // namespace ccs::coll
