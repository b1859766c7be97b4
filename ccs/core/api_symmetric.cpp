// C entry points of symmetric allocation (ccs/rma.h): the collective steps
// that place every process's part and hand every key out once, and the
// translations of an address here into another process's part.
#include "api_guard.hpp"
#include "util/range.hpp"

#include <ccs/rma.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace ccs;

namespace {

void put_word(blob &b, uint64_t v) {
    const size_t at = b.size();
    b.resize(at + 8);
    std::memcpy(b.data() + at, &v, 8);
}
// The word at `at` of a blob that holds it (checked by the step's reader).
uint64_t word_at(const blob &b, size_t at) {
    uint64_t v = 0;
    std::memcpy(&v, b.data() + at, 8);
    return v;
}

// One step of a collective call: every process sends its verdict (`mine`,
// and `why` when it is not CCS_OK) with `payload`, and receives the
// others'. Every process returns the same status: the lowest failing
// rank's, with its reason; on CCS_OK `all[r]` is rank r's payload, at least
// `payload_words` words long.
ccs_status_t step(runtime &rt, const char *call, ccs_status_t mine, const std::string &why, const blob &payload,
                  size_t payload_words, std::vector<blob> &all) {
    blob b(16 + why.size() + payload.size());
    const uint64_t head[2] = {static_cast<uint64_t>(mine), why.size()};
    std::memcpy(b.data(), head, 16);
    if (!why.empty()) std::memcpy(b.data() + 16, why.data(), why.size());
    if (!payload.empty()) std::memcpy(b.data() + 16 + why.size(), payload.data(), payload.size());
    const ccs_status_t st = rt.allgather(b, all);
    if (st != CCS_OK) return fail(st, std::string(call) + ": " + last_error());
    for (size_t r = 0; r < all.size(); ++r) {
        const blob &got = all[r];
        const uint64_t status = got.size() >= 16 ? word_at(got, 0) : uint64_t{CCS_ERR_INTERNAL};
        const uint64_t text = got.size() >= 16 ? word_at(got, 8) : 0;
        if (got.size() < 16 || text > got.size() - 16 || got.size() - 16 - text < payload_words * 8)
            return fail(CCS_ERR_INTERNAL, std::string(call) + ": rank " + std::to_string(r) + " sent a malformed step");
        if (status != CCS_OK)
            return fail(static_cast<ccs_status_t>(status),
                        std::string(call) + ": rank " + std::to_string(r) + ": " +
                            std::string(reinterpret_cast<const char *>(got.data() + 16), text));
    }
    for (blob &got : all) got.erase(got.begin(), got.begin() + 16 + static_cast<std::ptrdiff_t>(word_at(got, 8)));
    return CCS_OK;
}

void release_keys(runtime &rt, const std::vector<ccs_rkey_t> &keys) {
    for (ccs_rkey_t k : keys)
        if (k.id != 0) rt.rma().release_key(k);
}

// Frees this process's part after a step failed everywhere.
ccs_status_t undo(runtime &rt, ccs_mem_t mem, ccs_status_t st) {
    const std::string why = last_error();
    if (mem.id != 0) rt.memory().free_allocation(mem, true);
    return fail(st, why);
}

uint64_t next_serial = 1;  // the same sequence in every process: allocations are collective
constexpr int placement_rounds = 4;  // addresses tried for one address everywhere

ccs_status_t alloc_symmetric(runtime &rt, size_t length, void **addr, ccs_mem_t *mem) {
    const char *call = "ccs_mem_alloc_symmetric";
    const bool same = rt.symmetric_same_address();
    std::vector<blob> all;
    // 1: the lengths, so every part reserves the longest one's span.
    blob mine;
    put_word(mine, length);
    ccs_status_t st = step(rt, call, addr && mem ? CCS_OK : CCS_ERR_INVALID_ARG, "addr or mem is NULL", mine, 1, all);
    if (st != CCS_OK) return st;
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    uint64_t longest = 0;
    for (const blob &b : all) longest = std::max(longest, word_at(b, 0));
    if (longest > SIZE_MAX - page)
        return fail(CCS_ERR_NO_MEMORY, std::string(call) + ": a part of " + std::to_string(longest) + " bytes is too large");
    placement where{0, std::max<size_t>(page, (longest + page - 1) / page * page)};
    // 2: rank 0 places its part where the kernel finds room, and tells.
    void *part = nullptr;
    ccs_mem_t m{0};
    bool placed = true;
    st = rt.rank() == 0 ? rt.memory().allocate_symmetric(length, where, part, m, placed) : CCS_OK;
    mine.clear();
    put_word(mine, reinterpret_cast<uintptr_t>(part));
    if ((st = step(rt, call, st, st == CCS_OK ? "" : last_error(), mine, 1, all)) != CCS_OK) return undo(rt, m, st);
    // 3: the others place theirs at the same address if it is free there;
    // every part's place and key go to all. Where it is taken (another
    // process's libraries or mappings may lie there), the first such
    // process's part, placed where its own kernel found room, is the next
    // address to try, a few times before the parts keep their own places.
    if (same) where.at = word_at(all[0], 0);
    bool unplaced = rt.rank() != 0;
    for (int round = 0;; ++round) {
        if (unplaced) st = rt.memory().allocate_symmetric(length, where, part, m, placed);
        blob key;
        if (st == CCS_OK) {
            size_t key_length = 0;
            st = rt.memory().pack_key(m, nullptr, &key_length);
            key.resize(key_length);
            if (st == CCS_OK) st = rt.memory().pack_key(m, key.data(), &key_length);
        }
        mine.clear();
        put_word(mine, placed ? 1 : 0);
        put_word(mine, reinterpret_cast<uintptr_t>(part));
        mine.insert(mine.end(), key.begin(), key.end());
        if ((st = step(rt, call, st, st == CCS_OK ? "" : last_error(), mine, 2, all)) != CCS_OK)
            return undo(rt, m, st);
        const auto taken = std::find_if(all.begin(), all.end(), [](const blob &b) { return word_at(b, 0) == 0; });
        if (!same || taken == all.end() || round + 1 == placement_rounds) break;
        where.at = word_at(*taken, 8);
        unplaced = taken - all.begin() != rt.rank();
        if (unplaced) {
            rt.memory().free_allocation(m, true);
            m = ccs_mem_t{0};
            part = nullptr;
        }
        placed = true;
    }
    // 4: every key unpacked everywhere, or none kept.
    symmetric_block b;
    b.mem = m.id;
    b.serial = next_serial++;
    b.base = reinterpret_cast<uintptr_t>(part);
    b.span = where.reserve;
    b.same_address = true;
    std::string why;
    for (int r = 0; r < rt.size() && st == CCS_OK; ++r) {
        const blob &got = all[static_cast<size_t>(r)];
        b.same_address = b.same_address && word_at(got, 0) == 1 && word_at(got, 8) == b.base;
        b.bases.push_back(word_at(got, 8));
        b.keys.push_back({0});
        st = rt.rma().unpack_key(r, got.data() + 16, got.size() - 16, b.keys.back());
        if (st != CCS_OK) why = "the key of rank " + std::to_string(r) + ": " + last_error();
    }
    if ((st = step(rt, call, st, why, {}, 0, all)) != CCS_OK) {
        release_keys(rt, b.keys);
        return undo(rt, m, st);
    }
    *addr = part;
    *mem = m;
    rt.symmetric().add(std::move(b));
    return CCS_OK;
}

ccs_status_t free_symmetric(runtime &rt, ccs_mem_t mem) {
    const char *call = "ccs_mem_free_symmetric";
    const symmetric_block *b = rt.symmetric().by_mem(mem.id);
    ccs_status_t st = rt.memory().check_free(mem, true);
    std::string why = st == CCS_OK ? "" : last_error();
    if (st == CCS_OK && !b) {
        st = CCS_ERR_INVALID_MEMORY;
        why = "handle " + std::to_string(mem.id) + " is no symmetric allocation's";
    }
    blob mine;
    put_word(mine, b ? b->serial : 0);
    std::vector<blob> all;
    if ((st = step(rt, call, st, why, mine, 1, all)) != CCS_OK) return st;
    for (size_t r = 0; r < all.size(); ++r)
        if (word_at(all[r], 0) != b->serial)
            return fail(CCS_ERR_INVALID_MEMORY, std::string(call) + ": rank " + std::to_string(r) +
                                                    " passed another symmetric allocation than rank 0");
    release_keys(rt, b->keys);
    rt.symmetric().remove(b->base);
    return rt.memory().free_allocation(mem, true);
}

// The running runtime, not inside a handler: the collective calls block.
runtime *collective_start(ccs_status_t &st, const char *call) {
    runtime *rt = running(st, call);
    if (rt && (st = check_not_in_callback(*rt, call)) != CCS_OK) return nullptr;
    return rt;
}

// Where `local` (an address in this process's part) lies in `rank`'s
// part, and that part's key: the translation both calls below make.
ccs_status_t translate(runtime &rt, const char *call, const void *local, int rank, uint64_t &remote,
                       ccs_rkey_t &key) {
    if (rank < 0 || rank >= rt.size())
        return fail(CCS_ERR_INVALID_RANK, std::string(call) + ": rank " + std::to_string(rank) + " is outside [0, " +
                                              std::to_string(rt.size()) + ")");
    remote = reinterpret_cast<uintptr_t>(local);
    return rt.symmetric().resolve(call, rank, remote, key);
}

}  // namespace

