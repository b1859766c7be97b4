// Contiguous put, get and accumulate, blocking and not, single values,
// put with a flag, fences.
#include "access.hpp"
#include "handles.hpp"

#include <cstring>

namespace ccs::armci {

int bad_acc_type(const char *call, int datatype) {
    return report(call, CCS_ERR_INVALID_ARG, "datatype " + std::to_string(datatype) + " is none of ARMCI_ACC_*");
}

namespace {

// One contiguous operation; `hdl` is read only when it is nonblocking.
int contiguous(const char *call, op_kind k, int datatype, void *scale, void *local, void *remote, int bytes, int proc,
               bool blocking, armci_hdl_t *hdl) {
    const process_state &s = ready(call);
    if (bytes < 0) [[unlikely]]
        return report(call, CCS_ERR_INVALID_ARG, "size " + std::to_string(bytes) + " is negative");
    int type = 0;
    if (k == op_kind::acc && (type = acc_type(datatype)) < 0) [[unlikely]]
        return bad_acc_type(call, datatype);
    if (const int rc = check_target(call, s, proc)) [[unlikely]]
        return rc;
    if (bytes == 0) [[unlikely]]  // nothing moves: any address will do
        return 0;
    ccs_rkey_t key;
    if (const int rc = find_key(call, proc, remote, static_cast<uint64_t>(bytes), key)) [[unlikely]]
        return rc;
    if (!local) [[unlikely]]
        return report(call, CCS_ERR_INVALID_ARG, "the local buffer is NULL");
    const uint64_t at = address(remote);
    order_before(s, proc, at, at + static_cast<uint64_t>(bytes));
    const size_t n = static_cast<size_t>(bytes);
    if (blocking) {
        // A blocking put or accumulate needs no completion (CCS copies
        // what it must); a get waits for its own.
        const ccs_status_t st = k == op_kind::get
                                    ? ccs_get_sync(s.context, proc, local, n, at, key)
                                    : issue_contiguous(s, k, proc, local, n, at, key, type, scale, nullptr);
        if (st != CCS_OK) [[unlikely]]
            return report_ccs(call, st);
        if (k != op_kind::get) note_in_flight(s, proc, at, at + n);
        return 0;
    }
    const pending_completion p = completion_for(hdl);
    const ccs_status_t st = issue_contiguous(s, k, proc, local, n, at, key, type, scale, &p.completion);
    if (st != CCS_OK) [[unlikely]]
        return report_ccs(call, st);
    count_issued(p);
    return 0;
}

template <typename T>
int put_value(const char *call, T value, void *dst, int proc) {
    return contiguous(call, op_kind::put, 0, nullptr, &value, dst, sizeof value, proc, true, nullptr);
}

template <typename T>
T get_value(const char *call, void *src, int proc) {
    T value{};
    if (contiguous(call, op_kind::get, 0, nullptr, &value, src, sizeof value, proc, true, nullptr) != 0)
        fail(call, "the value could not be read");
    return value;
}
}  // namespace
}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
int PARMCI_Put(void *src, void *dst, int size, int target) {
    return contiguous("ARMCI_Put", op_kind::put, 0, nullptr, src, dst, size, target, true, nullptr);
}
int PARMCI_Get(void *src, void *dst, int size, int target) {
    return contiguous("ARMCI_Get", op_kind::get, 0, nullptr, dst, src, size, target, true, nullptr);
}
int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc) {
    return contiguous("ARMCI_Acc", op_kind::acc, datatype, scale, src, dst, bytes, proc, true, nullptr);
}
int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl) {
    return contiguous("ARMCI_NbPut", op_kind::put, 0, nullptr, src, dst, bytes, proc, false, hdl);
}
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl) {
    return contiguous("ARMCI_NbGet", op_kind::get, 0, nullptr, dst, src, bytes, proc, false, hdl);
}
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl) {
    return contiguous("ARMCI_NbAcc", op_kind::acc, datatype, scale, src, dst, bytes, proc, false, hdl);
}

// A value's source is the caller's argument, gone on return: the
// nonblocking forms put a copy, as the blocking ones do.
int PARMCI_PutValueInt(int src, void *dst, int proc) { return put_value("ARMCI_PutValueInt", src, dst, proc); }
int PARMCI_PutValueLong(long src, void *dst, int proc) { return put_value("ARMCI_PutValueLong", src, dst, proc); }
int PARMCI_PutValueFloat(float src, void *dst, int proc) { return put_value("ARMCI_PutValueFloat", src, dst, proc); }
int PARMCI_PutValueDouble(double src, void *dst, int proc) { return put_value("ARMCI_PutValueDouble", src, dst, proc); }
int PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *) {
    return put_value("ARMCI_NbPutValueInt", src, dst, proc);
}
int PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *) {
    return put_value("ARMCI_NbPutValueLong", src, dst, proc);
}
int PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *) {
    return put_value("ARMCI_NbPutValueFloat", src, dst, proc);
}
int PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *) {
    return put_value("ARMCI_NbPutValueDouble", src, dst, proc);
}
int PARMCI_GetValueInt(void *src, int proc) { return get_value<int>("ARMCI_GetValueInt", src, proc); }
long PARMCI_GetValueLong(void *src, int proc) { return get_value<long>("ARMCI_GetValueLong", src, proc); }
float PARMCI_GetValueFloat(void *src, int proc) { return get_value<float>("ARMCI_GetValueFloat", src, proc); }
double PARMCI_GetValueDouble(void *src, int proc) { return get_value<double>("ARMCI_GetValueDouble", src, proc); }

