// Collectives of a team across nodes in two levels (coll/team.hpp
// two_levels): the members on each node meet in their node memory, where
// the node's leader (its first member) gathers what they bring; the
// leaders run the message algorithm among themselves; each leader hands
// the outcome back through its node memory.
//
// Small ones (up to a slot), as for a team on one node
// (algorithms_node.cpp): a member's data in its slot of the collective's
// parity, then its arrive word; the leader's outcome in its own slot,
// then its released word. Large broadcasts, allreduces and reduces are
// the node schedules themselves (chunk by chunk) on the node's members as
// a team, around the leaders' message schedule.
#include "core/coll/algorithms_node.hpp"
#include "core/coll/node_steps.hpp"

#include <algorithm>
#include <cstring>

namespace ccs::coll {

using namespace node_steps;

namespace {

// Some of the team's members (team ranks `of`) as a team of their own,
// where this process has rank `rank`.
team_view part_of(const team_view &t, const std::vector<int> &of, int rank, std::shared_ptr<node_area> area) {
    std::vector<int> members;
    for (int m : of) members.push_back(t.job_rank(m));
    team_view v;
    v.wire_id = t.wire_id;
    v.members = std::make_shared<const std::vector<int>>(std::move(members));
    v.rank = rank;
    v.area = std::move(area);
    return v;
}

// The leaders, for the message algorithms.
team_view leaders_view(const team_view &t) { return part_of(t, t.levels->leaders, t.levels->leader_index, nullptr); }

// This node's members, in its node memory.
team_view node_view(const team_view &t) { return part_of(t, t.levels->group, t.levels->index, t.levels->area); }

// Appends the leaders' schedule to `s`: its peers become team ranks, its
// tags move past the node rounds'.
void append_leaders(schedule &s, schedule &&leaders, const two_levels &l) {
    constexpr uint32_t leader_tags = 1u << 16;
    for (schedule::round &r : leaders.rounds) {
        for (auto &send : r.sends) send.peer = l.leaders[static_cast<size_t>(send.peer)];
        for (auto &receive : r.receives) receive.peer = l.leaders[static_cast<size_t>(receive.peer)];
        r.tag += leader_tags;
        s.rounds.push_back(std::move(r));
    }
    s.adopt_scratch(leaders);
}

// Appends a node schedule's rounds (which send nothing) to `s`.
void append_node(schedule &s, schedule &&node) {
    for (schedule::round &r : node.rounds) s.rounds.push_back(std::move(r));
    s.adopt_scratch(node);
    s.chunks_end = std::max(s.chunks_end, node.chunks_end);
    s.cross_memory = s.cross_memory || node.cross_memory;
}

void release(node_area *a, uint64_t seq, uint64_t word) {
    a->mine().released[seq % 2].value.store(word, std::memory_order_release);
}

schedule level_schedule(const team_view &t, uint64_t signature) {
    schedule s;
    s.signature = signature;
    s.in_node_memory = t.levels->area != nullptr;
    return s;
}

}  // namespace

schedule levels_barrier(const team_view &t, uint64_t seq, uint64_t signature) {
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    node_area *a = l.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    if (a) {
        s.add_round(0).step = [a, seq, word] { a->arrive(seq, word); };
        if (l.leader_index < 0) {
            s.add_round(1).ready = [a, seq, word] { return reached(a, 0, seq, word, true); };
            return s;
        }
        s.add_round(1).ready = [a, seq, word] { return all_arrived(a, seq, word); };
    }
    append_leaders(s, build_barrier(leaders_view(t), seq), l);
    if (a) s.add_round(2).step = [a, seq, word] { release(a, seq, word); };
    return s;
}

// Large: on the root's node, from the root to its node's members (its
// leader among them); among the leaders by messages; on every other node
// from its leader to its members. A root that leads sends to the other
// leaders first.
schedule levels_broadcast_large(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer,
                                size_t length, int root) {
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    const int root_leader = l.node_leader[static_cast<size_t>(root)];
    const bool root_here = root_leader == l.node_leader[static_cast<size_t>(t.rank)];
    const bool leader = l.leader_index >= 0;
    int from = 0;  // the node member the node's part starts from
    if (root_here)
        while (l.group[static_cast<size_t>(from)] != root) ++from;
    auto leaders = [&] {
        if (leader) append_leaders(s, build_broadcast(leaders_view(t), seq, buffer, length, root_leader), l);
    };
    if (!root_here || from == 0) leaders();
    if (l.area) append_node(s, node_broadcast(node_view(t), seq, signature, buffer, length, from));
    if (root_here && from != 0) leaders();
    return s;
}

schedule levels_broadcast(const team_view &t, uint64_t seq, uint64_t signature, uint8_t *buffer, size_t length,
                          int root) {
    if (length > node_area::slot_bytes) return levels_broadcast_large(t, seq, signature, buffer, length, root);
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    node_area *a = l.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    const bool root_here = l.node_leader[static_cast<size_t>(root)] == l.node_leader[static_cast<size_t>(t.rank)];
    const bool leader = l.leader_index >= 0;
    // On the root's node, a root that does not lead hands its data to its
    // leader first.
    if (root_here && !leader && t.rank == root) {
        auto &r = s.add_round(0);
        r.ready = [a, seq] { return free_slot(a, seq); };
        r.step = [a, seq, word, buffer, length] {
            if (buffer && length) std::memcpy(a->slot(a->rank(), seq, length), buffer, length);
            a->arrive(seq, word);
        };
        return s;
    }
    if (leader) {
        if (root_here && t.rank != root) {
            int root_index = 0;
            while (l.group[static_cast<size_t>(root_index)] != root) ++root_index;
            auto &r = s.add_round(0);
            r.ready = [a, seq, word, root_index] { return reached(a, root_index, seq, word, false); };
            r.step = [a, seq, buffer, length, root_index] {
                if (buffer && length) std::memcpy(buffer, a->slot(root_index, seq, length), length);
            };
        }
        append_leaders(s, build_broadcast(leaders_view(t), seq, buffer, length, l.node_leader[static_cast<size_t>(root)]),
                       l);
        if (a) {
            auto &r = s.add_round(1);
            r.ready = [a, seq] { return free_slot(a, seq); };
            r.step = [a, seq, word, buffer, length] {
                if (buffer && length) std::memcpy(a->slot(a->rank(), seq, length), buffer, length);
                release(a, seq, word);
            };
        }
        return s;
    }
    auto &r = s.add_round(1);
    r.ready = [a, seq, word] { return reached(a, 0, seq, word, true); };
    r.step = [a, seq, buffer, length] {
        if (buffer && length) std::memcpy(buffer, a->slot(0, seq, length), length);
    };
    return s;
}

// Large: each node's members combine into their leader's dst (node memory,
// chunk by chunk), the leaders allreduce by messages, each leader hands
// the result to its node's members.
schedule levels_allreduce_large(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src,
                                uint8_t *dst, size_t count, const reduction &r) {
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    if (l.area) append_node(s, node_reduce_chunks(node_view(t), signature, src, dst, count, r, 0));
    if (l.leader_index >= 0)
        append_leaders(s, build_allreduce(leaders_view(t), seq, l.area ? dst : src, dst, count, r), l);
    if (l.area) append_node(s, node_broadcast(node_view(t), seq, signature, dst, count * r.element, 0));
    return s;
}

// Large reduce: each node's members combine into their leader (node
// memory), the leaders reduce by messages to the root's leader, which
// hands the result to the root through its node's memory if it does not
// lead itself.
schedule levels_reduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                       size_t count, const reduction &r, int root) {
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    const size_t bytes = count * r.element;
    const int root_leader = l.node_leader[static_cast<size_t>(root)];
    const bool root_here = root_leader == l.node_leader[static_cast<size_t>(t.rank)];
    const bool leader = l.leader_index >= 0;
    // Where the leader holds its node's part, and the leaders' result.
    uint8_t *node_part = nullptr, *result = nullptr;
    if (leader) {
        node_part = t.rank == root ? dst : s.scratch_bytes(bytes);
        if (root_here) result = t.rank == root ? dst : s.scratch_bytes(bytes);
    }
    if (l.area) append_node(s, node_reduce_chunks(node_view(t), signature, src, node_part, count, r, 0));
    if (leader)
        append_leaders(s, build_reduce(leaders_view(t), seq, l.area ? node_part : src, result, count, r, root_leader),
                       l);
    if (root_here && l.area && root != l.group[0]) {
        uint8_t *buffer = leader ? result : t.rank == root ? dst : nullptr;
        append_node(s, node_broadcast(node_view(t), seq, signature, buffer, bytes, 0));
    }
    return s;
}

