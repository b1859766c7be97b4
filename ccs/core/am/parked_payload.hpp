// A payload a transport keeps for the target's decision instead of
// fetching it (ccs_plugin_v1.h: am_deliver_parked): a rendezvous whose
// announcement arrived. It is fetched into place once, or let go, which
// completes the sender's send; letting go is the destructor's, so a
// message dropped anywhere (refused, its context destroyed, a duplicate)
// never leaves the transport holding it. Once the transport is gone
// (finalize ends what it kept) nothing is called.
#pragma once

#include <ccs/plugin/ccs_plugin_v1.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace ccs {

class transport;

class parked_payload {
public:
    parked_payload() = default;
    parked_payload(std::weak_ptr<transport> route, uint64_t id, size_t length)
        : route_(std::move(route)), id_(id), length_(length) {}
    ~parked_payload() { release(); }
    parked_payload(parked_payload &&other) noexcept { take(other); }
    parked_payload &operator=(parked_payload &&other) noexcept {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    parked_payload(const parked_payload &) = delete;
    parked_payload &operator=(const parked_payload &) = delete;

    // Whether a payload is kept (not fetched or let go yet).
    bool held() const { return id_ != 0; }
    size_t length() const { return length_; }
    // Fetches all of it to `to`; the transport then reports
    // placed(placement). Anything but OK: nothing will be reported (the
    // transport is gone, or disowned the name), and the payload is lost.
    ccs_plugin_status_t fetch(void *to, uint64_t placement);
    void release();

private:
    void take(parked_payload &other) {
        route_ = std::move(other.route_);
        id_ = other.id_;
        length_ = other.length_;
        other.id_ = 0;
    }

    std::weak_ptr<transport> route_;
    uint64_t id_ = 0;  // the transport's name for it; 0: none
    size_t length_ = 0;
};

}  // namespace ccs
