#include "core/coll/node_area.hpp"

namespace ccs::coll {

node_area::node_area(std::vector<uint8_t *> blocks, int rank, uint64_t first_seq, std::function<void()> release,
                     std::vector<pid_t> pids)
    : blocks_(std::move(blocks)),
      pids_(std::move(pids)),
      rank_(rank),
      first_seq_(first_seq),
      release_(std::move(release)) {
    next_done_[first_seq % 2] = first_seq;
    next_done_[(first_seq + 1) % 2] = first_seq + 1;
}

node_area::~node_area() {
    if (release_) release_();
}

bool node_area::slot_free(uint64_t seq) const {
    if (seq < first_seq_ + 2) return true;
    for (int m = 0; m < size(); ++m)
        if (done(m, seq % 2).load(std::memory_order_acquire) < seq - 1) return false;
    return true;
}

void node_area::skip_chunks(uint64_t end) const {
    for (counter *c : {&mine().posted, &mine().reduced, &mine().consumed})
        if (c->value.load(std::memory_order_relaxed) < end) c->value.store(end, std::memory_order_release);
}

void node_area::finished(uint64_t seq) {
    if (seq < first_seq_) return;
    const size_t p = seq % 2;
    if (seq != next_done_[p]) {
        ended_early_.insert(seq);
        return;
    }
    uint64_t last = seq;
    next_done_[p] = seq + 2;
    while (ended_early_.erase(next_done_[p])) {
        last = next_done_[p];
        next_done_[p] += 2;
    }
    done(rank_, p).store(last + 1, std::memory_order_release);
}

}  // namespace ccs::coll
