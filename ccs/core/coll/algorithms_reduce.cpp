// Collectives that combine data: reduce, allreduce, scan. Every
// combination is (lower ranks' part) op (higher ranks' part) in an order
// fixed by the team's size, so results are reproducible bit for bit.
#include "core/coll/algorithms.hpp"
#include "core/coll/algorithms_node.hpp"
#include "core/coll/signature.hpp"

#include <cstring>

namespace ccs::coll {

reduction make_reduction(int op, int type) {
    reduction r;
    r.acc.op = static_cast<uint8_t>(op);
    r.acc.type = static_cast<uint8_t>(type);
    acc_unit_scale(type, r.acc.scale);
    r.element = acc_element_size(type);
    return r;
}

namespace {

// right = left op right, through `work` (as many bytes): the kernels
// combine into their left operand, and MIN, MAX and NaNs are not
// symmetric bit for bit.
void combine_into_right(const reduction &r, const uint8_t *left, uint8_t *right, uint8_t *work, size_t bytes) {
    if (!bytes) return;  // (and right may be null)
    std::memcpy(work, left, bytes);
    apply_accumulate(r.acc, work, right, bytes, nullptr);
    std::memcpy(right, work, bytes);
}

void copy_in(uint8_t *dst, const uint8_t *src, size_t bytes) {
    if (bytes && dst && src && dst != src) std::memmove(dst, src, bytes);
}

}  // namespace

uint64_t reduction_signature(kind k, size_t count, const reduction &r, uint64_t root) {
    return signature_of(k, count, r.acc.op, r.acc.type, root);
}

namespace {

// Large, by messages: a reduce-scatter around the ring (each block is
// combined once, along the ring from the member after its owner, so every
// member ends with the same bits), then an allgather around it: every
// member sends and receives 2 (n - 1) / n of the data, where recursive
// doubling sends all of it log2 n times.
schedule ring_allreduce(const team_view &t, uint64_t signature, const uint8_t *src, uint8_t *dst, size_t count,
                        const reduction &r) {
    schedule s;
    s.signature = signature;
    const size_t bytes = count * r.element;
    copy_in(dst, src, bytes);
    const int n = t.size(), me = t.rank;
    // Block b: elements [count * b / n, count * (b + 1) / n).
    auto offset = [&](int b) { return count * static_cast<size_t>(b) / static_cast<size_t>(n) * r.element; };
    auto length = [&](int b) { return offset(b + 1) - offset(b); };
    const size_t largest = length(n - 1) + r.element;
    uint8_t *in = s.scratch_bytes(largest), *work = s.scratch_bytes(largest);
    const int next = (me + 1) % n, previous = (me + n - 1) % n;
    auto block = [&](int k) { return ((k % n) + n) % n; };
    for (int k = 0; k < n - 1; ++k) {
        const int out = block(me - k), got = block(me - k - 1);
        auto &round = s.add_round(static_cast<uint32_t>(k));
        round.sends.push_back({next, dst ? dst + offset(out) : nullptr, length(out)});
        round.receives.push_back({previous, in, length(got)});
        uint8_t *into = dst ? dst + offset(got) : nullptr;
        const size_t len = length(got);
        round.step = [r, in, into, work, len] { combine_into_right(r, in, into, work, len); };
    }
    // Member me now holds block me + 1 whole.
    for (int k = 0; k < n - 1; ++k) {
        const int out = block(me + 1 - k), got = block(me - k);
        auto &round = s.add_round(static_cast<uint32_t>(n - 1 + k));
        round.sends.push_back({next, dst ? dst + offset(out) : nullptr, length(out)});
        round.receives.push_back({previous, dst ? dst + offset(got) : nullptr, length(got)});
    }
    return s;
}

}  // namespace

schedule build_allreduce(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                         const reduction &r) {
    const uint64_t signature = reduction_signature(kind::allreduce, count, r);
    if (t.area && t.size() > 1) return node_allreduce(t, seq, signature, src, dst, count, r);
    // (REPLACE, the last rank's, needs rank order: two levels combine by
    // node, which is rank order only where nodes hold runs of ranks.)
    // Large in two levels only across more than two nodes: with two, the
    // leaders' exchange carries as much as a ring among all members does,
    // after a node step that a ring overlaps (perf/RESULTS.md).
    const bool large = count * r.element > node_area::slot_bytes;
    if (t.levels && r.acc.op != CCS_ACC_REPLACE && (!large || t.levels->leaders.size() > 2))
        return levels_allreduce(t, seq, signature, src, dst, count, r);
    // (REPLACE keeps rank order: the last rank's, which a ring does not.)
    if (t.size() > 2 && count >= static_cast<size_t>(t.size()) && count * r.element >= ring_allreduce_min &&
        r.acc.op != CCS_ACC_REPLACE)
        return ring_allreduce(t, signature, src, dst, count, r);
    schedule s;
    s.signature = signature;
    const size_t bytes = count * r.element;
    copy_in(dst, src, bytes);
    const int n = t.size(), me = t.rank;
    if (n == 1) return s;
    uint8_t *in = s.scratch_bytes(bytes), *work = s.scratch_bytes(bytes);
    int p2 = 1;
    while (p2 * 2 <= n) p2 *= 2;
    const int extra = n - p2;
    // The first 2 * extra ranks pair up: the even one hands its data to
    // the odd one, which stands for both, and gets the result back.
    int folded = me >= 2 * extra ? me - extra : (me % 2 ? me / 2 : -1);
    if (me < 2 * extra) {
        auto &fold = s.add_round(0);
        if (me % 2 == 0) {
            fold.sends.push_back({me + 1, dst, bytes});
        } else {
            fold.receives.push_back({me - 1, in, bytes});
            fold.step = [r, in, dst, work, bytes] { combine_into_right(r, in, dst, work, bytes); };
        }
    }
    if (folded >= 0) {
        auto actual = [&](int f) { return f < extra ? 2 * f + 1 : f + extra; };
        for (uint32_t k = 1, mask = 1; static_cast<int>(mask) < p2; ++k, mask <<= 1) {
            const int partner_folded = folded ^ static_cast<int>(mask), partner = actual(partner_folded);
            auto &round = s.add_round(k);
            round.sends.push_back({partner, dst, bytes});
            round.receives.push_back({partner, in, bytes});
            if (partner_folded < folded)
                round.step = [r, in, dst, work, bytes] { combine_into_right(r, in, dst, work, bytes); };
            else
                round.step = [r, in, dst, bytes] { apply_accumulate(r.acc, dst, in, bytes, nullptr); };
        }
    }
    if (me < 2 * extra) {
        // Tag 0 again: the pair's fold went the other way.
        auto &unfold = s.add_round(0);
        if (me % 2) unfold.sends.push_back({me - 1, dst, bytes});
        else unfold.receives.push_back({me + 1, dst, bytes});
    }
    return s;
}

schedule build_reduce(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                      const reduction &r, int root) {
    const uint64_t signature = reduction_signature(kind::reduce, count, r, static_cast<uint64_t>(root));
    const bool large = count * r.element > node_area::slot_bytes;
    if (t.area && t.size() > 1 && large) return node_reduce_chunks(t, signature, src, dst, count, r, root);
    if (t.levels && large && r.acc.op != CCS_ACC_REPLACE) return levels_reduce(t, seq, signature, src, dst, count, r, root);
    schedule s;
    s.signature = signature;
    const size_t bytes = count * r.element;
    const int n = t.size(), me = t.rank;
    // Rank 0 combines in place when it is the root; everyone else in scratch.
    uint8_t *acc = me == 0 && root == 0 ? dst : s.scratch_bytes(bytes);
    // As a step: in two levels, src is filled by the node rounds before it.
    if (acc != src) s.add_round(0).step = [acc, src, bytes] { copy_in(acc, src, bytes); };
    uint8_t *in = s.scratch_bytes(bytes);
    // Subtree of rank me covers [me, me + mask): children come after it.
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            s.add_round(0).sends.push_back({me - mask, acc, bytes});
            break;
        }
        if (me + mask < n) {
            auto &round = s.add_round(0);
            round.receives.push_back({me + mask, in, bytes});
            round.step = [r, acc, in, bytes] { apply_accumulate(r.acc, acc, in, bytes, nullptr); };
        }
    }
    if (root != 0) {
        if (me == 0) s.add_round(1).sends.push_back({root, acc, bytes});
        else if (me == root) s.add_round(1).receives.push_back({0, dst, bytes});
    }
    return s;
}