schedule levels_allreduce(const team_view &t, uint64_t seq, uint64_t signature, const uint8_t *src, uint8_t *dst,
                          size_t count, const reduction &r) {
    if (count * r.element > node_area::slot_bytes)
        return levels_allreduce_large(t, seq, signature, src, dst, count, r);
    const two_levels &l = *t.levels;
    schedule s = level_schedule(t, signature);
    node_area *a = l.area.get();
    const uint64_t word = node_area::started_word(seq, signature);
    const size_t bytes = count * r.element;
    if (a) {
        auto &fill = s.add_round(0);
        fill.ready = [a, seq] { return free_slot(a, seq); };
        fill.step = [a, seq, word, src, bytes] {
            if (src && bytes) std::memcpy(a->slot(a->rank(), seq, bytes), src, bytes);
            a->arrive(seq, word);
        };
    }
    if (l.leader_index < 0) {
        auto &take = s.add_round(1);
        take.ready = [a, seq, word] { return reached(a, 0, seq, word, true); };
        take.step = [a, seq, dst, bytes] {
            if (dst && bytes) std::memcpy(dst, a->slot(0, seq, bytes), bytes);
        };
        return s;
    }
    if (a) {
        // The node's part, combined in team-rank order, in dst.
        auto &gather = s.add_round(1);
        gather.ready = [a, seq, word] { return all_arrived(a, seq, word); };
        gather.step = [a, seq, r, dst, bytes] { combine_slots(*a, seq, r, dst, bytes); };
        append_leaders(s, build_allreduce(leaders_view(t), seq, dst, dst, count, r), l);
        auto &hand = s.add_round(2);
        hand.step = [a, seq, word, dst, bytes] {
            // This leader's own data in its slot is combined already.
            if (dst && bytes) std::memcpy(a->slot(a->rank(), seq, bytes), dst, bytes);
            release(a, seq, word);
        };
    } else {
        append_leaders(s, build_allreduce(leaders_view(t), seq, src, dst, count, r), l);
    }
    return s;
}

}  // namespace ccs::coll
