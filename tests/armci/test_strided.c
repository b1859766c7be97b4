/* Strided put, get and accumulate at every stride depth (0 .. 7) and for
 * every accumulate type, blocking and not, against a local model: each
 * process writes its own slice of the next process's memory, then every
 * process accumulates into one region of process 0 at once. Also
 * armci_read_strided/armci_write_strided and PutS_flag, and more distinct
 * shapes than a program usually moves. */
#include "check.h"

#include <complex.h>
#include <stdint.h>

enum { slice_bytes = 32768, max_levels = 7 };

/* The shape of one depth: count[0] bytes of `elem`-byte elements, count[i]
 * = 2 for every level, and a side's strides leaving gaps of `gap` bytes. */
typedef struct {
    int levels;
    int count[max_levels + 1];
    int stride[max_levels];
} shape_t;

static shape_t shape(int levels, int bytes, int gap) {
    shape_t s;
    s.levels = levels;
    s.count[0] = bytes;
    int extent = bytes;
    for (int i = 1; i <= levels; ++i) {
        s.count[i] = i == 1 ? 3 : 2;
        s.stride[i - 1] = extent + gap;
        extent = s.stride[i - 1] * s.count[i];
    }
    return s;
}

/* Calls fn(offset of block b, b) for every contiguous block in order. */
static int blocks(const shape_t *s) {
    int n = 1;
    for (int i = 1; i <= s->levels; ++i) n *= s->count[i];
    return n;
}
static int block_offset(const shape_t *s, int b) {
    int off = 0;
    for (int i = 1; i <= s->levels; ++i) {
        off += (b % s->count[i]) * s->stride[i - 1];
        b /= s->count[i];
    }
    return off;
}

static unsigned char pattern(int me, int levels, int i) { return (unsigned char)(1 + (me * 31 + levels * 7 + i) % 251); }

static void check_put_get(char **bases, int me, int nproc, int levels, int blocking) {
    const int target = (me + 1) % nproc;
    char *slice = bases[target] + me * slice_bytes;
    shape_t src = shape(levels, 24, 8), dst = shape(levels, 24, 40), back = shape(levels, 24, 0);
    static char local[slice_bytes], got[slice_bytes], zeros[slice_bytes], whole[slice_bytes];
    memset(local, 0, sizeof local);
    const int n = blocks(&src);
    for (int b = 0; b < n; ++b)
        for (int j = 0; j < src.count[0]; ++j) local[block_offset(&src, b) + j] = (char)pattern(me, levels, b * 24 + j);
    CHECK(ARMCI_Put(zeros, slice, slice_bytes, target) == 0, "zeroing the slice");
    if (blocking) {
        CHECK(ARMCI_PutS(local, src.stride, slice, dst.stride, src.count, levels, target) == 0, "PutS depth %d", levels);
    } else {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbPutS(local, src.stride, slice, dst.stride, src.count, levels, target, &h) == 0, "NbPutS");
        CHECK(ARMCI_Wait(&h) == 0, "Wait");
    }
    ARMCI_Fence(target);
    memset(got, 0, sizeof got);
    if (blocking) {
        CHECK(ARMCI_GetS(slice, dst.stride, got, back.stride, back.count, levels, target) == 0, "GetS depth %d", levels);
    } else {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbGetS(slice, dst.stride, got, back.stride, back.count, levels, target, &h) == 0, "NbGetS");
        CHECK(ARMCI_Wait(&h) == 0, "Wait");
    }
    for (int b = 0; b < n; ++b)
        for (int j = 0; j < 24; ++j)
            CHECK(got[block_offset(&back, b) + j] == (char)pattern(me, levels, b * 24 + j),
                  "depth %d block %d byte %d", levels, b, j);
    /* Nothing outside the blocks was written. */
    CHECK(ARMCI_Get(slice, whole, slice_bytes, target) == 0, "Get");
    int expected_nonzero = 0, nonzero = 0;
    for (int b = 0; b < n; ++b) expected_nonzero += 24;
    for (int i = 0; i < slice_bytes; ++i) nonzero += whole[i] != 0;
    CHECK(nonzero == expected_nonzero, "depth %d: %d bytes written, %d expected", levels, nonzero, expected_nonzero);
}

/* Every type: the target's elements start at base values, accumulate
 * scale * src, compare with the model. */
