// Sleeping until a transport has something: one epoll over every
// transport's wake-up descriptor and the core's own event descriptor, which
// another thread of this process writes to cut a sleep short. A transport
// without a wake-up keeps sleeps short (slices), since only polling finds
// its arrivals. One thread at a time sleeps on the descriptors; others
// that sleep meanwhile wait on a condition that wake() signals, since the
// thread that got the event runs the progress they wait for.
#pragma once

#include "core/transport.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace ccs {

class sleeper {
public:
    // Slices a sleep is cut into when some transport cannot wake it.
    static constexpr std::chrono::microseconds slice_without_wakeup{50};

    sleeper() = default;
    ~sleeper();
    sleeper(const sleeper &) = delete;
    sleeper &operator=(const sleeper &) = delete;

    // After the wire-up. "" or why sleeps fall back to slices (logged once).
    std::string set_up(const std::vector<transport *> &transports);

    // Arms every transport, then sleeps up to `timeout` until a transport
    // or wake() signals. False, without sleeping, when a transport had
    // something ready already. The caller holds the API lock if it is on;
    // it is given up for the sleep itself.
    bool sleep(std::chrono::nanoseconds timeout);
    // Cuts the current sleep short (any thread); a no-op when nobody sleeps.
    void wake();
    // Sleeps so far, and those a wake-up ended before their time.
    uint64_t sleeps() const { return sleeps_; }
    uint64_t woken() const { return woken_; }
    // Whether sleeps are cut into slices (some transport has no wake-up).
    bool sliced() const { return !complete_; }

private:
    std::vector<transport *> transports_;
    int epoll_fd_ = -1;
    int event_fd_ = -1;
    bool complete_ = false;
    bool sleep_on_descriptors(std::chrono::nanoseconds timeout);
    void sleep_on_condition(std::chrono::nanoseconds timeout);

    std::mutex descriptors_;             // held by the thread in epoll
    std::atomic<bool> in_epoll_{false};
    std::atomic<uint32_t> sleepers_{0};  // threads in either sleep
    std::mutex condition_mutex_;
    std::condition_variable condition_;
    // Counted under the API lock, or by its one thread.
    uint64_t sleeps_ = 0;
    uint64_t woken_ = 0;
};

}  // namespace ccs
