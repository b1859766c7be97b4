// Point-to-point synchronization: wait_until and test on one word or a
// vector of them (table 10 types), and the deprecated waits.
#include "atomics.hpp"

#include <cstdint>

using namespace ccs::shmem;

namespace {
template <typename T>
bool holds(T value, int cmp, T against) {
    switch (cmp) {
    case SHMEM_CMP_EQ: return value == against;
    case SHMEM_CMP_NE: return value != against;
    case SHMEM_CMP_GT: return value > against;
    case SHMEM_CMP_GE: return value >= against;
    case SHMEM_CMP_LT: return value < against;
    default: return value <= against;
    }
}

void check_cmp(const char *call, int cmp) {
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) fail(call, "comparison " + std::to_string(cmp) + " is no SHMEM_CMP_*");
}

template <typename T>
void wait_until(const char *call, const T *ivar, int cmp, T value) {
    ready(call);
    check_cmp(call, cmp);
    check(call, ccs_wait_until(ivar, word_type<T>(), cmp, operand(value)));
}

// What the vector forms share: which entries count, and whether entry i
// holds now (status[i] != 0 leaves entry i out).
template <typename T>
struct vector_test {
    const char *call;
    const T *ivars;
    size_t nelems;
    const int *status;
    int cmp;
    const T *values;  // one per entry, or
    T value;          // the same for all

    bool counts(size_t i) const { return !status || status[i] == 0; }
    bool holds_at(size_t i) const {
        return holds(__atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE), cmp, values ? values[i] : value);
    }
    void validate() const {
        ready(call);
        check_cmp(call, cmp);
        if (nelems > 0 && !ivars) fail(call, "ivars is NULL");
    }
    bool all() const {
        for (size_t i = 0; i < nelems; ++i)
            if (counts(i) && !holds_at(i)) return false;
        return true;
    }
    size_t any() const {
        for (size_t i = 0; i < nelems; ++i)
            if (counts(i) && holds_at(i)) return i;
        return SIZE_MAX;
    }
    size_t some(size_t *indices) const {
        size_t n = 0;
        for (size_t i = 0; i < nelems; ++i)
            if (counts(i) && holds_at(i)) indices[n++] = i;
        return n;
    }
    bool none_counts() const {
        for (size_t i = 0; i < nelems; ++i)
            if (counts(i)) return false;
        return true;
    }
};

// Polls with ccs_progress until `done()`; ccs_progress backs off and
// yields the CPU when called in a loop with nothing to do.
template <typename F>
void progress_until(const char *call, F done) {
    while (!done()) check(call, ccs_progress());
}

template <typename T>
void wait_all(vector_test<T> t) {
    t.validate();
    for (size_t i = 0; i < t.nelems; ++i)
        if (t.counts(i)) wait_until(t.call, &t.ivars[i], t.cmp, t.values ? t.values[i] : t.value);
}

template <typename T>
size_t wait_any(vector_test<T> t) {
    t.validate();
    if (t.none_counts()) return SIZE_MAX;
    size_t found = SIZE_MAX;
    progress_until(t.call, [&] { return (found = t.any()) != SIZE_MAX; });
    return found;
}

template <typename T>
size_t wait_some(vector_test<T> t, size_t *indices) {
    t.validate();
    if (!indices && t.nelems > 0) fail(t.call, "indices is NULL");
    if (t.none_counts()) return 0;
    size_t n = 0;
    progress_until(t.call, [&] { return (n = t.some(indices)) > 0; });
    return n;
}

template <typename T>
int test_one(const char *call, const T *ivar, int cmp, T value) {
    ready(call);
    check_cmp(call, cmp);
    if (!ivar) fail(call, "ivar is NULL");
    check(call, ccs_progress());
    return holds(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, value) ? 1 : 0;
}

template <typename T>
vector_test<T> tested(vector_test<T> t) {
    t.validate();
    check(t.call, ccs_progress());
    return t;
}
}  // namespace

