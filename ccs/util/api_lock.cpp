#include "util/api_lock.hpp"

#include <mutex>
#include <thread>

namespace ccs {
namespace {

std::mutex g_lock;
// Threads blocked in enter(): a waiter in a loop lets them in.
std::atomic<uint32_t> g_waiting{0};
// Entry points this thread is inside while it holds the lock.
thread_local uint32_t t_depth = 0;

void lock_counted() {
    if (g_lock.try_lock()) return;
    g_waiting.fetch_add(1, std::memory_order_relaxed);
    g_lock.lock();
    g_waiting.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

void api_lock::enter() noexcept {
    if (t_depth++ == 0) lock_counted();
}

void api_lock::leave() noexcept {
    if (--t_depth == 0) g_lock.unlock();
}

bool api_lock::held_outermost() { return t_depth == 1; }

void api_lock::let_others_in() {
    if (t_depth != 1 || g_waiting.load(std::memory_order_relaxed) == 0) return;
    g_lock.unlock();
    // The mutex is not fair: without the yield this thread would often
    // take it straight back.
    std::this_thread::yield();
    lock_counted();
}

api_lock::released::released() noexcept {
    if (t_depth != 1) return;
    released_ = true;
    t_depth = 0;
    g_lock.unlock();
}

api_lock::released::~released() {
    if (!released_) return;
    lock_counted();
    t_depth = 1;
}

}  // namespace ccs
