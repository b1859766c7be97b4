// Fences around copies into memory another process reads (a peer's memory
// mapped here): release after a put's bytes, so they are visible before
// whatever the caller does next; acquire before a get's. Free on x86,
// needed on weakly ordered CPUs. ThreadSanitizer cannot model fences (GCC
// refuses to compile them under it), and the other side of these is another
// process, which it cannot see anyway.
#pragma once

#include <atomic>

#if defined(__SANITIZE_THREAD__)
#define CCS_NO_FENCES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CCS_NO_FENCES 1
#endif
#endif

namespace ccs {

inline void release_fence() {
#ifndef CCS_NO_FENCES
    std::atomic_thread_fence(std::memory_order_release);
#endif
}

inline void acquire_fence() {
#ifndef CCS_NO_FENCES
    std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

}  // namespace ccs
