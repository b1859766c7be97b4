#include "util/backoff.hpp"

#include <sched.h>
#include <time.h>

namespace ccs {
namespace {
// A message between two cores arrives in well under a microsecond; 512 empty
// polls are several microseconds, so a ping-pong never reaches the yield.
constexpr uint32_t spin_polls = 512;
// Idle this long, a process naps on each idle poll. Long enough that a
// transfer in progress (a peer copying megabytes) never triggers it.
constexpr auto nap_after = std::chrono::milliseconds(5);
constexpr long nap_ns = 20'000;
}  // namespace

void backoff::idle() {
    if (idle_polls_ < spin_polls) {
        if (++idle_polls_ == spin_polls) idle_since_ = std::chrono::steady_clock::now();
        return;
    }
    ++idle_polls_;
    // Read the clock only now and then: it costs about as much as a poll.
    if ((idle_polls_ & 63) == 0 && std::chrono::steady_clock::now() - idle_since_ > nap_after) {
        const timespec ts{0, nap_ns};
        nanosleep(&ts, nullptr);
        return;
    }
    sched_yield();
}

}  // namespace ccs
