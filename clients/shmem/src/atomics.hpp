// Atomic memory operations on one word of a PE's symmetric memory, as
// ccs_atomic carries them: every SHMEM type is a 32- or 64-bit CCS word
// (float and double by their bits, for fetch, set and swap).
#pragma once

#include "pe_state.hpp"

#include <bit>
#include <type_traits>

namespace ccs::shmem {
template <typename T>
constexpr int word_type() {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics are on 32- and 64-bit words");
    if constexpr (std::is_floating_point_v<T> || std::is_unsigned_v<T>) return sizeof(T) == 4 ? CCS_UINT32 : CCS_UINT64;
    else return sizeof(T) == 4 ? CCS_INT32 : CCS_INT64;
}

template <typename T>
uint64_t operand(T v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
    else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
    else if constexpr (std::is_signed_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
    else return static_cast<uint64_t>(v);
}

// Applies `op` and returns what the word held before.
template <typename T>
T atomic_fetching(const char *call, shmem_ctx_t ctx, int op, const T *dest, T value, T cond, int pe) {
    const pe_state &s = ready(call);
    pe = world_pe(call, live(call, ctx), pe);
    const remote_location r = locate(call, s, dest, sizeof(T), pe);
    T old;
    check(call, ccs_atomic_sync(s.context, pe, op, word_type<T>(), r.address, r.key, operand(value), operand(cond),
                                &old));
    return old;
}

// The same, the old value landing in *fetch by the context's next quiet.
template <typename T>
void atomic_fetching_nbi(const char *call, shmem_ctx_t ctx, int op, T *fetch, const T *dest, T value, T cond,
                         int pe) {
    const pe_state &s = ready(call);
    shmem_ctx_s &c = live(call, ctx);
    pe = world_pe(call, c, pe);
    if (!fetch) fail(call, "fetch is NULL");
    const remote_location r = locate(call, s, dest, sizeof(T), pe);
    const ccs_completion_t counted{nullptr, nullptr, &c.done};
    c.issued.fetch_add(1, std::memory_order_relaxed);
    check(call, ccs_atomic(s.context, pe, op, word_type<T>(), r.address, r.key, operand(value), operand(cond), fetch,
                           &counted));
}

// Without a result: done at the target by the next quiet.
template <typename T>
void atomic_post(const char *call, shmem_ctx_t ctx, int op, T *dest, T value, int pe) {
    const pe_state &s = ready(call);
    pe = world_pe(call, live(call, ctx), pe);
    const remote_location r = locate(call, s, dest, sizeof(T), pe);
    check(call, ccs_atomic(s.context, pe, op, word_type<T>(), r.address, r.key, operand(value), 0, nullptr, nullptr));
}
}  // namespace ccs::shmem
