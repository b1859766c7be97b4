// Memory registration (ucp_mem_map, driven by the core's registration
// cache), remote keys and put/get with ucp_put_nbx / ucp_get_nbx.
#include "ucx_callbacks.hpp"

#include <algorithm>
#include <cstring>

namespace ccs::ucx {

ccs_plugin_status_t ucx_plugin::mem_reg(void *addr, size_t length, void **memh) {
    if (!addr || length == 0 || !memh) return CCS_PLUGIN_ERR_INVALID;
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = addr;
    mp.length = length;
    ucp_mem_h h = nullptr;
    const ucs_status_t st = ucp_mem_map(context_, &mp, &h);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_INFO, "ucp_mem_map of " + std::to_string(length) + " bytes: " + ucs_status_string(st));
        // Out of pinnable memory looks like this; the cache evicts and retries.
        return st == UCS_ERR_NO_MEMORY || st == UCS_ERR_EXCEEDS_LIMIT ? CCS_PLUGIN_ERR_LIMIT : status_from_ucs(st);
    }
    *memh = h;
    return CCS_PLUGIN_OK;
}

void ucx_plugin::mem_dereg(void *memh) {
    if (memh) ucp_mem_unmap(context_, static_cast<ucp_mem_h>(memh));
}

ccs_plugin_status_t ucx_plugin::rkey_pack(void *memh, void *buffer, size_t *length) const {
    if (!memh || !length) return CCS_PLUGIN_ERR_INVALID;
    void *packed = nullptr;
    size_t size = 0;
    const ucs_status_t st = ucp_rkey_pack(context_, static_cast<ucp_mem_h>(memh), &packed, &size);
    if (st != UCS_OK) return status_from_ucs(st);
    const size_t capacity = *length;
    *length = size;
    ccs_plugin_status_t out = CCS_PLUGIN_OK;
    if (buffer && capacity < size) out = CCS_PLUGIN_ERR_INVALID;
    else if (buffer) std::memcpy(buffer, packed, size);
    ucp_rkey_buffer_release(packed);
    return out;
}

ccs_plugin_status_t ucx_plugin::rkey_unpack(int32_t rank, const void *buffer, size_t length, void **rkey) {
    peer *p = peer_at(rank);
    if (!p || !buffer || length == 0 || !rkey) return CCS_PLUGIN_ERR_INVALID;
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(*p, why);  // a key is unpacked for one endpoint
    if (!ep) return why;
    ucp_rkey_h h = nullptr;
    const ucs_status_t st = ucp_ep_rkey_unpack(ep, buffer, &h);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_WARN, "ucp_ep_rkey_unpack from rank " + std::to_string(rank) + ": " + ucs_status_string(st));
        return CCS_PLUGIN_ERR_INVALID;
    }
    *rkey = new remote_key{h, rank};
    return CCS_PLUGIN_OK;
}

void ucx_plugin::rkey_release(void *rkey) {
    auto *k = static_cast<remote_key *>(rkey);
    if (!k) return;
    ucp_rkey_destroy(k->rkey);
    delete k;
}

void ucx_plugin::on_rma_piece_done(rma_request *r, ucs_status_t status) {
    if (status != UCS_OK) r->fail(status);
    if (!r->last_done()) return;
    if (r->result && r->status == UCS_OK) std::memcpy(r->result, &r->reply, r->width);
    finished_rma_.emplace_back(r->token, r->status);
    reports_ = true;
    delete r;
}

ccs_plugin_status_t ucx_plugin::issued(rma_request *r) {
    if (!r->last_done()) return CCS_PLUGIN_IN_PROGRESS;
    const ucs_status_t st = r->status;
    if (r->result && st == UCS_OK) std::memcpy(r->result, &r->reply, r->width);
    delete r;
    return st == UCS_OK ? CCS_PLUGIN_OK : status_from_ucs(st);
}

void callbacks::rma_piece_done(void *request, ucs_status_t status, void *user_data) {
    auto *r = static_cast<rma_request *>(user_data);
    r->owner->on_rma_piece_done(r, status);
    ucp_request_free(request);
}

// Issues one UCX operation per piece where the local and remote lists
// overlap, then (put) a flush, after which the data is visible at the
// target: ucp_put_nbx alone completes when the source may be reused
// (except over shared memory, where it has already been written).
template <typename Local, typename Issue>
ccs_plugin_status_t ucx_plugin::rma(peer &p, size_t nlocal, Local local_at, const ccs_plugin_remote_v1_t *remote,
                               size_t nremote, bool flush, uint64_t token, Issue issue) {
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(p, why);
    if (!ep) return why;
    // UCX would run this in software on the peer (TCP): the core does it
    // better with its own active messages.
    if (!p.native_rma) return CCS_PLUGIN_ERR_UNSUPPORTED;
    auto *r = new rma_request{this, token, 1, UCS_OK};  // the 1: held until all is issued
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.send = callbacks::rma_piece_done;
    rp.user_data = r;
    size_t li = 0, ri = 0, loff = 0, roff = 0;
    while (li < nlocal && ri < nremote && r->status == UCS_OK) {
        auto [base, llen] = local_at(li);
        const size_t n = std::min(llen - loff, remote[ri].length - roff);
        if (n > 0)
            r->piece([&] { return issue(ep, static_cast<uint8_t *>(base) + loff, n, remote[ri].address + roff, &rp); });
        if ((loff += n) == llen) ++li, loff = 0;
        if ((roff += n) == remote[ri].length) ++ri, roff = 0;
    }
    if (flush && !p.put_visible_on_return && r->status == UCS_OK) r->piece([&] { return ucp_ep_flush_nbx(ep, &rp); });
    return issued(r);
}

ccs_plugin_status_t ucx_plugin::put(int32_t rank, const ccs_plugin_iov_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
    peer *p = peer_at(rank);
    if (!p || !rkey) return CCS_PLUGIN_ERR_INVALID;
    const ucp_rkey_h key = static_cast<remote_key *>(rkey)->rkey;
    return rma(
        *p, nlocal,
        [&](size_t i) { return std::pair{const_cast<void *>(local[i].base), local[i].length}; }, remote, nremote,
        true, token, [&](ucp_ep_h ep, void *from, size_t n, uint64_t to, const ucp_request_param_t *rp) {
            return ucp_put_nbx(ep, from, n, to, key, rp);
        });
}

ccs_plugin_status_t ucx_plugin::get(int32_t rank, const ccs_plugin_buffer_v1_t *local, size_t nlocal,
                               const ccs_plugin_remote_v1_t *remote, size_t nremote, void *rkey, uint64_t token) {
    peer *p = peer_at(rank);
    if (!p || !rkey) return CCS_PLUGIN_ERR_INVALID;
    const ucp_rkey_h key = static_cast<remote_key *>(rkey)->rkey;
    return rma(
        *p, nlocal, [&](size_t i) { return std::pair{local[i].base, local[i].length}; },
        remote, nremote, false, token, [&](ucp_ep_h ep, void *to, size_t n, uint64_t from, const ucp_request_param_t *rp) {
            return ucp_get_nbx(ep, to, n, from, key, rp);
        });
}

}  // namespace ccs::ucx
