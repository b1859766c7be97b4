#include "shm_copy.hpp"

#include <chrono>
#include <cstdio>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ccs::shm {
namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCS_SHM_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CCS_SHM_SANITIZED 1
#endif

// Enhanced REP MOVSB (CPUID.(EAX=7,ECX=0):EBX bit 9). Without it the
// instruction is slow, which is why libc avoids it.
bool has_fast_movsb() {
#if defined(__x86_64__) && !defined(CCS_SHM_SANITIZED)
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9));
#else
    return false;
#endif
}

}  // namespace

bulk_copy::bulk_copy(method wanted) : chosen_(has_fast_movsb() ? wanted : method::memcpy) {}

void bulk_copy::movsb(void *to, const void *from, size_t n) {
#if defined(__x86_64__)
    asm volatile("rep movsb" : "+D"(to), "+S"(from), "+c"(n) : : "memory");
#else
    std::memcpy(to, from, n);
#endif
}

bool bulk_copy::try_trial(void *to, const void *from, size_t n) {
    if (trying_.test_and_set(std::memory_order_acquire)) {  // another thread is timing one
        std::memcpy(to, from, n);
        return false;
    }
    bool decided = false;
    if (chosen_.load(std::memory_order_relaxed) == method::trial) decided = trial(to, from, n);
    else std::memcpy(to, from, n);  // decided since this call looked
    trying_.clear(std::memory_order_release);
    return decided;
}

bool bulk_copy::trial(void *to, const void *from, size_t n) {
    const int which = rounds_ % 2;
    const auto start = std::chrono::steady_clock::now();
    if (which == 0) std::memcpy(to, from, n);
    else movsb(to, from, n);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    // The best of several: a first touch of a page or a preemption only
    // ever makes a copy slower.
    const double per_byte = ns / static_cast<double>(n);
    double &best = best_ns_per_byte_[which];
    if (rounds_ < 2 || per_byte < best) best = per_byte;
    if (++rounds_ < 2 * rounds_each) return false;
    // memcpy unless rep movsb is clearly faster: a tie is better left to libc.
    const method faster = best_ns_per_byte_[1] < 0.97 * best_ns_per_byte_[0] ? method::movsb : method::memcpy;
    char text[160];
    std::snprintf(text, sizeof text, "copies of 1 MiB and more use %s (memcpy %.1f GB/s, rep movsb %.1f GB/s)",
                  faster == method::movsb ? "rep movsb" : "memcpy", 1 / best_ns_per_byte_[0], 1 / best_ns_per_byte_[1]);
    decision_ = text;
    chosen_.store(faster, std::memory_order_release);  // after decision_: readers of it look here first
    return true;
}

}  // namespace ccs::shm
