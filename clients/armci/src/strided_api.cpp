// Strided put, get and accumulate (Global Arrays' patches), blocking and
// not, put with a flag, and the local strided copies.
#include "access.hpp"
#include "handles.hpp"
#include "layouts.hpp"

namespace ccs::armci {
namespace {

// One side of a strided operation as CCS takes it: `count` elements of
// `layout` (a contiguous side is that many bytes).
struct side {
    ccs_datadesc_t layout;
    int64_t count;
};
side side_of(const strided_shape &s) {
    return s.layout ? side{s.layout, 1} : side{CCS_BYTE, static_cast<int64_t>(s.bytes)};
}

int strided(const char *call, op_kind k, int datatype, void *scale, void *local, int *local_stride, void *remote,
            int *remote_stride, int *count, int levels, int proc, bool blocking, armci_hdl_t *hdl) {
    const process_state &s = ready(call);
    int type = 0;
    if (k == op_kind::acc && (type = acc_type(datatype)) < 0) [[unlikely]]
        return bad_acc_type(call, datatype);
    strided_shape here, there;
    if (const int rc = strided_layout(call, levels, count, local_stride, here)) return rc;
    if (const int rc = strided_layout(call, levels, count, remote_stride, there)) return rc;
    if (const int rc = check_target(call, s, proc)) [[unlikely]]
        return rc;
    if (there.bytes == 0) return 0;
    ccs_rkey_t key;
    if (const int rc = find_key(call, proc, remote, there.span, key)) [[unlikely]]
        return rc;
    if (!local) [[unlikely]]
        return report(call, CCS_ERR_INVALID_ARG, "the local buffer is NULL");
    const uint64_t at = address(remote);
    order_before(s, proc, at, at + there.span);
    const side l = side_of(here), r = side_of(there);
    ccs_counter_t done;
    pending_completion p{};
    const ccs_completion_t *completion = completion_of(blocking, k == op_kind::get, hdl, done, p);
    ccs_status_t st;
    switch (k) {
        case op_kind::put:
            st = ccs_put_datadesc(s.context, proc, local, l.count, l.layout, at, r.count, r.layout, key, completion);
            break;
        case op_kind::get:
            st = ccs_get_datadesc(s.context, proc, local, l.count, l.layout, at, r.count, r.layout, key, completion);
            break;
        default:
            st = ccs_accumulate_datadesc(s.context, proc, CCS_ACC_SUM, type, local, l.count, l.layout, at, r.count,
                                         r.layout, key, scale, nullptr, completion);
    }
    if (st == CCS_OK && blocking && k == op_kind::get) st = ccs_counter_wait(&done, 1);
    if (st != CCS_OK) [[unlikely]]
        return report_ccs(call, st);
    if (!blocking)
        count_issued(p);
    else if (k != op_kind::get)
        note_in_flight(s, proc, at, at + there.span);
    return 0;
}

// Between the strided region at ptr and the contiguous buf.
void local_copy(const char *call, bool pack, void *ptr, int levels, int *stride, int *count, char *buf) {
    ready(call);
    strided_shape shape;
    if (strided_layout(call, levels, count, stride, shape) != 0) fail(call, "the region is not a strided shape");
    if (shape.bytes == 0) return;
    if (!ptr || !buf) fail(call, "ptr or buf is NULL");
    int64_t done = 0;
    const side sd = side_of(shape);
    const ccs_status_t st = pack ? ccs_datadesc_pack(ptr, sd.count, sd.layout, 0, buf, shape.bytes, &done)
                                 : ccs_datadesc_unpack(buf, shape.bytes, ptr, sd.count, sd.layout, 0, &done);
    check(call, st);
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels,
                int proc) {
    return strided("ARMCI_PutS", op_kind::put, 0, nullptr, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, true, nullptr);
}
int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels,
                int proc) {
    return strided("ARMCI_GetS", op_kind::get, 0, nullptr, dst_ptr, dst_stride_ar, src_ptr, src_stride_ar, count,
                   stride_levels, proc, true, nullptr);
}
int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                int count[], int stride_levels, int proc) {
    return strided("ARMCI_AccS", op_kind::acc, datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, true, nullptr);
}
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                  int stride_levels, int proc, armci_hdl_t *hdl) {
    return strided("ARMCI_NbPutS", op_kind::put, 0, nullptr, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, false, hdl);
}
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                  int stride_levels, int proc, armci_hdl_t *hdl) {
    return strided("ARMCI_NbGetS", op_kind::get, 0, nullptr, dst_ptr, dst_stride_ar, src_ptr, src_stride_ar, count,
                   stride_levels, proc, false, hdl);
}
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl) {
    return strided("ARMCI_NbAccS", op_kind::acc, datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, false, hdl);
}

int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                     int stride_levels, int *flag, int value, int proc) {
    if (const int rc = PARMCI_PutS(src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc))
        return rc;
    PARMCI_Fence(proc);
    return PARMCI_PutValueInt(value, flag, proc);
}

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf) {
    local_copy("armci_write_strided", false, ptr, stride_levels, stride_arr, count, buf);
}
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf) {
    local_copy("armci_read_strided", true, ptr, stride_levels, stride_arr, count, buf);
}
}

ARMCI_PROFILED(ARMCI_PutS)
ARMCI_PROFILED(ARMCI_GetS)
ARMCI_PROFILED(ARMCI_AccS)
ARMCI_PROFILED(ARMCI_NbPutS)
ARMCI_PROFILED(ARMCI_NbGetS)
ARMCI_PROFILED(ARMCI_NbAccS)
ARMCI_PROFILED(ARMCI_PutS_flag)
