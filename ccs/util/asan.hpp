// Whether AddressSanitizer instruments this build (GCC says so with
// __SANITIZE_ADDRESS__, Clang with __has_feature), and the poisoning calls
// for code that keeps memory of its own, as no-ops without it.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CCS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCS_ASAN 1
#endif
#endif

#if defined(CCS_ASAN)
#include <sanitizer/asan_interface.h>
#define CCS_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CCS_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CCS_POISON(p, n) ((void)(p), (void)(n))
#define CCS_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
