// Collectives that move data without combining it: barrier, broadcast,
// gather, allgather, alltoall.
#include "core/coll/algorithms.hpp"
#include "core/coll/algorithms_node.hpp"
#include "core/coll/signature.hpp"

#include <cstring>

namespace ccs::coll {

size_t blocks::total() const {
    size_t end = 0;
    for (size_t i = 0; i < lengths.size(); ++i) end = std::max(end, offsets[i] + lengths[i]);
    return end;
}

size_t blocks::data() const {
    size_t sum = 0;
    for (size_t length : lengths) sum += length;
    return sum;
}

blocks blocks::uniform(int members, size_t length) {
    blocks b;
    for (int i = 0; i < members; ++i) {
        b.lengths.push_back(length);
        b.offsets.push_back(static_cast<size_t>(i) * length);
    }
    return b;
}

// Dissemination: in round k each process tells the one 2^k ahead.
schedule build_barrier(const team_view &t, uint64_t seq) {
    const uint64_t signature = signature_of(kind::barrier);
    if (t.area && t.size() > 1) return node_barrier(t, seq, signature);
    if (t.levels) return levels_barrier(t, seq, signature);
    schedule s;
    s.signature = signature;
    const int n = t.size(), me = t.rank;
    for (uint32_t k = 0, d = 1; static_cast<int>(d) < n; ++k, d <<= 1) {
        auto &r = s.add_round(k);
        r.sends.push_back({(me + static_cast<int>(d)) % n, nullptr, 0});
        r.receives.push_back({(me + n - static_cast<int>(d)) % n, nullptr, 0});
    }
    return s;
}

namespace {

// A chain from the root (ranks relative to it), segment by segment: each
// member forwards segment k to the next as soon as it has it, while
// segment k + 1 arrives, so every member receives and sends each byte
// once and the last has it (n - 1 + segments - 1) segment times after the
// root started. Segment k's message has tag k.
schedule chain_broadcast(const team_view &t, uint64_t signature, uint8_t *buffer, size_t length, int root) {
    schedule s;
    s.signature = signature;
    const int n = t.size();
    const int v = (t.rank - root + n) % n;
    const int previous = (t.rank + n - 1) % n, next = (t.rank + 1) % n;
    const size_t segments = (length + broadcast_segment - 1) / broadcast_segment;
    for (size_t k = 0; k < segments; ++k) {
        const size_t from = k * broadcast_segment, bytes = std::min(broadcast_segment, length - from);
        const auto tag = static_cast<uint32_t>(k);
        if (v > 0) s.add_round(tag).receives.push_back({previous, at_or_null(buffer, from), bytes});
        if (v < n - 1) s.add_round(tag).sends.push_back({next, at_or_null(buffer, from), bytes});
    }
    return s;
}

}  // namespace

// Binomial tree rooted at `root` (ranks relative to it): receive from the
// parent, then send to every child at once, the largest subtree first.
// One message per (parent, child): one tag for all. Large, with more than
// two members, along a chain instead.
schedule build_broadcast(const team_view &t, uint64_t seq, uint8_t *buffer, size_t length, int root) {
    const uint64_t signature = broadcast_signature(root, length);
    if (t.area && t.size() > 1) return node_broadcast(t, seq, signature, buffer, length, root);
    if (t.levels) return levels_broadcast(t, seq, signature, buffer, length, root);
    if (t.size() > 2 && length >= chain_broadcast_min) return chain_broadcast(t, signature, buffer, length, root);
    schedule s;
    s.signature = signature;
    const int n = t.size();
    const int v = (t.rank - root + n) % n;
    auto absolute = [&](int relative) { return (relative + root) % n; };
    int mask = 1;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            s.add_round(0).receives.push_back({absolute(v - mask), buffer, length});
            break;
        }
    schedule::round *children = nullptr;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n) {
            if (!children) children = &s.add_round(0);
            children->sends.push_back({absolute(v + mask), buffer, length});
        }
    return s;
}