static void check_acc_type(char **bases, int me, int nproc, int type, int levels) {
    const int target = (me + 1) % nproc;
    char *slice = bases[target] + me * slice_bytes;
    const int elem = type == ARMCI_ACC_INT ? 4 : type == ARMCI_ACC_LNG ? (int)sizeof(long)
                     : type == ARMCI_ACC_FLT ? 4 : type == ARMCI_ACC_DBL ? 8 : type == ARMCI_ACC_CPL ? 8 : 16;
    const int per_block = 3;
    shape_t src = shape(levels, per_block * elem, elem), dst = shape(levels, per_block * elem, 2 * elem);
    static char local[slice_bytes], base[slice_bytes], got[slice_bytes];
    memset(base, 0, sizeof base);
    memset(local, 0, sizeof local);
    const int n = blocks(&src);
    for (int b = 0; b < n; ++b)
        for (int k = 0; k < per_block; ++k) {
            const int v = b * per_block + k + 1, w = me + 2;
            char *s = local + block_offset(&src, b) + k * elem, *d = base + block_offset(&dst, b) + k * elem;
            switch (type) {
            case ARMCI_ACC_INT: *(int *)s = v; *(int *)d = w; break;
            case ARMCI_ACC_LNG: *(long *)s = v; *(long *)d = w; break;
            case ARMCI_ACC_FLT: *(float *)s = (float)v; *(float *)d = (float)w; break;
            case ARMCI_ACC_DBL: *(double *)s = v; *(double *)d = w; break;
            case ARMCI_ACC_CPL: *(float complex *)s = v + 1.0f * I; *(float complex *)d = w; break;
            default: *(double complex *)s = v - 2.0 * I; *(double complex *)d = w; break;
            }
        }
    CHECK(ARMCI_Put(base, slice, slice_bytes, target) == 0, "Put base");
    int iscale = 3; long lscale = 3; float fscale = 3; double dscale = 3;
    float complex cscale = 3 + 1.0f * I; double complex zscale = 3 - 1.0 * I;
    void *scale = type == ARMCI_ACC_INT ? (void *)&iscale : type == ARMCI_ACC_LNG ? (void *)&lscale
                  : type == ARMCI_ACC_FLT ? (void *)&fscale : type == ARMCI_ACC_DBL ? (void *)&dscale
                  : type == ARMCI_ACC_CPL ? (void *)&cscale : (void *)&zscale;
    CHECK(ARMCI_AccS(type, scale, local, src.stride, slice, dst.stride, src.count, levels, target) == 0,
          "AccS type %d depth %d", type, levels);
    ARMCI_Fence(target);
    CHECK(ARMCI_Get(slice, got, slice_bytes, target) == 0, "Get");
    for (int b = 0; b < n; ++b)
        for (int k = 0; k < per_block; ++k) {
            const int v = b * per_block + k + 1, w = me + 2;
            const char *g = got + block_offset(&dst, b) + k * elem;
            int ok;
            switch (type) {
            case ARMCI_ACC_INT: ok = *(const int *)g == w + 3 * v; break;
            case ARMCI_ACC_LNG: ok = *(const long *)g == w + 3 * v; break;
            case ARMCI_ACC_FLT: ok = *(const float *)g == (float)(w + 3 * v); break;
            case ARMCI_ACC_DBL: ok = *(const double *)g == w + 3.0 * v; break;
            case ARMCI_ACC_CPL: ok = *(const float complex *)g == w + (3 + 1.0f * I) * (v + 1.0f * I); break;
            default: ok = *(const double complex *)g == w + (3 - 1.0 * I) * (v - 2.0 * I); break;
            }
            CHECK(ok, "type %d depth %d block %d element %d", type, levels, b, k);
        }
}

/* Everyone accumulates into the same doubles of process 0 at once. */
static void check_contended_acc(char **bases, int me, int nproc) {
    double *shared = (double *)(bases[0] + (nproc + 1) * slice_bytes);
    enum { n = 512, rounds = 20 };
    static double ones[n];
    for (int i = 0; i < n; ++i) ones[i] = i % 7;
    double scale = 1.0 + me;
    int src_stride[1] = {8 * 8}, dst_stride[1] = {8 * 8}, count[2] = {8 * 8, n / 8};
    for (int r = 0; r < rounds; ++r) {
        if (r % 2) CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &scale, ones, shared, n * 8, 0) == 0, "Acc");
        else CHECK(ARMCI_AccS(ARMCI_ACC_DBL, &scale, ones, src_stride, shared, dst_stride, count, 1, 0) == 0, "AccS");
    }
    ARMCI_Barrier();
    double want_scale = 0;
    for (int p = 0; p < nproc; ++p) want_scale += 1.0 + p;
    if (me == 0)
        for (int i = 0; i < n; ++i)
            CHECK(shared[i] == rounds * want_scale * (i % 7), "element %d: %g, want %g", i, shared[i],
                  rounds * want_scale * (i % 7));
    ARMCI_Barrier();
}

