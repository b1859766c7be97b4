// Puts and gets a thread started beside the API lock (util/fast_path.hpp)
// that the transport finishes later. Each thread notes its own in a table
// of its own, so starting one writes nothing another thread's start
// reads. Whoever finishes one (progress under the API lock, on any thread,
// when the transport reports it or its peer fails) finds it by its token.
//
// A record is free while its token is 0. Only its table's thread fills a
// free record and publishes it under a new token; whoever finishes it
// first swaps the token back to 0, so a late second report of the same
// operation finds nothing.
#pragma once

#include <ccs/rma.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace ccs {

class beside_operations {
public:
    enum class kind : uint8_t { put, get, atomic };
    static const char *name(kind k) { return k == kind::put ? "put" : k == kind::get ? "get" : "atomic"; }
    // Atomic fields: a fence counting what is in flight may read a record
    // while its thread fills it again.
    struct record {
        std::atomic<uint64_t> token{0};
        std::atomic<uint16_t> ctx{0};
        std::atomic<kind> what{kind::put};
        std::atomic<int32_t> target{-1};
        std::atomic<ccs_counter_t *> counter{nullptr};
    };
    // What a finished record held.
    struct finished {
        uint16_t ctx = 0;
        kind what = kind::put;
        int32_t target = -1;
        ccs_counter_t *counter = nullptr;
    };

    // Tokens of these records have this bit; the RMA engine's own never do.
    static constexpr uint64_t token_bit = uint64_t{1} << 63;
    static bool owns(uint64_t token) { return (token & token_bit) != 0; }

    // The calling thread's next free record, published under a new token
    // (returned in `token`); null when none is free or there is no memory
    // for the thread's table: the caller takes the locked path.
    static record *start(uint16_t ctx, kind what, int32_t target, ccs_counter_t *counter, uint64_t &token) noexcept;
    // Takes the record off the list if it is still in flight under
    // `token`: true for whoever does so first (the thread that started it,
    // when the transport finished or refused in the call, or a finisher).
    static bool finish(uint64_t token, finished *out = nullptr) noexcept;
    // Whether the operation under `token` is still in flight.
    static bool in_flight(uint64_t token) noexcept;
    // How many are in flight from context `ctx` to `target` (-1: to
    // anyone), started by any thread.
    static uint64_t count(uint16_t ctx, int target) noexcept;
    // Whether any is in flight at all.
    static bool any() noexcept;
    // The tokens of those in flight to `target`.
    static std::vector<uint64_t> to(int target);
};

}  // namespace ccs
