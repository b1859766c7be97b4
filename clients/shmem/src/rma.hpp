// Contiguous and strided put and get of bytes, which every typed, sized
// and mem form of the RMA calls comes down to.
#pragma once

#include "pe_state.hpp"

namespace ccs::shmem {
// A put to a PE numbered in the world.
void put_to_world_pe(const char *call, const pe_state &s, void *dest, const void *source, size_t bytes, int pe);
// Blocking put: the source is reusable on return; the data is at the
// target after the next quiet (or barrier).
void put_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe);
// Blocking get: the data is in `dest` on return.
void get_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe);
// Nonblocking get: the data is in `dest` after the context's next quiet.
void get_bytes_nbi(const char *call, shmem_ctx_t ctx, void *dest, const void *source, size_t bytes, int pe);
// Every `dst`-th and `sst`-th element of `element` bytes, `nelems` times.
void put_strided(const char *call, shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t element, int pe);
void get_strided(const char *call, shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t element, int pe);
// nelems * element, or fail() on overflow.
size_t byte_count(const char *call, size_t nelems, size_t element);
}  // namespace ccs::shmem
