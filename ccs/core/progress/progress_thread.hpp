// The optional progress thread (CCS_PROGRESS_THREAD=1, or
// CCS_INIT_PROGRESS_THREAD): it makes progress for the whole process while
// the application computes, so emulated RMA, atomics and accumulates aimed
// at this process, large AMs and peer failures move without the
// application calling in. It stays out of the way while the application
// itself polls, and sleeps on the transports' wake-ups otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace ccs {

class progress_thread {
public:
    // How often the thread looks whether the application still polls: at
    // first, and at most once it has kept polling for a while.
    static constexpr std::chrono::microseconds look_every{1000};
    static constexpr std::chrono::microseconds look_at_most{16000};
    // The longest sleep on the wake-ups once nothing has come for a while
    // (CCS_WAIT_SLEEP_MAX_US at first, doubled at each quiet round).
    static constexpr std::chrono::microseconds sleep_at_most{16000};

    progress_thread() = default;
    ~progress_thread() { stop(); }
    progress_thread(const progress_thread &) = delete;
    progress_thread &operator=(const progress_thread &) = delete;

    // Each round `polled` looks, without the API lock, whether the
    // application polled since the last look: then the thread only waits
    // (look_every, doubled at each such look up to look_at_most) and takes
    // no lock (taking it costs the application a membarrier). Otherwise
    // `serve` runs under the lock; it returns true when the application
    // polled meanwhile or must run what waits for it (wait again), false
    // after it served and slept on the wake-ups (look_every again).
    // `wake` cuts that sleep short (stop() calls it).
    void start(std::function<bool()> polled, std::function<bool()> serve, std::function<void()> wake);
    // Joins the thread. The caller must not hold the API lock.
    void stop();
    bool running() const { return thread_.joinable(); }
    // Where it runs, for ccs_info ("PU 3: ...", or why it is not bound).
    const std::string &binding() const { return binding_; }

private:
    void run();
    std::string bind_self();

    std::function<bool()> polled_;
    std::function<bool()> serve_;
    std::function<void()> wake_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> bound_{false};  // binding_ written
    std::string binding_ = "not started";
    std::thread thread_;
};

}  // namespace ccs