int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc) {
    const char *call = "ARMCI_Put_flag";
    if (const int rc = contiguous(call, op_kind::put, 0, nullptr, src, dst, size, proc, true, nullptr)) return rc;
    // The flag is set once the data is there.
    PARMCI_Fence(proc);
    return put_value(call, value, flag, proc);
}

void PARMCI_Fence(int proc) {
    const char *call = "ARMCI_Fence";
    const process_state &s = ready(call);
    if (!valid_proc(s, proc)) fail(call, "process " + std::to_string(proc) + " is not in " + proc_range(s));
    check(call, ccs_fence(s.context, proc));
    forget_in_flight(proc);
}

void PARMCI_AllFence(void) {
    const char *call = "ARMCI_AllFence";
    check(call, ccs_fence_all(ready(call).context));
    forget_all_in_flight();
}

void PARMCI_Barrier(void) {
    const char *call = "ARMCI_Barrier";
    const process_state &s = ready(call);
    check(call, ccs_fence_all(s.context));
    forget_all_in_flight();
    check(call, ccs_team_barrier(s.world, nullptr));
}

void PARMCI_Access_begin(void *) {}
void PARMCI_Access_end(void *) {}

void ARMCI_Copy(void *src, void *dst, int size) {
    if (size > 0) std::memmove(dst, src, static_cast<size_t>(size));
}

int PARMCI_Wait(armci_hdl_t *hdl) { return wait_handle("ARMCI_Wait", hdl); }
int PARMCI_Test(armci_hdl_t *hdl) { return test_handle("ARMCI_Test", hdl); }
int PARMCI_WaitAll(void) {
    ready("ARMCI_WaitAll");
    return wait_all("ARMCI_WaitAll");
}
// Operations are not kept per target: waiting for all completes proc's.
int PARMCI_WaitProc(int proc) {
    const char *call = "ARMCI_WaitProc";
    const process_state &s = ready(call);
    if (const int rc = check_target(call, s, proc)) return rc;
    return wait_all(call);
}

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl) {
    if (hdl) *hdl = armci_hdl_t{0, 0};
}
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *hdl) {
    if (hdl) hdl->aggregate |= 1;
}
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *hdl) {
    if (hdl) hdl->aggregate &= ~1;
}
}

ARMCI_PROFILED(ARMCI_Put)
ARMCI_PROFILED(ARMCI_Get)
ARMCI_PROFILED(ARMCI_Acc)
ARMCI_PROFILED(ARMCI_NbPut)
ARMCI_PROFILED(ARMCI_NbGet)
ARMCI_PROFILED(ARMCI_NbAcc)
ARMCI_PROFILED(ARMCI_PutValueInt)
ARMCI_PROFILED(ARMCI_PutValueLong)
ARMCI_PROFILED(ARMCI_PutValueFloat)
ARMCI_PROFILED(ARMCI_PutValueDouble)
ARMCI_PROFILED(ARMCI_NbPutValueInt)
ARMCI_PROFILED(ARMCI_NbPutValueLong)
ARMCI_PROFILED(ARMCI_NbPutValueFloat)
ARMCI_PROFILED(ARMCI_NbPutValueDouble)
ARMCI_PROFILED(ARMCI_GetValueInt)
ARMCI_PROFILED(ARMCI_GetValueLong)
ARMCI_PROFILED(ARMCI_GetValueFloat)
ARMCI_PROFILED(ARMCI_GetValueDouble)
ARMCI_PROFILED(ARMCI_Put_flag)
ARMCI_PROFILED(ARMCI_Fence)
ARMCI_PROFILED(ARMCI_AllFence)
ARMCI_PROFILED(ARMCI_Barrier)
ARMCI_PROFILED(ARMCI_Access_begin)
ARMCI_PROFILED(ARMCI_Access_end)
ARMCI_PROFILED(ARMCI_Wait)
ARMCI_PROFILED(ARMCI_Test)
ARMCI_PROFILED(ARMCI_WaitAll)
ARMCI_PROFILED(ARMCI_WaitProc)
