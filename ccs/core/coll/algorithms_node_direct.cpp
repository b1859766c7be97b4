// Large collectives of a team on one node whose members reach each other's
// memory by cross-memory attach (node_area::cross_memory): each member
// says in its slot where its buffers lie, moves its share of the bytes
// straight from one member's buffer into another's (one copy, where node
// memory takes two), then says it moved them. It ends once every member
// did, since until then the others may still read or write its buffers.
// The shares are spread so that each member moves about as much as any
// other, all at once.
#include "core/coll/algorithms_node.hpp"
#include "core/coll/node_steps.hpp"
#include "util/cross_memory.hpp"

#include <cerrno>
#include <cstring>
#include <string>

namespace ccs::coll {

using namespace node_steps;

namespace {

// Where a member's buffers lie, in its slot's inline bytes.
struct buffers_at {
    uint64_t src, dst;
};
static_assert(sizeof(buffers_at) <= node_area::inline_bytes);

// One move of this member's: `length` bytes between `local` and member
// `peer`'s source (read) or destination (write), `offset` bytes in.
struct direct_move {
    int peer;
    bool write;
    uint8_t *local;
    size_t offset;
    size_t length;
};

void record_failure(schedule::step_failure &f, int error, const team_view &t, int peer, size_t length) {
    const std::string who = "rank " + std::to_string(t.job_rank(peer));
    f.status = error == ESRCH ? CCS_ERR_PEER_FAILED : error == EFAULT ? CCS_ERR_INVALID_ARG : CCS_ERR_TRANSPORT;
    f.detail = error == ESRCH    ? who + " ended"
               : error == EFAULT ? "moving " + std::to_string(length) + " bytes between this process and " + who +
                                       ": a buffer in one of them is not mapped for the collective's size"
                                 : "cross-memory attach to " + who + ": " + std::strerror(error);
}

// Says where `src` and `dst` lie, once every member did makes `moves`,
// says it moved them and waits until every member did.
//
// No member may return while another may still write into its buffers,
// and a member that failed must not hold the others forever. So:
//   - a member that failed before it arrived arrives refusing (no member
//     then sees every member arrived, so none moves); one that failed
//     later moves nothing more, and says it moved;
//   - waiting for the others to arrive, a member ends early only where
//     one of them will never arrive as it did (refused, called something
//     else, failed before arriving, or died), so none moves;
//   - waiting for the others' moves, it ends once each moved or failed,
//     early only where each of those still moving died.
schedule direct_exchange(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                         std::vector<direct_move> moves) {
    schedule s = node_schedule(signature);
    s.cross_memory = true;
    node_area *a = t.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    auto failure = s.new_step_failure();
    auto &say = s.add_round(0);
    say.ready = [a, seq] { return free_slot(a, seq); };
    say.step = [a, seq, word, src, dst] {
        const buffers_at mine{reinterpret_cast<uintptr_t>(src), reinterpret_cast<uintptr_t>(dst)};
        std::memcpy(a->slot(a->rank(), seq, sizeof mine), &mine, sizeof mine);
        a->arrive(seq, a->failed_at(a->rank(), seq) == CCS_OK ? word : node_area::refused_word(seq));
    };
    auto &move = s.add_round(1);
    auto missing = [a, seq, word](int m) { return reached(a, m, seq, word) == 0; };
    move.ready = [a, seq, word, missing] {
        if (const int r = all_arrived(a, seq, word); r != 0) return r;
        // One that failed before it arrived never will: its failed word
        // comes before any arrive word, so one still missing after its
        // failed word was read stays missing.
        for (int m = 0; m < a->size(); ++m)
            if (missing(m) && a->failed_at(m, seq) != CCS_OK && missing(m)) return -1 - m;
        return 0;
    };
    move.waits_on = missing;
    move.step = [a, t, seq, word, moves = std::move(moves), failure] {
        for (const direct_move &m : moves) {
            if (a->failed_at(a->rank(), seq) != CCS_OK) break;
            buffers_at theirs;
            std::memcpy(&theirs, a->slot(m.peer, seq, sizeof theirs), sizeof theirs);
            const uint64_t base = m.write ? theirs.dst : theirs.src;
            // A member without that buffer (its part of a larger
            // collective needs none) is left out.
            if (!base || !m.local || !m.length) continue;
            auto *remote = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(base)) + m.offset;
            if (m.peer == a->rank()) {
                copy(m.write ? remote : m.local, m.write ? m.local : remote, m.length);
                continue;
            }
            if (const int error = cross_memory_move(m.write, a->pid(m.peer), m.local, remote, m.length)) {
                record_failure(*failure, error, t, m.peer, m.length);
                a->fail(seq, failure->status);  // before the word below lets any member end
            }
        }
        publish(a->mine().moved[seq % 2], word);
    };
    auto &wait = s.add_round(2);
    auto moving = [a, seq, word](int m) { return moved(a, m, seq, word) <= 0 && a->failed_at(m, seq) == CCS_OK; };
    wait.ready = [a, moving] {
        for (int m = 0; m < a->size(); ++m)
            if (moving(m)) return 0;
        return 1;
    };
    wait.waits_on = moving;
    return s;
}

}  // namespace

// The root writes piece j of its buffer into member j; member j reads the
// others from the root.
schedule node_broadcast_direct(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                               int root) {
    const int n = t.size(), me = t.rank;
    // Piece j: [cut(j), cut(j + 1)), on cache-line boundaries.
    auto cut = [length, n](int j) -> size_t {
        if (j >= n) return length;
        const auto jj = static_cast<size_t>(j), nn = static_cast<size_t>(n);
        return (length / nn * jj + length % nn * jj / nn) & ~size_t{63};
    };
    std::vector<direct_move> moves;
    if (me == root) {
        for (int m = 0; m < n; ++m)
            if (m != root) moves.push_back({m, true, at_or_null(buffer, cut(m)), cut(m), cut(m + 1) - cut(m)});
    } else {
        moves.push_back({root, false, buffer, 0, cut(me)});
        moves.push_back({root, false, at_or_null(buffer, cut(me + 1)), cut(me + 1), length - cut(me + 1)});
    }
    return direct_exchange(t, seq, signature, buffer, buffer, std::move(moves));
}

// Every member writes its block into the root's destination.
schedule node_gather_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, size_t length,
                            uint8_t *dst, int root) {
    const direct_move m{root, true, const_cast<uint8_t *>(src), static_cast<size_t>(t.rank) * length, length};
    return direct_exchange(t, seq, signature, src, dst, {m});
}

// Every member reads every member's block.
schedule node_allgather_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src,
                               uint8_t *dst, const blocks &b) {
    std::vector<direct_move> moves;
    for (int m = 0; m < t.size(); ++m) {
        const auto mm = static_cast<size_t>(m);
        moves.push_back({m, false, at_or_null(dst, b.offsets[mm]), 0, b.lengths[mm]});
    }
    return direct_exchange(t, seq, signature, src, dst, std::move(moves));
}

// Every member reads its block of every member's source.
schedule node_alltoall_direct(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src,
                              size_t length, uint8_t *dst) {
    std::vector<direct_move> moves;
    const size_t me = static_cast<size_t>(t.rank);
    for (int m = 0; m < t.size(); ++m)
        moves.push_back({m, false, at_or_null(dst, static_cast<size_t>(m) * length), me * length, length});
    return direct_exchange(t, seq, signature, src, dst, std::move(moves));
}

}  // namespace ccs::coll
