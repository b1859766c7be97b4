// Helpers for the conformance suite. Every process of the job runs the same
// tests in the same order, so a test body is collective: keep every rank on
// the same path (EXPECT_*, not early returns) and bound every wait.
#pragma once

#include <ccs/ccs.h>
#include <ccs/coll.h>
#include <ccs/rma.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace conformance {

int rank();
int size();
// This process's rank in a team and the team's size; where the call is
// refused, the test fails and they are 0, never a negative size or index.
int team_rank(ccs_team_t t);
int team_size(ccs_team_t t);

// Progress until done() or the deadline; false on timeout (never hangs).
template <typename Done>
bool progress_until(Done done, double seconds = 120) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (ccs_progress() != CCS_OK) return false;
        if (std::chrono::steady_clock::now() > deadline) return false;
    }
    return true;
}

uint64_t stat(const char *name);

// A counter's value as an application polling it reads it: the progress
// thread may complete operations while this thread looks.
inline uint64_t counted(const ccs_counter_t &c) { return __atomic_load_n(&c.value, __ATOMIC_ACQUIRE); }

// How this process reaches `peer` (ccs_peer_query): what the suite expects
// of a transport comes from here and from statistics, never from its name.
ccs_peer_attr_t peer_attr(int peer);
uint32_t peer_flags(int peer);
std::string transport_to(int peer);

// A context created collectively for one test and destroyed at its end.
class scoped_context {
public:
    explicit scoped_context(const char *name, std::vector<ccs_am_handler_entry_t> handlers = {}, uint64_t flags = 0);
    ~scoped_context();
    ccs_context_t handle() const { return ctx_; }
    operator ccs_context_t() const { return ctx_; }

private:
    ccs_context_t ctx_{0};
};

// Deterministic payload bytes so receivers can check content, a whole
// buffer at a time: compiled optimised in every build (tests/CMakeLists.txt),
// which keeps sanitizer runs over buffers of many MiB short.
void fill_pattern(void *data, size_t length, uint64_t a, uint64_t b);
void fill_pattern(std::vector<uint8_t> &buf, uint64_t a, uint64_t b);
bool check_pattern(const void *data, size_t length, uint64_t a, uint64_t b);

// Resident set size of this process, bytes.
size_t resident_bytes();

// Whether an error's detail text says `part`.
inline bool mentions(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace conformance

#define CCS_ASSERT_OK(expr)                                                                      \
    do {                                                                                         \
        const ccs_status_t ccs_st_ = (expr);                                                     \
        ASSERT_EQ(ccs_st_, CCS_OK) << #expr << ": " << ccs_strerror(ccs_st_) << ": " << ccs_last_error(); \
    } while (0)
#define CCS_EXPECT_OK(expr)                                                                      \
    do {                                                                                         \
        const ccs_status_t ccs_st_ = (expr);                                                     \
        EXPECT_EQ(ccs_st_, CCS_OK) << #expr << ": " << ccs_strerror(ccs_st_) << ": " << ccs_last_error(); \
    } while (0)
