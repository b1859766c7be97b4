// Polling: drain each inbound ring in turn, a bounded batch per ring so
// one busy sender cannot starve the others.
#include "shm_state.hpp"

#include <algorithm>

namespace ccs::shm {
namespace {
constexpr int batch = 32;
}

int32_t state::progress() {
    const auto n = static_cast<uint32_t>(from_.size());
    int32_t events = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t peer = (poll_start_ + i) % n;
        if (!present_[peer]) continue;
        if (cfg_.shuffle) {
            events += poll_shuffled(peer);
            continue;
        }
        const int32_t source = local_ranks_[peer];
        events += from_[peer].poll(
            [&](const uint8_t *data, size_t length) { services_.am_deliver(services_.core, source, data, length); },
            batch);
    }
    if (n) poll_start_ = (poll_start_ + 1) % n;
    return events;
}

int32_t state::poll_shuffled(uint32_t peer) {
    shuffle_batch_.clear();
    const int got = from_[peer].poll(
        [&](const uint8_t *data, size_t length) { shuffle_batch_.emplace_back(data, data + length); }, batch);
    std::shuffle(shuffle_batch_.begin(), shuffle_batch_.end(), shuffle_rng_);
    for (const auto &packet : shuffle_batch_)
        services_.am_deliver(services_.core, local_ranks_[peer], packet.data(), packet.size());
    return got;
}

}  // namespace ccs::shm
