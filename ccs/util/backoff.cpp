#include "util/backoff.hpp"

#include <algorithm>

#include <sched.h>
#include <time.h>

namespace ccs {

const backoff::system backoff::real_system{
    &clock::now,
    [] { sched_yield(); },
    [] {
        const timespec ts{0, 20'000};
        nanosleep(&ts, nullptr);
    },
};

void backoff::idle() {
    if (idle_polls_ < spin_) {
        if (++idle_polls_ == spin_) idle_since_ = sys_.now();
        return;
    }
    if (idle_polls_++ == 0) idle_since_ = sys_.now();  // no spin
    // Read the clock only now and then: it costs about as much as a poll.
    if (crowded_ && (idle_polls_ & 63) == 0 && sys_.now() - idle_since_ > nap_after) {
        sys_.nap();
        ++naps_;
        return;
    }
    if (polls_to_yield_ > 0) {
        --polls_to_yield_;
        return;
    }
    yield();
}

void backoff::yield() {
    const auto before = sys_.now();
    sys_.yield();
    const auto took = sys_.now() - before;
    ++yields_;
    quickest_yield_ = std::min(quickest_yield_, took);
    crowded_ = took > quickest_yield_ * gave_core_away_factor;
    yield_every_ = crowded_ ? 1 : std::min(yield_every_ * 2, max_yield_every);
    polls_to_yield_ = yield_every_ - 1;
}

}  // namespace ccs
