// Active messages: each CCS packet is one UCP active message that says who
// sent it (UCP AMs carry no source otherwise): a small packet starts with
// the sender's rank and has no UCP header (a UCP header costs UCX 1.13's
// send ~50 instructions per message); a larger one carries the rank as its
// 4-byte UCP header, so a rendezvous announces its source.
#include "ucx_callbacks.hpp"

#include <cstddef>
#include <cstring>

namespace ccs::ucx {

void ucx_plugin::give_back(std::unique_ptr<send_buffer> b) {
    if (spare_send_bytes_ + b->bytes.capacity() > spare_limit) return;
    spare_send_bytes_ += b->bytes.capacity();
    spare_buffers_.push_back(std::move(b));
}

void ucx_plugin::give_back(std::unique_ptr<packet_buffer> b) {
    if (spare_receive_bytes_ + b->capacity() > spare_limit) return;
    spare_receive_bytes_ += b->capacity();
    spare_receive_buffers_.push_back(std::move(b));
}

std::unique_ptr<packet_buffer> ucx_plugin::take_receive_buffer(size_t length) {
    std::unique_ptr<packet_buffer> b;
    if (spare_receive_buffers_.empty()) {
        b = std::make_unique<packet_buffer>();
    } else {
        b = std::move(spare_receive_buffers_.back());
        spare_receive_buffers_.pop_back();
        spare_receive_bytes_ -= b->capacity();
    }
    b->resize_for_overwrite(length);
    return b;
}

std::unique_ptr<send_buffer> ucx_plugin::take_buffer() {
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

// The packet is gathered into memory of the plugin's: the ABI lets the core
// reuse its iov on return, while UCX may still be sending from it.
ccs_plugin_status_t ucx_plugin::am_send(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count) {
    peer *to = peer_at(rank);
    if (!to || (count > 0 && !iov)) return CCS_PLUGIN_ERR_INVALID;
    peer &p = *to;
    ccs_plugin_status_t why;
    ucp_ep_h ep = endpoint(p, why);
    if (!ep) return why;
    // Bounded in flight per peer: beyond that the core queues (and counts).
    if (p.sends_in_flight >= cfg_.max_sends_in_flight) return CCS_PLUGIN_AGAIN;
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += iov[i].length;
    if (total == 0 || total > cfg_.max_packet) return CCS_PLUGIN_ERR_INVALID;
    const auto gather = [&](uint8_t *to_bytes) {
        for (size_t i = 0; i < count; ++i) {
            std::memcpy(to_bytes, iov[i].base, iov[i].length);
            to_bytes += iov[i].length;
        }
    };
    ucp_request_param_t rp{};
    rp.datatype = ucp_dt_make_contig(1);
    // A small packet UCX can take whole at once (its short protocol copies
    // it into the transport, which is the latency path): gathered on the
    // stack and sent with forced immediate completion; no buffer, no request.
    if (total <= immediate_max) {
        alignas(8) uint8_t packet[sizeof header_rank_ + immediate_max];
        std::memcpy(packet, &header_rank_, sizeof header_rank_);
        gather(packet + sizeof header_rank_);
        rp.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
        void *r = ucp_am_send_nbx(ep, am_id, nullptr, 0, packet, sizeof header_rank_ + total, &rp);
        if (r == nullptr) return CCS_PLUGIN_OK;
        // UCX returns no request under FORCE_IMM_CMPL: sent, or an error.
        if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) return send_failed(rank, UCS_PTR_STATUS(r));
        // No room now, or too long for the short protocol: from a buffer.
    }
    std::unique_ptr<send_buffer> b = take_buffer();
    b->to = &p;
    b->bytes.resize_for_overwrite(total);
    gather(b->bytes.data());
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    rp.cb.send = callbacks::send_done;
    rp.user_data = b.get();
    void *r = ucp_am_send_nbx(ep, am_id, &header_rank_, sizeof header_rank_, b->bytes.data(), total, &rp);
    if (r == nullptr) {  // sent (or copied by UCX) already
        give_back(std::move(b));
        return CCS_PLUGIN_OK;
    }
    if (UCS_PTR_IS_ERR(r)) {
        give_back(std::move(b));
        return send_failed(rank, UCS_PTR_STATUS(r));
    }
    // The callback frees the request and returns the buffer (freeing a
    // request before it completes would cancel its callback).
    ++p.sends_in_flight;
    (void)b.release();
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t ucx_plugin::am_send_nocopy(int32_t rank, const ccs_plugin_iov_v1_t *iov, size_t count, uint64_t token) {
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

void ucx_plugin::start_rendezvous() {
    while (active_rendezvous_ < max_active_rendezvous && !waiting_rendezvous_.empty()) {
        const pending_rendezvous w = waiting_rendezvous_.front();
        waiting_rendezvous_.pop_front();
        const size_t head_length = w.head.size();
        auto *f = new rendezvous{this, {}};
        f->a.source = w.source;
        f->a.length = head_length + w.length;
        f->a.copy = take_receive_buffer(f->a.length);
        if (head_length) std::memcpy(f->a.copy->data(), w.head.data(), head_length);
        ucp_request_param_t rp{};
        rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
        rp.cb.recv_am = callbacks::rendezvous_received;
        rp.user_data = f;
        rp.datatype = ucp_dt_make_contig(1);
        void *r = ucp_am_recv_data_nbx(worker_, w.descriptor, f->a.copy->data() + head_length, w.length, &rp);
        if (r == nullptr) {
            arrivals_.push_back(std::move(f->a));
            delete f;
        } else if (UCS_PTR_IS_ERR(r)) {
            log(CCS_PLUGIN_LOG_WARN, "ucp_am_recv_data_nbx from rank " + std::to_string(w.source) + ": " +
                                         ucs_status_string(UCS_PTR_STATUS(r)));
            give_back(std::move(f->a.copy));
            delete f;
        } else {
            ++active_rendezvous_;  // the callback delivers, frees the request
        }
    }
}

// Arrivals wait for the end of ucp_worker_progress (see arrival).
void ucx_plugin::on_arrival(int32_t source, const uint8_t *head, size_t head_length, void *data, size_t length,
                       const ucp_am_recv_param_t *param, bool &keep) {
    keep = false;
    if (!peer_at(source)) {
        log(CCS_PLUGIN_LOG_WARN, "dropped a UCX active message from unknown rank " + std::to_string(source));
        return;
    }
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        // Rendezvous: a few fetches at a time, so the receive buffers stay
        // few and warm in cache; the others wait as UCX descriptors (kept
        // by returning UCS_INPROGRESS) and start from progress().
        keep = true;
        waiting_rendezvous_.push_back(
            pending_rendezvous{source, data, length, std::vector<uint8_t>(head, head + head_length)});
        start_rendezvous();
        return;
    }
    if (head_length > 0) {  // a no-copy packet that came eagerly: join head and data
        arrival &a = arrivals_.emplace_back();
        a.source = source;
        a.length = head_length + length;
        a.copy = take_receive_buffer(a.length);
        std::memcpy(a.copy->data(), head, head_length);
        std::memcpy(a.copy->data() + head_length, data, length);
        return;
    }
    keep_or_copy(source, data, 0, length, param, keep);
}

void ucx_plugin::keep_or_copy(int32_t source, void *data, size_t offset, size_t length, const ucp_am_recv_param_t *param,
                         bool &keep) {
    arrival &a = arrivals_.emplace_back();
    a.source = source;
    a.length = length;
    const uint8_t *bytes = static_cast<const uint8_t *>(data) + offset;
    if (length <= arrival::inline_max) {
        std::memcpy(a.inline_bytes, bytes, length);
    } else if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) {
        keep = true;  // UCX keeps the bytes until ucp_am_data_release
        a.ucx_data = data;
        a.ucx_offset = offset;
    } else {
        a.copy = take_receive_buffer(length);
        std::memcpy(a.copy->data(), bytes, length);
    }
}

// A small packet: no UCP header, the sender's rank in front of the data.
void ucx_plugin::on_small_arrival(void *data, size_t length, const ucp_am_recv_param_t *param, bool &keep) {
    keep = false;
    int32_t source = -1;
    if (length <= sizeof source || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        log(CCS_PLUGIN_LOG_WARN, "dropped a malformed UCX active message without a header");
        return;
    }
    std::memcpy(&source, data, sizeof source);
    if (!peer_at(source)) {
        log(CCS_PLUGIN_LOG_WARN, "dropped a UCX active message from unknown rank " + std::to_string(source));
        return;
    }
    keep_or_copy(source, data, sizeof source, length - sizeof source, param, keep);
}

ucs_status_t callbacks::am_arrived(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                   const ucp_am_recv_param_t *param) {
    if (header_length == 0) {
        bool keep = false;
        static_cast<ucx_plugin *>(arg)->on_small_arrival(data, length, param, keep);
        return keep ? UCS_INPROGRESS : UCS_OK;
    }
    int32_t source = -1;
    if (header_length >= sizeof source) std::memcpy(&source, header, sizeof source);
    const size_t head_length = header_length >= sizeof source ? header_length - sizeof source : 0;
    bool keep = false;
    static_cast<ucx_plugin *>(arg)->on_arrival(source, static_cast<const uint8_t *>(header) + sizeof source, head_length,
                                          data, length, param, keep);
    return keep ? UCS_INPROGRESS : UCS_OK;
}

void callbacks::rendezvous_received(void *request, ucs_status_t status, size_t, void *user_data) {
    auto *f = static_cast<rendezvous *>(user_data);
    --f->owner->active_rendezvous_;
    // A failed fetch (the sender died) loses that packet; the endpoint's
    // error handler reports the peer.
    if (status == UCS_OK) f->owner->arrivals_.push_back(std::move(f->a));
    delete f;
    ucp_request_free(request);
}

}  // namespace ccs::ucx
