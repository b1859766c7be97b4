#include "core/progress/sleeper.hpp"

#include "util/api_lock.hpp"

#include <cerrno>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace ccs {

sleeper::~sleeper() {
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (event_fd_ >= 0) ::close(event_fd_);
}

std::string sleeper::set_up(const std::vector<transport *> &transports) {
    transports_ = transports;
    complete_ = false;
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return std::string("epoll_create1: ") + std::strerror(errno);
    event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (event_fd_ < 0) return std::string("eventfd: ") + std::strerror(errno);
    auto add = [this](int fd) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        return ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
    };
    if (!add(event_fd_)) return std::string("epoll_ctl: ") + std::strerror(errno);
    std::string missing;
    for (transport *t : transports_) {
        const int fd = t->wakeup_fd();
        if (fd < 0 || !add(fd)) missing += (missing.empty() ? "" : ", ") + t->name();
    }
    if (!missing.empty()) return "no wake-up from " + missing;
    complete_ = true;
    return "";
}

bool sleeper::sleep(std::chrono::nanoseconds timeout) {
    if (epoll_fd_ < 0) return false;
    if (!descriptors_.try_lock()) {
        sleep_on_condition(timeout);
        return true;
    }
    const bool slept = sleep_on_descriptors(timeout);
    descriptors_.unlock();
    return slept;
}

bool sleeper::sleep_on_descriptors(std::chrono::nanoseconds timeout) {
    for (transport *t : transports_) {
        const ccs_plugin_status_t st = t->wakeup_arm();
        if (st == CCS_PLUGIN_AGAIN) return false;
        if (st != CCS_PLUGIN_OK) timeout = std::min<std::chrono::nanoseconds>(timeout, slice_without_wakeup);
    }
    if (!complete_) timeout = std::min<std::chrono::nanoseconds>(timeout, slice_without_wakeup);
    ++sleeps_;
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    in_epoll_.store(true, std::memory_order_seq_cst);
    int n = 0;
    {
        const api_lock::released unlocked;
        epoll_event events[8];
        // epoll_wait counts milliseconds; epoll_pwait2 (Linux 5.11) takes
        // a timespec, so short slices stay short.
        const auto ns = timeout.count();
        const timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
        n = ::epoll_pwait2(epoll_fd_, events, 8, &ts, nullptr);
        if (n < 0 && errno == ENOSYS)  // a kernel before 5.11: whole milliseconds
            n = ::epoll_wait(epoll_fd_, events, 8, static_cast<int>((ns + 999999) / 1000000));
    }
    in_epoll_.store(false, std::memory_order_seq_cst);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    if (n > 0) ++woken_;
    uint64_t drained = 0;
    while (::read(event_fd_, &drained, sizeof drained) > 0) {
    }
    return true;
}

// The API lock is given up only once this thread counts as a sleeper, so a
// thread that makes progress after it takes the lock sees it and signals.
void sleeper::sleep_on_condition(std::chrono::nanoseconds timeout) {
    std::unique_lock<std::mutex> lock(condition_mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    {
        const api_lock::released unlocked;
        condition_.wait_for(lock, timeout);
        // The condition's mutex goes before the API lock is taken back: a
        // waker holds the API lock while it takes the condition's mutex.
        lock.unlock();
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
}

void sleeper::wake() {
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    { const std::lock_guard<std::mutex> lock(condition_mutex_); }
    condition_.notify_all();
    if (in_epoll_.load(std::memory_order_seq_cst) && event_fd_ >= 0) {
        const uint64_t one = 1;
        (void)::write(event_fd_, &one, sizeof one);
    }
}

}  // namespace ccs
