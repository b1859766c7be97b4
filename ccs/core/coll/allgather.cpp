#include "core/coll/allgather.hpp"

#include "util/error.hpp"

namespace ccs::coll {

ccs_status_t allgather::install(internal_handlers &handlers) {
    const ccs_status_t st = handlers.reserve("allgather", 1, handler_);
    if (st != CCS_OK) return st;
    handlers.set(handler_, &allgather::on_blob, this);
    internal_ = &handlers.internal();
    return CCS_OK;
}

void allgather::on_blob(const ccs_am_message_t *m, void *self) {
    auto &a = *static_cast<allgather *>(self);
    if (m->nargs != 1 || m->args[0] < a.finished_ || m->source < 0 || m->source >= a.size_) return;
    auto &slots = a.arrived_[m->args[0]];
    slots.resize(static_cast<size_t>(a.size_));
    const auto *bytes = static_cast<const uint8_t *>(m->payload);
    slots[static_cast<size_t>(m->source)] = blob(bytes, bytes + m->payload_size);
}

ccs_status_t allgather::run(const blob &mine, std::vector<blob> &all) {
    const uint64_t epoch = epoch_++;
    const uint64_t args[1] = {epoch};
    std::string missing;
    for (int to = 0; to < size_; ++to) {
        if (to == rank_) continue;
        const ccs_status_t st = am_.send(*internal_, to, handler_, args, 1, mine.data(), mine.size(), nullptr);
        if (st != CCS_OK && st != CCS_ERR_PEER_FAILED) {
            arrived_.erase(epoch);
            return st;
        }
    }
    auto &slots = arrived_[epoch];
    slots.resize(static_cast<size_t>(size_));
    all.assign(static_cast<size_t>(size_), blob{});
    all[static_cast<size_t>(rank_)] = mine;
    for (int from = 0; from < size_; ++from) {
        if (from == rank_) continue;
        auto &slot = slots[static_cast<size_t>(from)];
        while (!slot && !am_.peer_has_failed(from)) progress_();
        if (slot) all[static_cast<size_t>(from)] = std::move(*slot);
        else missing += (missing.empty() ? "" : ", ") + std::to_string(from);
    }
    arrived_.erase(epoch);
    finished_ = epoch + 1;
    if (!missing.empty())
        return fail(CCS_ERR_PEER_FAILED, "rank(s) " + missing + " failed before sending their part: " + am_.failure());
    return CCS_OK;
}

}  // namespace ccs::coll
