#include "core/rma/block_lock.hpp"

#include <pthread.h>

#include <atomic>

namespace ccs {
namespace {

std::atomic<uint64_t> cached_pid{0};  // 0: not read since start or the last fork

}  // namespace

uint64_t lock_holder_id() {
    static const bool forget_after_fork = [] {
        ::pthread_atfork(nullptr, nullptr, [] { cached_pid.store(0, std::memory_order_relaxed); });
        return true;
    }();
    (void)forget_after_fork;
    uint64_t pid = cached_pid.load(std::memory_order_relaxed);
    if (pid == 0) {
        pid = static_cast<uint64_t>(::getpid());
        cached_pid.store(pid, std::memory_order_relaxed);
    }
    return pid;
}

}  // namespace ccs
