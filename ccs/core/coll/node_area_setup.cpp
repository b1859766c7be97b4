// Making a team's node memory (coll/node_area.hpp): each member allocates
// its block, the blocks' keys go round the team, each member maps the
// others' blocks through its transports and tries to read them by
// cross-memory attach, and the team agrees whether all of that worked
// everywhere; if the mapping did not, nothing is kept and the team's
// collectives go by messages. A team across nodes does it per node, for
// its two levels (coll/algorithms_levels.cpp).
#include "core/coll/algorithms.hpp"
#include "core/coll/team_table.hpp"
#include "util/cross_memory.hpp"
#include "util/error.hpp"

#include <cstring>

#include <unistd.h>

namespace ccs::coll {

namespace {

// One member's part of the exchange: whether its block exists, where it
// lies in the member, its process and its key.
struct record {
    static constexpr size_t bytes = 1024;
    static constexpr size_t key_room = bytes - 32;
    uint64_t ok = 0, base = 0, key_length = 0;
    int64_t pid = 0;
    uint8_t key[key_room] = {};
};
static_assert(sizeof(record) == record::bytes);

}  // namespace

ccs_status_t team_table::set_up_area(team &t) {
    const int n = t.view.size();
    if (n < 2) return CCS_OK;
    const std::vector<uint32_t> &node_of = node_memory_.node_of;
    const uint32_t here = node_of[static_cast<size_t>(rank_)];
    // Each node's members in team-rank order, nodes by their first member.
    std::vector<uint32_t> nodes;
    std::vector<std::vector<int>> groups;
    for (int i = 0; i < n; ++i) {
        const uint32_t node = node_of[static_cast<size_t>(t.view.job_rank(i))];
        size_t k = 0;
        while (k < nodes.size() && nodes[k] != node) ++k;
        if (k == nodes.size()) {
            nodes.push_back(node);
            groups.emplace_back();
        }
        groups[k].push_back(i);
    }
    if (nodes.size() == 1) {
        std::shared_ptr<node_area> area;
        const ccs_status_t st = make_area(t, t.next_seq + 2, area);
        t.view.area = std::move(area);
        return st;
    }
    auto levels = std::make_shared<two_levels>();
    size_t mine = 0;
    while (nodes[mine] != here) ++mine;
    levels->group = groups[mine];
    levels->node_leader.resize(static_cast<size_t>(n));
    for (size_t k = 0; k < groups.size(); ++k) {
        if (groups[k][0] == t.view.rank) levels->leader_index = static_cast<int>(k);
        levels->leaders.push_back(groups[k][0]);
        for (int member : groups[k]) levels->node_leader[static_cast<size_t>(member)] = static_cast<int>(k);
        if (k == mine)
            for (size_t j = 0; j < groups[k].size(); ++j)
                if (groups[k][j] == t.view.rank) levels->index = static_cast<int>(j);
    }
    // This node's members make their memory among themselves (their own
    // wire id), then the whole team agrees that every node's worked.
    uint64_t ok = 1;
    if (levels->group.size() > 1) {
        team node;
        node.view.wire_id = t.view.wire_id | (static_cast<uint64_t>(mine + 1) << 48);
        std::vector<int> members;
        for (int member : levels->group) members.push_back(t.view.job_rank(member));
        node.view.members = std::make_shared<const std::vector<int>>(std::move(members));
        node.view.rank = levels->index;
        const ccs_status_t st = make_area(node, t.next_seq + 1, levels->area);
        if (st != CCS_OK) return st;
        ok = levels->area != nullptr;
    }
    uint64_t all_ok = 0;
    const reduction min = make_reduction(CCS_ACC_MIN, CCS_ACC_UINT64);
    const ccs_status_t st = run(t, build_allreduce(t.view, t.next_seq, reinterpret_cast<const uint8_t *>(&ok),
                                                   reinterpret_cast<uint8_t *>(&all_ok), 1, min));
    if (st == CCS_OK && all_ok) t.view.levels = std::move(levels);
    return st;
}

ccs_status_t team_table::make_area(team &t, uint64_t first_seq, std::shared_ptr<node_area> &out) {
    const int n = t.view.size(), me = t.view.rank;
    memory_registry &memory = node_memory_.memory;
    rma_engine &rma = node_memory_.rma;
    // 1: this member's block and key.
    record mine;
    void *block = nullptr;
    ccs_mem_t mem{0};
    if (memory.allocate(node_area::block_bytes, block, mem) == CCS_OK) {
        size_t length = record::key_room;
        if (memory.pack_key(mem, mine.key, &length) == CCS_OK) {
            mine.ok = 1;
            mine.base = reinterpret_cast<uintptr_t>(block);
            mine.key_length = length;
            mine.pid = ::getpid();
        }
    }
    std::vector<record> all(static_cast<size_t>(n));
    const blocks uniform = blocks::uniform(n, record::bytes);
    auto free_block = [&] {
        if (mem.id) memory.free_allocation(mem);
    };
    ccs_status_t st = run(t, build_allgather(t.view, t.next_seq, reinterpret_cast<const uint8_t *>(&mine), record::bytes,
                                             reinterpret_cast<uint8_t *>(all.data()), uniform));
    if (st != CCS_OK) {
        free_block();
        return st;
    }
    // 2: the others' blocks mapped here.
    std::vector<uint8_t *> blocks(static_cast<size_t>(n), nullptr);
    std::vector<ccs_rkey_t> keys;
    uint64_t ok = mine.ok;
    for (int i = 0; i < n && ok; ++i) {
        if (i == me) {
            blocks[static_cast<size_t>(i)] = static_cast<uint8_t *>(block);
            continue;
        }
        const record &r = all[static_cast<size_t>(i)];
        ccs_rkey_t key{0};
        void *mapped = nullptr;
        ok = r.ok && r.key_length <= record::key_room &&
             rma.unpack_key(t.view.job_rank(i), r.key, r.key_length, key) == CCS_OK;
        if (key.id) keys.push_back(key);
        ok = ok && rma.mapped_address("", key, r.base, node_area::block_bytes, mapped) == CCS_OK && mapped;
        blocks[static_cast<size_t>(i)] = static_cast<uint8_t *>(mapped);
    }
    // Whether this member reaches every other's memory by cross-memory
    // attach (a kernel may refuse it: ptrace rules, seccomp). Automatic
    // only while the members fit the node's CPUs: each such collective
    // needs every member running at once, where oversubscribed members do
    // better passing chunks through node memory to whichever runs.
    std::vector<pid_t> pids(static_cast<size_t>(n));
    const cross_memory_use use = node_memory_.cross_memory;
    bool cross = ok && (use == cross_memory_use::always ||
                        (use == cross_memory_use::automatic && n <= ::sysconf(_SC_NPROCESSORS_ONLN)));
    for (int i = 0; i < n && cross; ++i) {
        const record &r = all[static_cast<size_t>(i)];
        pids[static_cast<size_t>(i)] = static_cast<pid_t>(r.pid);
        uint64_t word = 0;
        cross = i == me || cross_memory_move(false, pids[static_cast<size_t>(i)], &word,
                                             reinterpret_cast<const void *>(r.base), sizeof word) == 0;
    }
    if (ok && cross) ok = 2;
    // 3: kept only where it worked for every member; cross-memory attach
    // used only where every member can (ok 2 everywhere).
    uint64_t all_ok = 0;
    const reduction min = make_reduction(CCS_ACC_MIN, CCS_ACC_UINT64);
    st = run(t, build_allreduce(t.view, t.next_seq, reinterpret_cast<const uint8_t *>(&ok),
                                reinterpret_cast<uint8_t *>(&all_ok), 1, min));
    auto release = [&rma, &memory, keys, mem] {
        for (ccs_rkey_t k : keys) rma.release_key(k);
        if (mem.id) memory.free_allocation(mem);
    };
    if (st != CCS_OK || !all_ok) {
        release();
        return st;
    }
    if (all_ok < 2) pids.clear();
    out = std::make_shared<node_area>(std::move(blocks), me, first_seq, release, std::move(pids));
    return CCS_OK;
}

}  // namespace ccs::coll
