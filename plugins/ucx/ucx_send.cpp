// Sending: each CCS packet is one UCP active message that says who sent it
// (UCP AMs carry no source otherwise): a small packet starts with the
// sender's rank and has no UCP header (a UCP header costs UCX 1.13's send
// ~50 instructions per message); a larger one carries the rank as its
// 4-byte UCP header, so a rendezvous announces its source.
#include "ucx_callbacks.hpp"

#include <cstddef>
#include <cstring>

namespace ccs::ucx {

void ucx_plugin::give_back(std::unique_ptr<send_buffer> b) {
    const auto pool = hold_if_concurrent(send_pool_lock_);
    if (spare_send_bytes_ + b->bytes.capacity() > spare_limit) return;
    spare_send_bytes_ += b->bytes.capacity();
    spare_buffers_.push_back(std::move(b));
}

std::unique_ptr<send_buffer> ucx_plugin::take_buffer() {
    const auto pool = hold_if_concurrent(send_pool_lock_);
    if (spare_buffers_.empty()) {
        auto b = std::make_unique<send_buffer>();
        b->owner = this;
        return b;
    }
    std::unique_ptr<send_buffer> b = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
    spare_send_bytes_ -= b->bytes.capacity();
    return b;
}

ccs_plugin_status_t ucx_plugin::send_failed(int32_t rank, ucs_status_t status) const {
    log(CCS_PLUGIN_LOG_WARN, "ucp_am_send_nbx to rank " + std::to_string(rank) + ": " + ucs_status_string(status));
    return status_from_ucs(status);
}

namespace {

size_t total_length(const ccs_plugin_iov_v1_t *iov, size_t count) {
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += iov[i].length;
    return total;
}

}  // namespace

// The latency path: a small packet UCX can take whole at once (its short
// protocol copies it into the transport), gathered on the stack behind
// the sender's rank and sent with forced immediate completion; no buffer,
// no request, no call but UCX's.
ccs_plugin_status_t ucx_plugin::am_send(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count) {
    peer *to = peer_at(rank);
    ucp_ep_h ep = to ? to->ep.load(std::memory_order_acquire) : nullptr;
    if (!ep || count == 0 || count > 2 || !iov || to->failed.load(std::memory_order_relaxed) ||
        to->sends_in_flight.load(std::memory_order_relaxed) >= cfg_.max_sends_in_flight) [[unlikely]]
        return send_buffered(rank, iov, count);
    const size_t first = iov[0].length, total = first + (count == 2 ? iov[1].length : 0);
    if (total == 0 || total > immediate_max) [[unlikely]]
        return send_buffered(rank, iov, count);
    alignas(8) uint8_t packet[sizeof header_rank_ + immediate_max];
    std::memcpy(packet, &header_rank_, sizeof header_rank_);
    plugin::small_copy(packet + sizeof header_rank_, iov[0].base, first);
    if (count == 2) plugin::small_copy(packet + sizeof header_rank_ + first, iov[1].base, iov[1].length);
    ucp_request_param_t rp;  // UCX reads only the fields op_attr_mask names
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    rp.datatype = ucp_dt_make_contig(1);
    void *r = ucp_am_send_nbx(ep, am_id, nullptr, 0, packet, sizeof header_rank_ + total, &rp);
    if (r == nullptr) [[likely]]
        return CCS_PLUGIN_OK;
    // UCX returns no request under FORCE_IMM_CMPL: sent, or an error. No
    // room now, or too long for the short protocol: from a buffer.
    if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) return send_failed(rank, UCS_PTR_STATUS(r));
    return send_buffered(rank, iov, count);
}

