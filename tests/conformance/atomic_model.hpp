// The atomics suites' model: the word types and what each op does.
#pragma once

#include "harness.hpp"

#include <ccs/rma.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace conformance {

struct word_type {
    ccs_int_type_t type;
    size_t width;
    const char *name;
};
inline constexpr word_type word_types[] = {
    {CCS_INT32, 4, "int32"}, {CCS_UINT32, 4, "uint32"}, {CCS_INT64, 8, "int64"}, {CCS_UINT64, 8, "uint64"}};

// What the op does to `old` in `width` bytes (the model).
inline uint64_t model(int op, size_t width, uint64_t old, uint64_t operand, uint64_t compare) {
    const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
    operand &= mask;
    switch (op) {
    case CCS_ATOMIC_ADD: return (old + operand) & mask;
    case CCS_ATOMIC_AND: return old & operand;
    case CCS_ATOMIC_OR: return old | operand;
    case CCS_ATOMIC_XOR: return old ^ operand;
    case CCS_ATOMIC_SWAP:
    case CCS_ATOMIC_SET: return operand;
    case CCS_ATOMIC_CSWAP: return old == (compare & mask) ? operand : old;
    default: return old;
    }
}

inline uint64_t read_word(const void *p, size_t width) {
    if (width == 4) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Every op on every word type, from a few starting values, against the
// model: blocking and with a counter, through `key` (and, with
// `with_implicit`, CCS_RKEY_IMPLICIT) in `target`'s memory from `slot` on
// (64 words). How many were checked.
inline int check_every_op(ccs_context_t ctx, int target, ccs_rkey_t key, uint64_t slot, bool with_implicit) {
    // Operands that exercise sign, carries and the upper half.
    const uint64_t starts[] = {0, 5, 0x7fffffffull, 0xffffffffull, 0x123456789abcdef0ull};
    int checked = 0;
    for (const word_type &t : word_types)
        for (int op = CCS_ATOMIC_ADD; op <= CCS_ATOMIC_SET; ++op)
            for (uint64_t start : starts) {
                const uint64_t mask = t.width == 4 ? 0xffffffffull : ~0ull;
                const uint64_t initial = start & mask;
                uint64_t operand = (start * 3 + 0x11) & mask;
                if (t.type == CCS_INT32) operand = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(operand)));
                uint64_t compare = (op == CCS_ATOMIC_CSWAP && start % 2 == 0) ? initial : initial ^ 1;
                if (t.type == CCS_INT32) compare = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(compare)));
                const uint64_t at = slot + 8 * static_cast<uint64_t>(checked % 64);
                // Start from a known value (an atomic SET: CCS's own way to write a word).
                CCS_EXPECT_OK(ccs_atomic_sync(ctx, target, CCS_ATOMIC_SET, t.type, at, key,
                                              t.type == CCS_INT32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(initial))) : initial,
                                              0, nullptr));
                alignas(8) uint8_t fetched[8] = {};
                void *out = op == CCS_ATOMIC_SET ? nullptr : fetched;
                const bool implicit = checked % 3 == 2 && with_implicit;
                const ccs_rkey_t use = implicit ? CCS_RKEY_IMPLICIT : key;
                if (checked % 2 == 0) {
                    CCS_EXPECT_OK(ccs_atomic_sync(ctx, target, op, t.type, at, use, operand, compare, out));
                } else {
                    ccs_counter_t counter;
                    CCS_EXPECT_OK(ccs_counter_init(&counter));
                    const ccs_completion_t done{nullptr, nullptr, &counter};
                    CCS_EXPECT_OK(ccs_atomic(ctx, target, op, t.type, at, use, operand, compare, out, &done));
                    CCS_EXPECT_OK(ccs_counter_wait(&counter, 1));
                }
                if (out) {
                    EXPECT_EQ(read_word(fetched, t.width), initial) << t.name << " op " << op;
                }
                alignas(8) uint8_t now[8] = {};
                CCS_EXPECT_OK(ccs_atomic_sync(ctx, target, CCS_ATOMIC_FETCH, t.type, at, key, 0, 0, now));
                EXPECT_EQ(read_word(now, t.width), model(op, t.width, initial, operand, compare))
                    << t.name << " op " << op << " from " << initial;
                ++checked;
                if (::testing::Test::HasFailure()) return checked;  // one broken path: not 160 reports
            }
    return checked;
}

}  // namespace conformance