static void check_local_copies(void) {
    char region[4096], packed[1024], back[4096];
    for (int i = 0; i < 4096; ++i) region[i] = (char)i;
    int stride[2] = {100, 700}, count[3] = {10, 5, 3};
    armci_read_strided(region, 2, stride, count, packed);
    int k = 0;
    for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 5; ++b)
            for (int j = 0; j < 10; ++j) CHECK(packed[k++] == region[c * 700 + b * 100 + j], "read_strided at %d", k);
    memset(back, 0, sizeof back);
    armci_write_strided(back, 2, stride, count, packed);
    for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 5; ++b)
            for (int j = 0; j < 10; ++j) CHECK(back[c * 700 + b * 100 + j] == region[c * 700 + b * 100 + j], "write_strided");
}

static void check_put_flag(char **bases, int me, int nproc) {
    const int target = (me + 1) % nproc;
    int *flag = (int *)(bases[target] + (nproc + 2) * slice_bytes) + me;
    char *data = bases[target] + me * slice_bytes;
    int *my_flag = (int *)(bases[me] + (nproc + 2) * slice_bytes) + (me + nproc - 1) % nproc;
    char *my_data = bases[me] + ((me + nproc - 1) % nproc) * slice_bytes;
    static char src[256];
    for (int i = 0; i < 256; ++i) src[i] = (char)(i ^ me);
    int stride[1] = {128}, count[2] = {64, 2};
    ARMCI_Barrier();
    CHECK(ARMCI_PutS_flag(src, stride, data, stride, count, 1, flag, 7, target) == 0, "PutS_flag");
    /* The writer of my memory sets my flag after its data. */
    while (*(volatile int *)my_flag != 7) ARMCI_Fence(me);
    const int writer = (me + nproc - 1) % nproc;
    for (int b = 0; b < 2; ++b)
        for (int j = 0; j < 64; ++j) CHECK(my_data[b * 128 + j] == (char)((b * 128 + j) ^ writer), "flagged data");
    ARMCI_Barrier();
}

/* More distinct shapes than any cache of layouts keeps, then the first ones
 * again: every shape moves its bytes whether it is new, kept or made anew. */
static void check_many_shapes(char **bases, int me, int nproc) {
    const int target = (me + 1) % nproc;
    char *slice = bases[target] + me * slice_bytes;
    static char src[1024], back[1024];
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < (round ? 16 : 320); ++k) {
            const int row = 1 + k % 300, rows = 2 + k / 300;
            int count[2] = {row, rows}, local_stride[1] = {row}, remote_stride[1] = {400};
            for (int i = 0; i < row * rows; ++i) src[i] = (char)pattern(me, k, i + round);
            CHECK(ARMCI_PutS(src, local_stride, slice, remote_stride, count, 1, target) == 0, "PutS of shape %d", k);
            memset(back, 0, sizeof back);
            CHECK(ARMCI_GetS(slice, remote_stride, back, local_stride, count, 1, target) == 0, "GetS of shape %d", k);
            CHECK(memcmp(back, src, (size_t)(row * rows)) == 0, "shape %d (round %d) came back changed", k, round);
        }
    ARMCI_Barrier();
}

int main(int argc, char **argv) {
    int me, nproc;
    start(&argc, &argv, &me, &nproc);
    char **bases = (char **)malloc_parts((armci_size_t)(nproc + 3) * slice_bytes);
    for (int levels = 0; levels <= max_levels; ++levels) {
        check_put_get(bases, me, nproc, levels, 1);
        check_put_get(bases, me, nproc, levels, 0);
    }
    for (int type = ARMCI_ACC_INT; type <= ARMCI_ACC_DCP; ++type)
        for (int levels = 0; levels <= max_levels; levels += levels < 2 ? 1 : 5) check_acc_type(bases, me, nproc, type, levels);
    ARMCI_Barrier();
    check_contended_acc(bases, me, nproc);
    check_local_copies();
    check_put_flag(bases, me, nproc);
    check_many_shapes(bases, me, nproc);
    free_parts((void **)bases);
    if (me == 0) printf("strided: %d processes passed\n", nproc);
    stop();
    return 0;
}
