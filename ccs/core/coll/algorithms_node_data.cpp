// Gather, allgather, alltoall and scan of a team all on one node,
// through its memory (coll/node_area.hpp). Small: every member puts its
// part in its slot; those that need the others' read them out of their
// slots once every member arrived. Large: chunk by chunk through every
// member's chunk buffers, each byte copied in by its owner and out by its
// reader, with the next chunk filling while the last drains.
#include "core/coll/algorithms_node.hpp"
#include "core/coll/node_steps.hpp"

#include <cstring>

namespace ccs::coll {

using namespace node_steps;

schedule slot_exchange(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *mine, size_t bytes,
                       slot_take take) {
    schedule s = node_schedule(signature);
    node_area *a = t.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    auto &fill = s.add_round(0);
    fill.ready = [a, seq] { return free_slot(a, seq); };
    fill.step = [a, seq, word, mine, bytes] {
        copy(a->slot(a->rank(), seq, bytes), mine, bytes);
        a->arrive(seq, word);
    };
    if (!take) return s;
    auto &read = s.add_round(1);
    read.ready = [a, seq, word] { return all_arrived(a, seq, word); };
    read.step = [a, seq, take = std::move(take)] { take(*a, seq); };
    return s;
}

namespace {

// What a reader takes out of member `member`'s chunk holding that member's
// bytes [from, from + chunk_bytes).
using chunk_take = std::function<void(int member, const uint8_t *chunk, size_t from)>;

// This member's `length` bytes at `mine` go through its chunk buffers, in
// as many chunks as the longest member's `longest` bytes need; with a
// `take`, this member reads every member's chunk once all are posted.
// Without, it is done with each chunk once it posted it.
schedule chunk_exchange(const team_view &t, uint64_t signature, const uint8_t *mine, size_t length, size_t longest,
                        chunk_take take) {
    schedule s = node_schedule(signature);
    node_area *a = t.area.get();
    const size_t chunk = node_area::chunk_bytes;
    const uint64_t chunks = (longest + chunk - 1) / chunk;
    const uint64_t first = a->take_chunks(chunks);
    s.chunks_end = first + chunks;
    const bool reads = static_cast<bool>(take);
    auto shared_take = std::make_shared<chunk_take>(std::move(take));
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint64_t c = first + k;
        const size_t from = k * chunk, bytes = from < length ? std::min(chunk, length - from) : 0;
        auto &fill = s.add_round(static_cast<uint32_t>(2 * k));
        fill.ready = [a, c] { return chunk_free(a, c); };
        fill.step = [a, c, mine, from, bytes, reads] {
            copy(a->chunk(a->rank(), c), at_or_null(mine, from), bytes);
            publish(a->mine().posted, c + 1);
            if (!reads) publish(a->mine().consumed, c + 1);
        };
        if (!reads) continue;
        auto &read = s.add_round(static_cast<uint32_t>(2 * k + 1));
        read.ready = [a, c] { return all_posted(a, c); };
        read.step = [a, c, from, shared_take] {
            for (int j = 0; j < a->size(); ++j) (*shared_take)(j, a->chunk(j, c), from);
            publish(a->mine().consumed, c + 1);
        };
    }
    return s;
}

// The part of a member's block [block_from, block_from + block_length) in
// its chunk of bytes [from, from + chunk_bytes), copied to dst at its
// place in the block.
void copy_overlap(uint8_t *dst, const uint8_t *chunk, size_t from, size_t block_from, size_t block_length) {
    const size_t lo = std::max(from, block_from);
    const size_t hi = std::min(from + node_area::chunk_bytes, block_from + block_length);
    if (dst && lo < hi) std::memcpy(dst + (lo - block_from), chunk + (lo - from), hi - lo);
}

}  // namespace

// Large only: small rooted ones go by messages (algorithms.hpp).
schedule node_gather(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                     uint8_t *dst, int root) {
    if (t.area->cross_memory()) return node_gather_direct(t, seq, signature, src, length, dst, root);
    chunk_take take;
    if (t.rank == root)
        take = [dst, length](int j, const uint8_t *chunk, size_t from) {
            copy_overlap(at_or_null(dst, static_cast<size_t>(j) * length), chunk, from, 0, length);
        };
    return chunk_exchange(t, signature, src, length, length, std::move(take));
}

schedule node_allgather(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                        const blocks &b) {
    const size_t longest = *std::max_element(b.lengths.begin(), b.lengths.end());
    const size_t length = b.lengths[static_cast<size_t>(t.rank)];
    if (longest <= node_area::slot_bytes)
        return slot_exchange(t, seq, signature, src, length, [dst, b](const node_area &a, uint64_t s) {
            for (size_t j = 0; j < b.lengths.size(); ++j)
                copy(at_or_null(dst, b.offsets[j]), a.slot(static_cast<int>(j), s, b.lengths[j]), b.lengths[j]);
        });
    if (t.area->cross_memory()) return node_allgather_direct(t, seq, signature, src, dst, b);
    return chunk_exchange(t, signature, src, length, longest, [dst, b](int j, const uint8_t *chunk, size_t from) {
        const auto jj = static_cast<size_t>(j);
        copy_overlap(at_or_null(dst, b.offsets[jj]), chunk, from, 0, b.lengths[jj]);
    });
}

// Every member's whole source goes through its memory; each reads its own
// block of every member's.
schedule node_alltoall(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                       uint8_t *dst) {
    const size_t n = static_cast<size_t>(t.size()), me = static_cast<size_t>(t.rank), all = n * length;
    if (all <= node_area::slot_bytes)
        return slot_exchange(t, seq, signature, src, all, [dst, length, n, me, all](const node_area &a, uint64_t s) {
            for (size_t j = 0; j < n; ++j)
                copy(at_or_null(dst, j * length), a.slot(static_cast<int>(j), s, all) + me * length, length);
        });
    if (t.area->cross_memory()) return node_alltoall_direct(t, seq, signature, src, length, dst);
    return chunk_exchange(t, signature, src, all, all, [dst, length, me](int j, const uint8_t *chunk, size_t from) {
        copy_overlap(at_or_null(dst, static_cast<size_t>(j) * length), chunk, from, me * length, length);
    });
}

// Member r combines the slots of members 0 .. r (exclusive: 0 .. r - 1),
// in rank order.
schedule node_scan(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                   size_t count, const reduction &r, bool exclusive) {
    const size_t bytes = count * r.element;
    const int members = exclusive ? t.rank : t.rank + 1;
    slot_take take;
    if (members > 0)
        take = [dst, bytes, r, members](const node_area &a, uint64_t s) { combine_slots(a, s, r, dst, bytes, members); };
    return slot_exchange(t, seq, signature, src, bytes, std::move(take));
}

}  // namespace ccs::coll
