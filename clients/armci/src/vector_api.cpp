// Generalised I/O vector put, get and accumulate: each segment is one
// contiguous CCS operation, all issued before any is waited for.
#include "access.hpp"
#include "handles.hpp"

namespace ccs::armci {
namespace {

int vector(const char *call, op_kind k, int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
           bool blocking, armci_hdl_t *hdl) {
    const process_state &s = ready(call);
    int type = 0;
    if (k == op_kind::acc && (type = acc_type(datatype)) < 0) [[unlikely]]
        return bad_acc_type(call, datatype);
    if (iov_len < 0 || (iov_len > 0 && !iov))
        return report(call, CCS_ERR_INVALID_ARG, "iov is NULL or iov_len " + std::to_string(iov_len) + " negative");
    if (const int rc = check_target(call, s, proc)) return rc;
    // Every segment is checked before any moves: a bad one changes nothing.
    std::vector<ccs_rkey_t> keys;
    for (int v = 0; v < iov_len; ++v) {
        const armci_giov_t &g = iov[v];
        if (g.bytes < 0 || g.ptr_array_len < 0)
            return report(call, CCS_ERR_INVALID_ARG, "iov[" + std::to_string(v) + "] has a negative size or length");
        if (g.bytes == 0 || g.ptr_array_len == 0) continue;
        if (!g.src_ptr_array || !g.dst_ptr_array)
            return report(call, CCS_ERR_INVALID_ARG, "iov[" + std::to_string(v) + "] has a NULL pointer array");
        void **remote = k == op_kind::get ? g.src_ptr_array : g.dst_ptr_array;
        void **local = k == op_kind::get ? g.dst_ptr_array : g.src_ptr_array;
        for (int i = 0; i < g.ptr_array_len; ++i) {
            ccs_rkey_t key;
            if (const int rc = find_key(call, proc, remote[i], static_cast<uint64_t>(g.bytes), key)) return rc;
            if (!local[i]) return report(call, CCS_ERR_INVALID_ARG, "a local pointer is NULL");
            keys.push_back(key);
        }
    }
    ccs_counter_t done;
    pending_completion p{};
    const ccs_completion_t *completion = completion_of(blocking, k == op_kind::get, hdl, done, p);
    size_t next = 0;
    uint64_t issued = 0;
    for (int v = 0; v < iov_len; ++v) {
        const armci_giov_t &g = iov[v];
        if (g.bytes == 0 || g.ptr_array_len == 0) continue;
        const size_t n = static_cast<size_t>(g.bytes);
        for (int i = 0; i < g.ptr_array_len; ++i) {
            const ccs_rkey_t key = keys[next++];
            void *local = k == op_kind::get ? g.dst_ptr_array[i] : g.src_ptr_array[i];
            const uint64_t at = address(k == op_kind::get ? g.src_ptr_array[i] : g.dst_ptr_array[i]);
            order_before(s, proc, at, at + n);
            const ccs_status_t st = issue_contiguous(s, k, proc, local, n, at, key, type, scale, completion);
            if (st != CCS_OK) {
                const int rc = report_ccs(call, st);
                if (k == op_kind::get && blocking) ccs_counter_wait(&done, issued);
                return rc;
            }
            ++issued;
            if (!blocking)
                count_issued(p);
            else if (k != op_kind::get)
                note_in_flight(s, proc, at, at + n);
        }
    }
    if (blocking && k == op_kind::get) {
        const ccs_status_t st = ccs_counter_wait(&done, issued);
        if (st != CCS_OK) return report_ccs(call, st);
    }
    return 0;
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc) {
    return vector("ARMCI_PutV", op_kind::put, 0, nullptr, iov, iov_len, proc, true, nullptr);
}
int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc) {
    return vector("ARMCI_GetV", op_kind::get, 0, nullptr, iov, iov_len, proc, true, nullptr);
}
int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc) {
    return vector("ARMCI_AccV", op_kind::acc, datatype, scale, iov, iov_len, proc, true, nullptr);
}
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *hdl) {
    return vector("ARMCI_NbPutV", op_kind::put, 0, nullptr, iov, iov_len, proc, false, hdl);
}
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *hdl) {
    return vector("ARMCI_NbGetV", op_kind::get, 0, nullptr, iov, iov_len, proc, false, hdl);
}
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *hdl) {
    return vector("ARMCI_NbAccV", op_kind::acc, datatype, scale, iov, iov_len, proc, false, hdl);
}
}

ARMCI_PROFILED(ARMCI_PutV)
ARMCI_PROFILED(ARMCI_GetV)
ARMCI_PROFILED(ARMCI_AccV)
ARMCI_PROFILED(ARMCI_NbPutV)
ARMCI_PROFILED(ARMCI_NbGetV)
ARMCI_PROFILED(ARMCI_NbAccV)
