// Restores FIFO order of one (context, source) stream over a transport that
// does not order: messages carry sequence numbers; early ones wait here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace ccs {

template <typename Message>
class reorder_buffer {
public:
    enum class verdict { deliver, early, duplicate };

    explicit reorder_buffer(uint32_t first = 0) : expected_(first) {}

    // Classifies message `seq`. `deliver`: it is the next one; the caller
    // delivers it, then drains with next(). `early`: the caller keeps a copy
    // with hold(). `duplicate`: already delivered or already held.
    verdict classify(uint32_t seq) {
        const auto ahead = static_cast<int32_t>(seq - expected_);  // wraps safely
        if (ahead == 0) {
            ++expected_;
            return verdict::deliver;
        }
        if (ahead < 0 || held_.count(seq) || skipped_.count(seq)) return verdict::duplicate;
        return verdict::early;
    }

    // Message `seq` will never come (its sender gave up on it). The same
    // verdicts: `deliver` means the stream moved on, and the caller drains
    // with next(); `early`: it is skipped when the stream gets there.
    verdict skip(uint32_t seq) {
        const verdict v = classify(seq);
        if (v == verdict::early) skipped_.insert(seq);
        return v;
    }

    void hold(uint32_t seq, Message &&message) { held_.emplace(seq, std::move(message)); }

    // The next in-order message if it has arrived.
    // Whether anything is held or skipped, so next() could find something;
    // the common in-order stream asks only this.
    bool waiting() const { return !held_.empty() || !skipped_.empty(); }

    std::optional<Message> next() {
        while (skipped_.erase(expected_)) ++expected_;
        auto it = held_.find(expected_);
        if (it == held_.end()) return std::nullopt;
        Message m = std::move(it->second);
        held_.erase(it);
        ++expected_;
        return m;
    }

    size_t held() const { return held_.size(); }
    uint32_t expected() const { return expected_; }

private:
    uint32_t expected_;
    std::map<uint32_t, Message> held_;
    std::set<uint32_t> skipped_;
};

}  // namespace ccs
