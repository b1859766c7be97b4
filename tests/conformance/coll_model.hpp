// Element values and the sequential model the collective tests check
// reductions against: small values every type holds exactly, so any order
// of combination gives the model's result bit for bit.
#pragma once

#include <ccs/rma.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <type_traits>

namespace conformance {

template <typename T>
constexpr bool is_complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// Rank r's element i for op `op`. Products stay small: factors 1, -1, 2.
template <typename T>
T element(int r, size_t i, int op) {
    const int k = static_cast<int>((i * 7 + static_cast<size_t>(r) * 5) % 11);
    const int v = op == CCS_ACC_PROD ? (k % 3 == 0 ? 1 : k % 3 == 1 ? -1 : 2) : k - 5;
    if constexpr (is_complex<T>) {
        using V = typename T::value_type;
        return T(static_cast<V>(v), static_cast<V>(op == CCS_ACC_PROD ? (k % 2) : v + 1));
    } else {
        return static_cast<T>(v);
    }
}

// left op right, as ccs_acc_op_t defines it.
template <typename T>
T combine(int op, T left, T right) {
    switch (op) {
    case CCS_ACC_SUM: return static_cast<T>(left + right);
    case CCS_ACC_PROD: return static_cast<T>(left * right);
    case CCS_ACC_REPLACE: return right;
    default:
        if constexpr (!is_complex<T>) return op == CCS_ACC_MIN ? std::min(left, right) : std::max(left, right);
        else return left;
    }
}

// Ranks first .. last combined in order.
template <typename T>
T fold(int op, size_t i, int first, int last) {
    T acc = element<T>(first, i, op);
    for (int r = first + 1; r <= last; ++r) acc = combine(op, acc, element<T>(r, i, op));
    return acc;
}

inline bool valid_reduction(int type, int op) {
    return !(type >= CCS_ACC_COMPLEX_FLOAT && (op == CCS_ACC_MIN || op == CCS_ACC_MAX));
}

// Calls fn(T{}, type) for every ccs_acc_type_t.
template <typename Fn>
void for_each_type(Fn fn) {
    fn(int32_t{}, CCS_ACC_INT32);
    fn(uint32_t{}, CCS_ACC_UINT32);
    fn(int64_t{}, CCS_ACC_INT64);
    fn(uint64_t{}, CCS_ACC_UINT64);
    fn(float{}, CCS_ACC_FLOAT);
    fn(double{}, CCS_ACC_DOUBLE);
    fn(std::complex<float>{}, CCS_ACC_COMPLEX_FLOAT);
    fn(std::complex<double>{}, CCS_ACC_COMPLEX_DOUBLE);
}

}  // namespace conformance
