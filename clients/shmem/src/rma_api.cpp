// The C entry points of put and get: typed (table 5), sized and mem, each
// with its context, nonblocking, single-element and strided forms.
#include "rma.hpp"

using namespace ccs::shmem;

extern "C" {
#define SHMEM_DEFINE_RMA_(T, N)                                                                                   \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {                 \
        put_bytes("shmem_" #N "_put", ctx, dest, source, byte_count("shmem_" #N "_put", nelems, sizeof(T)), pe);  \
    }                                                                                                             \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {                                      \
        shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                         \
    }                                                                                                             \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {             \
        put_bytes("shmem_" #N "_put_nbi", ctx, dest, source, byte_count("shmem_" #N "_put_nbi", nelems, sizeof(T)), \
                  pe);                                                                                            \
    }                                                                                                             \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                                  \
        shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                     \
    }                                                                                                             \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {                 \
        get_bytes("shmem_" #N "_get", ctx, dest, source, byte_count("shmem_" #N "_get", nelems, sizeof(T)), pe);  \
    }                                                                                                             \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {                                      \
        shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                         \
    }                                                                                                             \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {             \
        get_bytes_nbi("shmem_" #N "_get_nbi", ctx, dest, source,                                                  \
                      byte_count("shmem_" #N "_get_nbi", nelems, sizeof(T)), pe);                                 \
    }                                                                                                             \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                                  \
        shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                     \
    }                                                                                                             \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                                          \
        put_bytes("shmem_" #N "_p", ctx, dest, &value, sizeof(T), pe);                                            \
    }                                                                                                             \
    void shmem_##N##_p(T *dest, T value, int pe) { shmem_ctx_##N##_p(SHMEM_CTX_DEFAULT, dest, value, pe); }      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) {                                              \
        T value;                                                                                                  \
        get_bytes("shmem_" #N "_g", ctx, &value, source, sizeof(T), pe);                                          \
        return value;                                                                                             \
    }                                                                                                             \
    T shmem_##N##_g(const T *source, int pe) { return shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, source, pe); }        \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                              size_t nelems, int pe) {                                                            \
        put_strided("shmem_" #N "_iput", ctx, dest, source, dst, sst, nelems, sizeof(T), pe);                     \
    }                                                                                                             \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {       \
        shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                              \
    }                                                                                                             \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                              size_t nelems, int pe) {                                                            \
        get_strided("shmem_" #N "_iget", ctx, dest, source, dst, sst, nelems, sizeof(T), pe);                     \
    }                                                                                                             \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {       \
        shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                              \
    }
SHMEM_RMA_TYPES_(SHMEM_DEFINE_RMA_)

#define SHMEM_DEFINE_SIZED_(B)                                                                                     \
    void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {               \
        put_bytes("shmem_put" #B, ctx, dest, source, byte_count("shmem_put" #B, nelems, B / 8), pe);               \
    }                                                                                                              \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe) {                                    \
        shmem_ctx_put##B(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                             \
    }                                                                                                              \
    void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {         \
        put_bytes("shmem_put" #B "_nbi", ctx, dest, source, byte_count("shmem_put" #B "_nbi", nelems, B / 8), pe); \
    }                                                                                                              \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe) {                              \
        shmem_ctx_put##B##_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                       \
    }                                                                                                              \
    void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {               \
        get_bytes("shmem_get" #B, ctx, dest, source, byte_count("shmem_get" #B, nelems, B / 8), pe);               \
    }                                                                                                              \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe) {                                    \
        shmem_ctx_get##B(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                             \
    }                                                                                                              \
    void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {         \
        get_bytes_nbi("shmem_get" #B "_nbi", ctx, dest, source, byte_count("shmem_get" #B "_nbi", nelems, B / 8),  \
                      pe);                                                                                         \
    }                                                                                                              \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe) {                              \
        shmem_ctx_get##B##_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                                       \
    }                                                                                                              \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t nelems, int pe) {                                                                \
        put_strided("shmem_iput" #B, ctx, dest, source, dst, sst, nelems, B / 8, pe);                              \
    }                                                                                                              \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
        shmem_ctx_iput##B(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                  \
    }                                                                                                              \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                           size_t nelems, int pe) {                                                                \
        get_strided("shmem_iget" #B, ctx, dest, source, dst, sst, nelems, B / 8, pe);                              \
    }                                                                                                              \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
        shmem_ctx_iget##B(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                  \
    }
SHMEM_RMA_SIZES_(SHMEM_DEFINE_SIZED_)

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    put_bytes("shmem_putmem", ctx, dest, source, nelems, pe);
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    put_bytes("shmem_putmem", SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    put_bytes("shmem_putmem_nbi", ctx, dest, source, nelems, pe);
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    put_bytes("shmem_putmem_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    get_bytes("shmem_getmem", ctx, dest, source, nelems, pe);
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe) {
    get_bytes("shmem_getmem", SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    get_bytes_nbi("shmem_getmem_nbi", ctx, dest, source, nelems, pe);
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    get_bytes_nbi("shmem_getmem_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
}
