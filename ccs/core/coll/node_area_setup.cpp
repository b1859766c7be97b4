// Making a team's node memory (coll/node_area.hpp): each member allocates
// its block, the blocks' keys go round the team, each member maps the
// others' blocks through its transports, and the team agrees whether all
// of that worked everywhere; if not, nothing is kept and the team's
// collectives go by messages.
#include "core/coll/algorithms.hpp"
#include "core/coll/team_table.hpp"
#include "util/error.hpp"

#include <cstring>

namespace ccs::coll {

namespace {

// One member's part of the exchange: whether its block exists, where it
// lies in the member, and its key.
struct record {
    static constexpr size_t bytes = 1024;
    static constexpr size_t key_room = bytes - 24;
    uint64_t ok = 0, base = 0, key_length = 0;
    uint8_t key[key_room] = {};
};
static_assert(sizeof(record) == record::bytes);

}  // namespace

ccs_status_t team_table::set_up_area(team &t) {
    const int n = t.view.size(), me = t.view.rank;
    if (n < 2) return CCS_OK;
    for (int i = 0; i < n; ++i)
        if (!node_memory_.near[static_cast<size_t>(t.view.job_rank(i))]) return CCS_OK;
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
        }
    }
    std::vector<record> all(static_cast<size_t>(n));
    const blocks uniform = blocks::uniform(n, record::bytes);
    auto free_block = [&] {
        if (mem.id) memory.free_allocation(mem);
    };
    ccs_status_t st = run(t, build_allgather(t.view, reinterpret_cast<const uint8_t *>(&mine), record::bytes,
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
    // 3: kept only where it worked for every member.
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
    t.view.area = std::make_shared<node_area>(std::move(blocks), me, t.next_seq, release);
    return CCS_OK;
}

}  // namespace ccs::coll
