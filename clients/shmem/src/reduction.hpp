// The reduction operations of both kinds of collectives (team reductions
// and the deprecated *_to_all): which ones CCS carries out itself
// (acc_type and acc_op not -1), and how to combine two values otherwise.
#pragma once

#include <ccs/rma.h>

#include <algorithm>
#include <type_traits>

namespace ccs::shmem {
enum class reduction { and_, or_, xor_, max, min, sum, prod };

// The C entry points are generated from the operation's name (and, or,
// ...), and `and`, `or`, `xor` are C++ operator tokens: the name with _r
// pasted on names the enumerator.
#define and_r and_
#define or_r or_
#define xor_r xor_
#define max_r max
#define min_r min
#define sum_r sum
#define prod_r prod

template <typename T>
constexpr int acc_type() {
    if constexpr (std::is_same_v<T, float>) return CCS_ACC_FLOAT;
    else if constexpr (std::is_same_v<T, double>) return CCS_ACC_DOUBLE;
    else if constexpr (std::is_same_v<T, float _Complex>) return CCS_ACC_COMPLEX_FLOAT;
    else if constexpr (std::is_same_v<T, double _Complex>) return CCS_ACC_COMPLEX_DOUBLE;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return std::is_signed_v<T> ? CCS_ACC_INT32 : CCS_ACC_UINT32;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return std::is_signed_v<T> ? CCS_ACC_INT64 : CCS_ACC_UINT64;
    else return -1;
}

constexpr int acc_op(reduction r) {
    switch (r) {
    case reduction::sum: return CCS_ACC_SUM;
    case reduction::prod: return CCS_ACC_PROD;
    case reduction::max: return CCS_ACC_MAX;
    case reduction::min: return CCS_ACC_MIN;
    default: return -1;
    }
}

template <typename T>
T combine(reduction r, T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        if (r == reduction::and_) return static_cast<T>(a & b);
        if (r == reduction::or_) return static_cast<T>(a | b);
        if (r == reduction::xor_) return static_cast<T>(a ^ b);
    }
    if constexpr (!std::is_same_v<T, float _Complex> && !std::is_same_v<T, double _Complex>) {
        if (r == reduction::max) return std::max(a, b);
        if (r == reduction::min) return std::min(a, b);
    }
    if (r == reduction::sum) return static_cast<T>(a + b);
    return static_cast<T>(a * b);
}
}  // namespace ccs::shmem