extern "C" {
#define SHMEM_DEFINE_SYNC_(T, N)                                                                                    \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                                    \
        wait_until<T>("shmem_" #N "_wait_until", ivar, cmp, cmp_value);                                             \
    }                                                                                                               \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {             \
        wait_all<T>({"shmem_" #N "_wait_until_all", ivars, nelems, status, cmp, nullptr, cmp_value});                \
    }                                                                                                               \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {           \
        return wait_any<T>({"shmem_" #N "_wait_until_any", ivars, nelems, status, cmp, nullptr, cmp_value});         \
    }                                                                                                               \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,        \
                                       T cmp_value) {                                                               \
        return wait_some<T>({"shmem_" #N "_wait_until_some", ivars, nelems, status, cmp, nullptr, cmp_value},        \
                            indices);                                                                               \
    }                                                                                                               \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) {    \
        wait_all<T>({"shmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp, cmp_values, 0});              \
    }                                                                                                               \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) {  \
        return wait_any<T>({"shmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp, cmp_values, 0});       \
    }                                                                                                               \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                              T *cmp_values) {                                                      \
        return wait_some<T>({"shmem_" #N "_wait_until_some_vector", ivars, nelems, status, cmp, cmp_values, 0},      \
                            indices);                                                                               \
    }                                                                                                               \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                                           \
        return test_one<T>("shmem_" #N "_test", ivar, cmp, cmp_value);                                              \
    }                                                                                                               \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {                    \
        return tested<T>({"shmem_" #N "_test_all", ivars, nelems, status, cmp, nullptr, cmp_value}).all();           \
    }                                                                                                               \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {                 \
        return tested<T>({"shmem_" #N "_test_any", ivars, nelems, status, cmp, nullptr, cmp_value}).any();           \
    }                                                                                                               \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
                                 T cmp_value) {                                                                     \
        if (!indices && nelems > 0) fail("shmem_" #N "_test_some", "indices is NULL");                              \
        return tested<T>({"shmem_" #N "_test_some", ivars, nelems, status, cmp, nullptr, cmp_value}).some(indices);  \
    }                                                                                                               \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) {           \
        return tested<T>({"shmem_" #N "_test_all_vector", ivars, nelems, status, cmp, cmp_values, 0}).all();         \
    }                                                                                                               \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) {        \
        return tested<T>({"shmem_" #N "_test_any_vector", ivars, nelems, status, cmp, cmp_values, 0}).any();         \
    }                                                                                                               \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,       \
                                        T *cmp_values) {                                                            \
        if (!indices && nelems > 0) fail("shmem_" #N "_test_some_vector", "indices is NULL");                       \
        return tested<T>({"shmem_" #N "_test_some_vector", ivars, nelems, status, cmp, cmp_values, 0})               \
            .some(indices);                                                                                         \
    }
SHMEM_SYNC_TYPES_(SHMEM_DEFINE_SYNC_)

void shmem_int_wait(int *ivar, int cmp_value) { wait_until<int>("shmem_int_wait", ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_long_wait(long *ivar, long cmp_value) {
    wait_until<long>("shmem_long_wait", ivar, SHMEM_CMP_NE, cmp_value);
}
void shmem_longlong_wait(long long *ivar, long long cmp_value) {
    wait_until<long long>("shmem_longlong_wait", ivar, SHMEM_CMP_NE, cmp_value);
}
void shmem_wait(long *ivar, long cmp_value) { wait_until<long>("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_wait_until(long *ivar, int cmp, long cmp_value) {
    wait_until<long>("shmem_wait_until", ivar, cmp, cmp_value);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    ready("shmem_signal_fetch");
    if (!sig_addr) fail("shmem_signal_fetch", "sig_addr is NULL");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    wait_until<uint64_t>("shmem_signal_wait_until", sig_addr, cmp, cmp_value);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
}
