#include "core/coll/barrier.hpp"

#include "util/error.hpp"

#include <chrono>
#include <optional>

namespace ccs::coll {

ccs_status_t barrier::install(internal_handlers &handlers) {
    const ccs_status_t st = handlers.reserve("barrier", 1, handler_);
    if (st != CCS_OK) return st;
    handlers.set(handler_, &barrier::on_arrival, this);
    internal_ = &handlers.internal();
    return CCS_OK;
}

void barrier::on_arrival(const ccs_am_message_t *message, void *self) {
    static_cast<barrier *>(self)->arrivals_.record(message->args[0], message->args[1], message->args[2]);
}

// Survives failed peers without hanging and without blaming peers that
// finished: each round waits for the message from its source or for that
// source to fail, and always goes on to send the next round, carrying
// `missing_flag` once a source failed first. So every live process in the
// barrier completes all rounds, and the flag reaches everyone whose result
// depended on a missing process. A process that sent all its rounds and
// then exited (as after ccs_finalize, while slower processes still wait)
// is not missing. A live source that never joins (its runtime gave up
// after the failure) must not hang us either: once any peer is known to
// have failed, a round waits at most `am_engine::failure_grace` more.
ccs_status_t barrier::run(uint64_t flags, uint64_t *all_flags) {
    constexpr uint64_t missing_flag = uint64_t{1} << 63;  // callers use the low bits
    const uint64_t epoch = epoch_++;
    arrivals_.begin(epoch);
    const auto n = static_cast<uint64_t>(size_), me = static_cast<uint64_t>(rank_);
    std::optional<std::chrono::steady_clock::time_point> give_up_at;
    for (uint64_t round = 0, distance = 1; distance < n; ++round, distance <<= 1) {
        const int to = static_cast<int>((me + distance) % n), from = static_cast<int>((me + n - distance) % n);
        const uint64_t args[3] = {epoch, round, flags};
        const ccs_status_t st = am_.send(*internal_, to, handler_, args, 3, nullptr, 0, nullptr);
        if (st == CCS_ERR_PEER_FAILED) flags |= missing_flag;
        else if (st != CCS_OK) return st;
        const auto done = [&] {
            if (arrivals_.arrived(epoch, round) || am_.peer_has_failed(from)) return true;
            if (!am_.any_peer_failed()) return false;
            const auto now = std::chrono::steady_clock::now();
            if (!give_up_at) give_up_at = now + am_engine::failure_grace;
            return now >= *give_up_at;
        };
        while (!done()) progress_();
        if (!arrivals_.take(epoch, round, flags)) flags |= missing_flag;
    }
    if (all_flags) *all_flags = flags & ~missing_flag;
    if (flags & missing_flag)
        return fail(CCS_ERR_PEER_FAILED, "barrier: " + (am_.any_peer_failed() ? am_.failure()
                                                                             : "a failed process did not take part"));
    return CCS_OK;
}

}  // namespace ccs::coll
