// The symmetric heap's C entry points. Each call is collective with the
// same arguments on every PE (so every PE's allocator hands out the same
// offsets) and synchronizes: after shmem_malloc returns anywhere, the block
// exists everywhere; shmem_free waits until no PE can still be using it.
#include "pe_state.hpp"

#include <cstring>

using namespace ccs::shmem;

namespace {
void *allocate(const char *call, size_t size, size_t alignment, bool clear = false) {
    pe_state &s = ready(call);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        fail(call, "alignment " + std::to_string(alignment) + " is not a power of two");
    void *p = size == 0 ? nullptr : s.heap.allocate(size, alignment);
    // Cleared before the barrier: after it, other PEs may write here.
    if (p && clear) std::memset(p, 0, size);
    barrier_all(call);
    return p;
}
}  // namespace

extern "C" {
void *shmem_malloc(size_t size) { return allocate("shmem_malloc", size, 16); }
void *shmem_malloc_with_hints(size_t size, long) { return allocate("shmem_malloc_with_hints", size, 16); }
void *shmalloc(size_t size) { return allocate("shmalloc", size, 16); }
void *shmem_align(size_t alignment, size_t size) { return allocate("shmem_align", size, alignment); }
void *shmemalign(size_t alignment, size_t size) { return allocate("shmemalign", size, alignment); }

void *shmem_calloc(size_t count, size_t size) {
    const char *call = "shmem_calloc";
    if (size != 0 && count > SIZE_MAX / size) {
        barrier_all(call);
        return nullptr;
    }
    return allocate(call, count * size, 16, true);
}

void shmem_free(void *ptr) {
    const char *call = "shmem_free";
    pe_state &s = ready(call);
    if (!ptr) return barrier_all(call);
    if (s.heap.block_size(ptr) == 0) fail(call, "the pointer is not a block of the symmetric heap");
    barrier_all(call);
    s.heap.release(ptr);
}
void shfree(void *ptr) { shmem_free(ptr); }

void *shmem_realloc(void *ptr, size_t size) {
    const char *call = "shmem_realloc";
    pe_state &s = ready(call);
    if (!ptr) return allocate(call, size, 16);
    if (s.heap.block_size(ptr) == 0) fail(call, "the pointer is not a block of the symmetric heap");
    barrier_all(call);  // nobody still writes into the block that may move
    void *p = nullptr;
    if (size == 0) s.heap.release(ptr);
    else p = s.heap.resize(ptr, size);
    barrier_all(call);
    return p;
}
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
}