// Every member sends straight to the root, which receives into place.
schedule build_gather(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst,
                      const blocks &b, bool uniform, int root) {
    const uint64_t signature = signature_of(kind::gather, static_cast<uint64_t>(root), uniform ? length : SIZE_MAX);
    if (t.area && t.size() > 1 && uniform && length > node_area::slot_bytes)
        return node_gather(t, seq, signature, src, length, dst, root);
    schedule s;
    s.signature = signature;
    const int n = t.size(), me = t.rank;
    auto &r = s.add_round(0);
    if (me != root) {
        r.sends.push_back({root, src, length});
        return s;
    }
    for (int i = 0; i < n; ++i)
        if (i != me) r.receives.push_back({i, at_or_null(dst, b.offsets[static_cast<size_t>(i)]), b.lengths[static_cast<size_t>(i)]});
    uint8_t *mine = at_or_null(dst, b.offsets[static_cast<size_t>(me)]);
    r.step = [mine, src, length] {
        if (length && mine != src) std::memmove(mine, src, length);
    };
    return s;
}

schedule build_allgather(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst,
                         const blocks &b) {
    // By the data, not its spread: a member whose blocks lie with gaps
    // and one whose lie back to back (the datadesc form's staging) agree.
    const size_t data = b.data();
    const uint64_t signature = signature_of(kind::allgather, data);
    if (t.area && t.size() > 1) return node_allgather(t, seq, signature, src, dst, b);
    schedule s;
    s.signature = signature;
    const int n = t.size(), me = t.rank;
    auto block = [&](int i) { return at_or_null(dst, b.offsets[static_cast<size_t>(i)]); };
    auto block_length = [&](int i) { return b.lengths[static_cast<size_t>(i)]; };
    // Own block first: a ring forwards it from dst.
    uint8_t *mine = block(me);
    if (length && src && mine && mine != src) std::memmove(mine, src, length);
    if (n == 1) return s;
    if (data <= allgather_direct_max) {
        auto &r = s.add_round(0);
        for (int i = 0; i < n; ++i) {
            if (i == me) continue;
            r.sends.push_back({i, mine, length});
            r.receives.push_back({i, block(i), block_length(i)});
        }
        return s;
    }
    // Round k: pass on the block of me - k, receive that of me - k - 1.
    const int next = (me + 1) % n, previous = (me + n - 1) % n;
    for (int k = 0; k < n - 1; ++k) {
        const int out = (me - k + n) % n, in = (me - k - 1 + n) % n;
        auto &r = s.add_round(static_cast<uint32_t>(k));
        r.sends.push_back({next, block(out), block_length(out)});
        r.receives.push_back({previous, block(in), block_length(in)});
    }
    return s;
}

schedule build_alltoall(const team_view &t, uint64_t seq, const uint8_t *src, size_t length, uint8_t *dst) {
    const uint64_t signature = signature_of(kind::alltoall, length);
    if (t.area && t.size() > 1) return node_alltoall(t, seq, signature, src, length, dst);
    schedule s;
    s.signature = signature;
    const int n = t.size(), me = t.rank;
    auto &r = s.add_round(0);
    // Starting past this process spreads the first messages over the peers.
    for (int k = 1; k < n; ++k) {
        const int to = (me + k) % n, from = (me - k + n) % n;
        r.sends.push_back({to, at_or_null(src, static_cast<size_t>(to) * length), length});
        r.receives.push_back({from, at_or_null(dst, static_cast<size_t>(from) * length), length});
    }
    uint8_t *mine = at_or_null(dst, static_cast<size_t>(me) * length);
    const uint8_t *own = at_or_null(src, static_cast<size_t>(me) * length);
    r.step = [mine, own, length] {
        if (length && mine != own) std::memmove(mine, own, length);
    };
    return s;
}

}  // namespace ccs::coll
