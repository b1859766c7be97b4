// Receiving: UCX's AM callback records each packet as an arrival (small
// ones copied into the record, larger ones kept in UCX's buffer or copied,
// rendezvous ones fetched straight to where the core places them, or
// offered to the core with the payload kept until it decides, or fetched
// a few at a time); progress() delivers them once ucp_worker_progress has
// returned.
#include "ucx_callbacks.hpp"

#include <cstddef>
#include <cstring>

namespace ccs::ucx {
namespace {

// ucp_am_recv_data_nbx's parameters: contiguous bytes, `done(user_data)`.
ucp_request_param_t fetch_param(ucp_am_recv_data_nbx_callback_t done, void *user_data) {
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    rp.cb.recv_am = done;
    rp.user_data = user_data;
    rp.datatype = ucp_dt_make_contig(1);
    return rp;
}

}  // namespace

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

arrival *ucx_plugin::new_record() {
    arrival_pool_.push_back(std::make_unique<arrival>());
    return arrival_pool_.back().get();
}

void ucx_plugin::release_bytes(arrival &a) {
    if (a.ucx_data) ucp_am_data_release(worker_, a.ucx_data);
    else give_back(std::move(a.copy));
    a.ucx_data = nullptr;
}

void ucx_plugin::start_rendezvous() {
    while (active_rendezvous_ < max_active_rendezvous && !waiting_rendezvous_.empty()) {
        const pending_rendezvous w = waiting_rendezvous_.front();
        waiting_rendezvous_.pop_front();
        const size_t head_length = w.head.size();
        auto *f = new rendezvous{this, take_record()};
        f->a->source = w.source;
        f->a->length = head_length + w.length;
        f->a->copy = take_receive_buffer(f->a->length);
        if (head_length) std::memcpy(f->a->copy->data(), w.head.data(), head_length);
        const ucp_request_param_t rp = fetch_param(callbacks::rendezvous_received, f);
        void *r = ucp_am_recv_data_nbx(worker_, w.descriptor, f->a->copy->data() + head_length, w.length, &rp);
        if (r == nullptr) {
            arrivals_.push_back(f->a);
            delete f;
        } else if (UCS_PTR_IS_ERR(r)) {
            log(CCS_PLUGIN_LOG_WARN, "ucp_am_recv_data_nbx from rank " + std::to_string(w.source) + ": " +
                                         ucs_status_string(fetch_failed(w.source, UCS_PTR_STATUS(r))));
            release(*f->a);
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
        keep = true;
        if (head_length > 0 && fetch_into_place(source, head, head_length, data, length)) return;
        if (head_length > 0 && core_.can_park()) {
            // Offered in its turn (deliver_arrivals): a large message's
            // header handler decides where the payload goes first.
            arrival &a = record_arrival(source, head_length);
            a.copy = take_receive_buffer(head_length);
            std::memcpy(a.copy->data(), head, head_length);
            a.parked = data;
            a.parked_length = length;
            return;
        }
        queue_rendezvous(source, data, length, head, head_length);
        return;
    }
    if (head_length > 0) {  // a no-copy packet that came eagerly: join head and data
        arrival &a = record_arrival(source, head_length + length);
        a.copy = take_receive_buffer(a.length);
        std::memcpy(a.copy->data(), head, head_length);
        std::memcpy(a.copy->data() + head_length, data, length);
        return;
    }
    keep_or_copy(source, data, 0, length, param, keep);
}

bool ucx_plugin::fetch_into_place(int32_t source, const uint8_t *head, size_t head_length, void *descriptor,
                                  size_t length) {
    if (!core_.can_place()) return false;
    uint64_t id = 0;
    void *at = core_.place(source, head, head_length, length, id);
    if (!at) return false;
    start_placement(source, descriptor, at, length, id);
    return true;
}

void ucx_plugin::start_placement(int32_t source, void *descriptor, void *at, size_t length, uint64_t placement_id) {
    auto *f = new placement{this, placement_id, source};
    const ucp_request_param_t rp = fetch_param(callbacks::placement_received, f);
    void *r = ucp_am_recv_data_nbx(worker_, descriptor, at, length, &rp);
    if (UCS_PTR_IS_PTR(r)) return;  // the callback reports it
    // Done at once, or refused: the core hears of it from progress() all the same.
    finish_placement(*f, UCS_PTR_STATUS(r));
    delete f;
}

void ucx_plugin::finish_placement(const placement &f, ucs_status_t status) {
    if (status != UCS_OK) status = fetch_failed(f.source, status);
    finished_placements_.emplace_back(f.id, status);
    reports_ = true;
}

void ucx_plugin::deliver_parked(arrival &a) {
    void *descriptor = a.parked;
    const size_t length = a.parked_length;
    a.parked = nullptr;
    const uint64_t id = next_parked_++;
    parked_.emplace(id, kept_payload{descriptor, length, a.source});
    if (core_.deliver_parked(a.source, a.bytes(), a.length, length, id)) return;
    // Declined (not a large message's header): fetched and delivered whole.
    parked_.erase(id);
    queue_rendezvous(a.source, descriptor, length, static_cast<const uint8_t *>(a.bytes()), a.length);
}

void ucx_plugin::queue_rendezvous(int32_t source, void *descriptor, size_t length, const uint8_t *head,
                                  size_t head_length) {
    // A few fetches at a time, so the receive buffers stay few and warm in
    // cache; the others wait as UCX descriptors (kept by returning
    // UCS_INPROGRESS) and start from progress().
    waiting_rendezvous_.push_back(
        pending_rendezvous{source, descriptor, length, std::vector<uint8_t>(head, head + head_length)});
    start_rendezvous();
}

ccs_plugin_status_t ucx_plugin::am_parked_fetch(uint64_t parked, void *to, size_t length, uint64_t placement_id) {
    const auto it = parked_.find(parked);
    if (it == parked_.end()) return CCS_PLUGIN_ERR_INVALID;
    const kept_payload kept = it->second;
    parked_.erase(it);
    if (!to || length != kept.length) {  // the core's contract broken: let it go
        ucp_am_data_release(worker_, kept.descriptor);
        return CCS_PLUGIN_ERR_INVALID;
    }
    start_placement(kept.source, kept.descriptor, to, length, placement_id);
    return CCS_PLUGIN_OK;
}

void ucx_plugin::am_parked_release(uint64_t parked) {
    const auto it = parked_.find(parked);
    if (it == parked_.end()) return;
    void *descriptor = it->second.descriptor;
    parked_.erase(it);
    ucp_am_data_release(worker_, descriptor);  // UCX completes the sender's send
}

void ucx_plugin::keep_or_copy(int32_t source, void *data, size_t offset, size_t length, const ucp_am_recv_param_t *param,
                         bool &keep) {
    arrival &a = record_arrival(source, length);
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
    if (header_length == 0 && static_cast<ucx_plugin *>(arg)->take_small(data, length, param)) [[likely]]
        return UCS_OK;
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

void callbacks::placement_received(void *request, ucs_status_t status, size_t, void *user_data) {
    auto *f = static_cast<placement *>(user_data);
    f->owner->finish_placement(*f, status);
    delete f;
    ucp_request_free(request);
}

void callbacks::rendezvous_received(void *request, ucs_status_t status, size_t, void *user_data) {
    auto *f = static_cast<rendezvous *>(user_data);
    --f->owner->active_rendezvous_;
    // A failed fetch (the sender died) loses that packet; the peer's
    // failure is reported by its endpoint, or by fetch_failed.
    if (status == UCS_OK) {
        f->owner->arrivals_.push_back(f->a);
    } else {
        f->owner->fetch_failed(f->a->source, status);
        f->owner->release(*f->a);
    }
    delete f;
    ucp_request_free(request);
}

}  // namespace ccs::ucx
