// Objects the application holds by handle (contexts, teams): kept until
// the process ends, destroyed ones marked so, so that a stale handle is
// named instead of reaching freed memory.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace ccs::shmem {
template <typename T>
struct handle_pool {
    std::mutex lock;
    std::vector<std::unique_ptr<T>> all;

    T *keep(std::unique_ptr<T> made) {
        T *handle = made.get();
        std::lock_guard<std::mutex> hold(lock);
        all.push_back(std::move(made));
        return handle;
    }
};
}  // namespace ccs::shmem