// Round k: send the prefix so far to me + 2^k, combine the one from
// me - 2^k in front of it. The running prefix always ends at this rank, so
// after ceil(log2 n) rounds it starts at rank 0.
schedule build_scan(const team_view &t, uint64_t seq, const uint8_t *src, uint8_t *dst, size_t count,
                    const reduction &r, bool exclusive) {
    const uint64_t signature = reduction_signature(exclusive ? kind::exscan : kind::scan, count, r);
    if (t.area && t.size() > 1 && count * r.element <= node_area::slot_bytes)
        return node_scan(t, seq, signature, src, dst, count, r, exclusive);
    schedule s;
    s.signature = signature;
    const size_t bytes = count * r.element;
    const int n = t.size(), me = t.rank;
    uint8_t *prefix = exclusive ? s.scratch_bytes(bytes) : dst;
    copy_in(prefix, src, bytes);
    uint8_t *in = s.scratch_bytes(bytes), *work = s.scratch_bytes(bytes);
    // Exclusive: the prefix of ranks before this one, started by the
    // first part received (from me - 1).
    auto started = std::make_shared<bool>(false);
    for (uint32_t k = 0, d = 1; static_cast<int>(d) < n; ++k, d <<= 1) {
        auto &round = s.add_round(k);
        const int distance = static_cast<int>(d);
        if (me + distance < n) round.sends.push_back({me + distance, prefix, bytes});
        if (me - distance < 0) continue;
        round.receives.push_back({me - distance, in, bytes});
        round.step = [r, in, prefix, dst, work, bytes, exclusive, started] {
            if (exclusive) {
                if (*started) combine_into_right(r, in, dst, work, bytes);
                else if (bytes) std::memcpy(dst, in, bytes);
                *started = true;
            }
            combine_into_right(r, in, prefix, work, bytes);
        };
    }
    return s;
}

}  // namespace ccs::coll
