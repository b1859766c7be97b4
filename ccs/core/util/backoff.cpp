#include "util/backoff.hpp"

#include <sched.h>
#include <time.h>

namespace ccs {
namespace {
// A message between two cores arrives in well under a microsecond; 512 empty
// polls are several microseconds, so a ping-pong never reaches the yield.
constexpr uint32_t spin_polls = 512;
// Past this many idle polls (each now with a sched_yield), nap briefly.
constexpr uint32_t yield_polls = spin_polls + 4096;
constexpr long nap_ns = 20'000;
}  // namespace

void backoff::idle() {
    if (idle_polls_ < yield_polls) ++idle_polls_;
    if (idle_polls_ < spin_polls) return;
    if (idle_polls_ < yield_polls) {
        sched_yield();
        return;
    }
    const timespec ts{0, nap_ns};
    nanosleep(&ts, nullptr);
}

}  // namespace ccs
