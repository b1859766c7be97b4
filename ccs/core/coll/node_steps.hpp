// The pieces every schedule through node memory (coll/node_area.hpp) is
// made of: conditions a round waits for and what its step writes.
#pragma once

#include "core/coll/node_area.hpp"
#include "core/coll/schedule.hpp"

#include <cstring>

namespace ccs::coll::node_steps {

using header = node_area::header;
using counter = node_area::counter;

inline void publish(counter &c, uint64_t value) { c.value.store(value, std::memory_order_release); }

// A member whose collective failed before it started has null buffers.
inline void copy(uint8_t *dst, const uint8_t *src, size_t bytes) {
    if (bytes && dst && src && dst != src) std::memcpy(dst, src, bytes);
}

inline schedule node_schedule(uint64_t signature) {
    schedule s;
    s.in_node_memory = true;
    s.signature = signature;
    return s;
}

// Every member arrived with this word: 1; not yet: 0; -1 - m: member m
// called something else.
inline int all_arrived(const node_area *a, uint64_t seq, uint64_t word) {
    const int m = a->arrivals(seq, word);
    return m == a->size() ? 1 : m < 0 ? 0 : -1 - m;
}

inline int free_slot(const node_area *a, uint64_t seq) { return a->slot_free(seq) ? 1 : 0; }

// > 0 once `theirs`, a word `member` stored, says it reached collective
// `seq`; 0 not yet; -1 - member where it did as something else.
inline int reached_by(uint64_t theirs, int member, uint64_t seq, uint64_t word) {
    if (theirs < ((seq + 1) << 24)) return 0;
    return theirs == word || node_area::started_seq(theirs) != seq ? 1 : -1 - member;
}
// By `member`'s arrive word (or, with `released`, its released word).
inline int reached(const node_area *a, int member, uint64_t seq, uint64_t word, bool released = false) {
    return reached_by(released ? a->of(member).released[seq % 2].value.load(std::memory_order_acquire)
                               : a->arrived(member, seq % 2),
                      member, seq, word);
}
// By `member`'s moved word.
inline int moved(const node_area *a, int member, uint64_t seq, uint64_t word) {
    return reached_by(a->of(member).moved[seq % 2].value.load(std::memory_order_acquire), member, seq, word);
}

// Chunk c's buffer (c % 2) may be filled again: every member is done with
// chunk c - 2.
inline int chunk_free(const node_area *a, uint64_t c) {
    return c < 2 || a->all_reached([](header &h) -> counter & { return h.consumed; }, c - 1) ? 1 : 0;
}
// Every member put chunk c in its buffer.
inline int all_posted(const node_area *a, uint64_t c) {
    return a->all_reached([](header &h) -> counter & { return h.posted; }, c + 1) ? 1 : 0;
}

}  // namespace ccs::coll::node_steps
