// Collectives of a team all on one node, through its shared memory
// (coll/node_area.hpp): rounds that wait for other members' counters
// instead of messages. Small ones follow the same protocol as their
// blocking form (coll/node_now.cpp), so the two mix in one team.
#include "core/coll/algorithms_node.hpp"
#include "core/coll/node_steps.hpp"

#include <cstring>

namespace ccs::coll {

using namespace node_steps;

// Everyone says it arrived and waits until all did.
schedule node_barrier(const team_view &t, uint64_t seq, uint64_t signature) {
    schedule s = node_schedule(signature);
    node_area *a = t.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    s.add_round(0).step = [a, seq, word] { a->arrive(seq, word); };
    s.add_round(1).ready = [a, seq, word] { return all_arrived(a, seq, word); };
    return s;
}

// Small: the root fills its slot, the others copy out of it. Large:
// directly where the members reach each other's memory, else chunk by
// chunk through the root's chunk buffers, the next filled while the last
// drains.
schedule node_broadcast(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                        int root) {
    schedule s = node_schedule(signature);
    node_area *a = t.area.get();
    const bool is_root = t.rank == root;
    if (length <= node_area::slot_bytes) {
        const uint64_t word = node_area::started_word(seq, signature);
        auto &r = s.add_round(0);
        if (is_root) {
            r.ready = [a, seq] { return free_slot(a, seq); };
            r.step = [a, seq, word, buffer, length] {
                copy(a->slot(a->rank(), seq, length), buffer, length);
                a->arrive(seq, word);
            };
        } else {
            r.ready = [a, seq, word, root] { return reached(a, root, seq, word); };
            r.step = [a, seq, word, buffer, length, root] {
                copy(buffer, a->slot(root, seq, length), length);
                a->arrive(seq, word);
            };
        }
        return s;
    }
    if (a->cross_memory()) return node_broadcast_direct(t, seq, signature, buffer, length, root);
    const uint64_t chunks = (length + node_area::chunk_bytes - 1) / node_area::chunk_bytes;
    const uint64_t first = a->take_chunks(chunks);
    s.chunks_end = first + chunks;
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint64_t c = first + k;
        const size_t at = k * node_area::chunk_bytes, n = std::min(node_area::chunk_bytes, length - at);
        auto &r = s.add_round(static_cast<uint32_t>(k));
        if (is_root) {
            // Its buffer's last chunk (c - 2) consumed everywhere.
            r.ready = [a, c] { return chunk_free(a, c); };
            r.step = [a, c, buffer, at, n] {
                copy(a->chunk(a->rank(), c), at_or_null(buffer, at), n);
                publish(a->mine().posted, c + 1);
                publish(a->mine().consumed, c + 1);
            };
        } else {
            r.ready = [a, c, root] { return a->of(root).posted.value.load(std::memory_order_acquire) > c ? 1 : 0; };
            r.step = [a, c, buffer, at, n, root] {
                copy(at_or_null(buffer, at), a->chunk(root, c), n);
                publish(a->mine().consumed, c + 1);
            };
        }
    }
    return s;
}

// Small: every member puts its data in its slot and combines all slots in
// rank order itself.
schedule node_allreduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                        size_t count, const reduction &r) {
    const size_t bytes = count * r.element;
    if (bytes > node_area::slot_bytes) return node_reduce_chunks(t, signature, src, dst, count, r, -1);
    return slot_exchange(t, seq, signature, src, bytes,
                         [dst, bytes, r](const node_area &a, uint64_t s) { combine_slots(a, s, r, dst, bytes); });
}

// Chunk by chunk: every member puts its chunk in its buffer; member j
// combines portion j across all buffers (in rank order) into member 0's;
// the root (every member when root < 0) copies every portion out of it.
schedule node_reduce_chunks(const team_view &t, uint64_t signature, const uint8_t *src, uint8_t *dst, size_t count,
                            const reduction &r, int root) {
    schedule s = node_schedule(signature);
    node_area *a = t.area.get();
    const int n = t.size(), me = t.rank;
    const bool drains = root < 0 || root == me;
    const size_t per_chunk = node_area::chunk_bytes / r.element;  // elements
    const uint64_t chunks = (count + per_chunk - 1) / per_chunk;
    const uint64_t first = a->take_chunks(chunks);
    s.chunks_end = first + chunks;
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint64_t c = first + k;
        const size_t e0 = k * per_chunk, m = std::min(per_chunk, count - e0);
        const size_t at = e0 * r.element, length = m * r.element;
        // Portion j: elements [m * j / n, m * (j + 1) / n) of the chunk.
        auto portion = [m, n, &r](int j) {
            const size_t from = m * static_cast<size_t>(j) / static_cast<size_t>(n);
            const size_t to = m * static_cast<size_t>(j + 1) / static_cast<size_t>(n);
            return std::pair<size_t, size_t>{from * r.element, (to - from) * r.element};
        };
        auto &fill = s.add_round(static_cast<uint32_t>(3 * k));
        fill.ready = [a, c] { return chunk_free(a, c); };
        fill.step = [a, c, src, at, length] {
            copy(a->chunk(a->rank(), c), at_or_null(src, at), length);
            publish(a->mine().posted, c + 1);
        };
        auto &combine = s.add_round(static_cast<uint32_t>(3 * k + 1));
        combine.ready = [a, c] { return all_posted(a, c); };
        const std::pair<size_t, size_t> own = portion(me);
        const size_t mine_at = own.first, mine_length = own.second;
        // Into member 0's buffer, whose portion j only member j touches:
        // rank order with no copy. A member that takes nothing out is done
        // with the chunk here.
        combine.step = [a, c, n, r, mine_at, mine_length, drains] {
            uint8_t *into = a->chunk(0, c) + mine_at;
            for (int j = 1; j < n; ++j) apply_accumulate(r.acc, into, a->chunk(j, c) + mine_at, mine_length, nullptr);
            publish(a->mine().reduced, c + 1);
            if (!drains) publish(a->mine().consumed, c + 1);
        };
        if (!drains) continue;
        auto &drain = s.add_round(static_cast<uint32_t>(3 * k + 2));
        drain.ready = [a, c] { return a->all_reached([](header &h) -> counter & { return h.reduced; }, c + 1) ? 1 : 0; };
        std::vector<std::pair<size_t, size_t>> portions;
        for (int j = 0; j < n; ++j) portions.push_back(portion(j));
        drain.step = [a, c, dst, at, portions] {
            for (size_t j = 0; j < portions.size(); ++j)
                copy(dst ? dst + at + portions[j].first : nullptr, a->chunk(0, c) + portions[j].first,
                     portions[j].second);
            publish(a->mine().consumed, c + 1);
        };
    }
    return s;
}

void combine_slots(const node_area &a, uint64_t seq, const reduction &r, uint8_t *dst, size_t bytes, int members) {
    if (members < 0) members = a.size();
    if (!dst || !bytes || members == 0) return;
    std::memcpy(dst, a.slot(0, seq, bytes), bytes);
    for (int m = 1; m < members; ++m) apply_accumulate(r.acc, dst, a.slot(m, seq, bytes), bytes, nullptr);
}

}  // namespace ccs::coll