// Everything else: checks with their answers, the endpoint made on first
// use, and the packet gathered into memory of the plugin's (the ABI lets
// the core reuse its iov on return, while UCX may still send from it).
ccs_plugin_status_t ucx_plugin::send_buffered(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count) {
    peer *to = peer_at(rank);
    if (!to || (count > 0 && !iov)) return CCS_PLUGIN_ERR_INVALID;
    peer &p = *to;
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(p, why);
    if (!ep) return why;
    // Bounded in flight per peer: beyond that the core queues (and counts).
    if (p.sends_in_flight >= cfg_.max_sends_in_flight) return CCS_PLUGIN_AGAIN;
    const size_t total = total_length(iov, count);
    if (total == 0 || total > cfg_.max_packet) return CCS_PLUGIN_ERR_INVALID;
    std::unique_ptr<send_buffer> b = take_buffer();
    b->to = &p;
    b->bytes.resize_for_overwrite(total);
    uint8_t *at = b->bytes.data();
    for (size_t i = 0; i < count; at += iov[i].length, ++i) std::memcpy(at, iov[i].base, iov[i].length);
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    rp.datatype = ucp_dt_make_contig(1);
    rp.cb.send = callbacks::send_done;
    rp.user_data = b.get();
    choose_protocol(p, total, rp);
    // Counted and let go of before the send: at thread level multiple
    // progress on another thread may finish it before UCX returns.
    send_buffer *sending = b.release();
    ++p.sends_in_flight;
    void *r = ucp_am_send_nbx(ep, am_id, &header_rank_, sizeof header_rank_, sending->bytes.data(), total, &rp);
    // The callback frees the request, counts down and returns the buffer
    // (freeing a request before it completes would cancel its callback).
    if (UCS_PTR_IS_PTR(r)) return CCS_PLUGIN_OK;
    --p.sends_in_flight;
    give_back(std::unique_ptr<send_buffer>(sending));
    if (r == nullptr) return CCS_PLUGIN_OK;  // sent (or copied by UCX) already
    return send_failed(rank, UCS_PTR_STATUS(r));
}

ccs_plugin_status_t ucx_plugin::send_nocopy(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token,
                                            bool rendezvous) {
    peer *to = peer_at(rank);
    if (!to || count == 0 || !iov) return CCS_PLUGIN_ERR_INVALID;
    // Whoever completes it must be able to say so.
    if (!core_.has_am_send_complete()) return CCS_PLUGIN_ERR_UNSUPPORTED;
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(*to, why);
    if (!ep) return why;
    auto *r = new nocopy_request{this, token, {}};
    r->header.resize(sizeof header_rank_);
    std::memcpy(r->header.data(), &header_rank_, sizeof header_rank_);
    for (size_t i = 0; i + 1 < count; ++i) {
        const auto *b = static_cast<const uint8_t *>(iov[i].base);
        r->header.insert(r->header.end(), b, b + iov[i].length);
    }
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    rp.cb.send = callbacks::nocopy_send_done;
    rp.user_data = r;
    rp.datatype = ucp_dt_make_contig(1);
    const ccs_plugin_iov_v1_t &data = iov[count - 1];
    if (rendezvous) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        rp.flags = UCP_AM_SEND_FLAG_RNDV;
    } else {
        choose_protocol(*to, r->header.size() + data.length, rp);
    }
    void *q = ucp_am_send_nbx(ep, am_id, r->header.data(), r->header.size(), data.base, data.length, &rp);
    if (q == nullptr) {
        delete r;
        return CCS_PLUGIN_OK;
    }
    if (UCS_PTR_IS_ERR(q)) {
        delete r;
        return send_failed(rank, UCS_PTR_STATUS(q));
    }
    return CCS_PLUGIN_IN_PROGRESS;  // the callback frees the request, progress() reports it
}

void callbacks::nocopy_send_done(void *request, ucs_status_t status, void *user_data) {
    auto *r = static_cast<nocopy_request *>(user_data);
    r->owner->finished_sends_.emplace_back(r->token, status);
    r->owner->reports_ = true;
    delete r;
    ucp_request_free(request);
}

void ucx_plugin::on_send_done(send_buffer *b) {
    --b->to->sends_in_flight;
    give_back(std::unique_ptr<send_buffer>(b));
}

void callbacks::send_done(void *request, ucs_status_t, void *user_data) {
    // A failed send needs no action here: the endpoint's error handler
    // reports the peer.
    auto *b = static_cast<send_buffer *>(user_data);
    b->owner->on_send_done(b);
    ucp_request_free(request);
}


}  // namespace ccs::ucx