ccs_status_t symmetric_blocks::outside(const char *call, uint64_t remote) {
    return fail(CCS_ERR_NOT_REGISTERED, std::string(call) + ": address " + std::to_string(remote) +
                                            " lies in no symmetric allocation of this process (CCS_RKEY_SYMMETRIC)");
}

extern "C" {

ccs_status_t ccs_mem_alloc_symmetric(size_t length, void **addr, ccs_mem_t *mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = collective_start(st, "ccs_mem_alloc_symmetric");
        return rt ? alloc_symmetric(*rt, length, addr, mem) : st;
    });
}

ccs_status_t ccs_mem_free_symmetric(ccs_mem_t mem) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = collective_start(st, "ccs_mem_free_symmetric");
        return rt ? free_symmetric(*rt, mem) : st;
    });
}

ccs_status_t ccs_mem_symmetric_query(ccs_mem_t mem, int *same_address, size_t *span) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_symmetric_query");
        if (!rt) return st;
        const symmetric_block *b = rt->symmetric().by_mem(mem.id);
        if (!b)
            return fail(CCS_ERR_INVALID_MEMORY, "ccs_mem_symmetric_query: handle " + std::to_string(mem.id) +
                                                    " is no symmetric allocation's");
        if (same_address) *same_address = b->same_address ? 1 : 0;
        if (span) *span = b->span;
        return CCS_OK;
    });
}

ccs_status_t ccs_mem_symmetric_address(const void *local, int rank, uint64_t *remote) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_symmetric_address");
        if (!rt) return st;
        if (!remote) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_symmetric_address: remote is NULL");
        ccs_rkey_t key{0};
        return translate(*rt, "ccs_mem_symmetric_address", local, rank, *remote, key);
    });
}

ccs_status_t ccs_mem_symmetric_ptr(const void *local, int rank, size_t length, void **ptr) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_mem_symmetric_ptr");
        if (!rt) return st;
        if (!ptr) return fail(CCS_ERR_INVALID_ARG, "ccs_mem_symmetric_ptr: ptr is NULL");
        *ptr = nullptr;
        uint64_t remote = 0;
        ccs_rkey_t key{0};
        if ((st = translate(*rt, "ccs_mem_symmetric_ptr", local, rank, remote, key)) != CCS_OK) return st;
        return rt->rma().mapped_address("ccs_mem_symmetric_ptr: ", key, remote, length, *ptr);
    });
}

}  // extern "C"
