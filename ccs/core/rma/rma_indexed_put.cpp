// The indexed put (a remote queue append): the target's pointer word is
// advanced by the data's length with a compare-and-swap, and the data goes
// where it pointed. Here where the region is mapped, else by the target in
// its progress, from one message carrying the data. The pointer is changed
// by the CPU's atomic instructions on every path, as CCS atomics on
// memory of that mechanism are, so appenders from anywhere (and
// ccs_atomic on the same word) never lose or overlap an element; a word
// registered for network atomics is refused. An append that does not fit (past the queue's
// limit or the key's region) changes nothing.
//
//   indexed request  rma_wire.hpp
//   indexed reply    args {token, status}   payload: the address the data went to (8 bytes), or the refusal's reason
#include "core/rma/rma_engine.hpp"
#include "core/rma/rma_wire.hpp"

#include "util/error.hpp"

#include <cstring>

namespace ccs {
namespace {

// Moves the pointer at `word` from `old` to old + length when `fits(old)`;
// false (nothing changed, `old` what it held) when it does not.
template <typename Fits>
bool claim(uint64_t *word, uint64_t length, uint64_t &old, Fits fits) {
    old = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    while (fits(old))
        if (__atomic_compare_exchange_n(word, &old, old + length, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return true;
    return false;
}

bool within_limit(uint64_t old, uint64_t length, uint64_t limit) { return old <= limit && length <= limit - old; }

[[gnu::cold]] ccs_status_t queue_full(uint64_t pointer, uint64_t old, uint64_t length, uint64_t limit) {
    return fail(CCS_ERR_OUT_OF_RANGE, "the queue is full: its pointer at " + std::to_string(pointer) + " holds " +
                                          std::to_string(old) + ", and " + std::to_string(length) +
                                          " more bytes pass its limit " + std::to_string(limit) +
                                          " or the registered region");
}

}  // namespace

bool rma_engine::try_mapped_indexed(const rma_request &q, ccs_status_t &status) {
    const remote_key *k = mapped_key(q, 8);
    if (!k) return false;
    if (k->network_atomics) {
        status = indexed_on_network_atomics();
        return true;
    }
    const uint64_t length = q.local.length;
    auto *word = reinterpret_cast<uint64_t *>(k->mapped + (q.remote.address - k->base));
    uint64_t old = 0;
    if (!claim(word, length, old, [&](uint64_t at) {
            return within_limit(at, length, q.indexed.limit) && range_holds(k->base, k->length, at, length);
        })) {
        status = queue_full(q.remote.address, old, length, q.indexed.limit);
        return true;
    }
    if (length > 0)  // an empty append may come with no source at all
        std::memcpy(k->mapped + (old - k->base),
                    reinterpret_cast<const void *>(static_cast<uintptr_t>(q.local.address)), length);
    release_fence();  // visible before the completion is
    if (q.indexed.placed) *q.indexed.placed = old;
    ++stats_.indexed_puts;
    stats_.bytes += length;
    complete_now(q.completion);
    status = CCS_OK;
    return true;
}

ccs_status_t rma_engine::append_here(uint64_t handle, uint64_t pointer, const void *data, uint64_t length,
                                     uint64_t limit, uint64_t &old) {
    // With a key, its registration; this process's own implicit key: any
    // registration (or anything, when exposed).
    const auto reachable = [&](uint64_t addr, uint64_t len) {
        if (handle != 0) return memory_.check_access(handle, addr, len) == CCS_OK;
        return memory_.expose_all || memory_.covering(addr, len) != 0;
    };
    if (pointer % 8 != 0 || !reachable(pointer, 8))
        return handle != 0 ? memory_.check_access(handle, pointer, 8)
                           : fail(CCS_ERR_NOT_REGISTERED, "the pointer at " + std::to_string(pointer) +
                                                              " is not in registered memory");
    if (memory_.network_atomics(handle != 0 ? handle : memory_.covering(pointer, 8)))
        return indexed_on_network_atomics();
    auto *word = reinterpret_cast<uint64_t *>(static_cast<uintptr_t>(pointer));
    if (!claim(word, length, old,
               [&](uint64_t at) { return within_limit(at, length, limit) && reachable(at, length); }))
        return queue_full(pointer, old, length, limit);
    if (length > 0) std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(old)), data, length);
    return CCS_OK;
}

void rma_engine::issue_indexed(request &r) {
    const auto *src = reinterpret_cast<const void *>(static_cast<uintptr_t>(r.op.local.data()[0].address));
    const uint64_t length = r.op.local.bytes(), pointer = r.op.remote.data()[0].address;
    if (r.op.target == rank_) {
        uint64_t old = 0;
        const ccs_status_t st = append_here(key_handle(r), pointer, src, length, r.op.indexed.limit, old);
        if (st == CCS_OK && r.op.indexed.placed) *r.op.indexed.placed = old;
        return finish(r, st, st == CCS_OK ? std::string() : last_error());
    }
    r.at = stage::in_flight;
    const uint64_t args[4] = {r.token, key_handle(r), pointer, r.op.indexed.limit};
    context &internal = *contexts_.by_id(context_table::internal_id);
    // Without a completion the AM engine copies what must wait.
    const ccs_status_t st = am_.send(internal, r.op.target, static_cast<uint16_t>(first_handler_ + indexed_request),
                                     args, 4, src, length, nullptr);
    if (st != CCS_OK) finish(r, st, last_error());
}

void rma_engine::on_indexed_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    uint64_t old = 0;
    indexed_message q;
    const ccs_status_t st = read_indexed_message(m->args, m->nargs, q)
                                ? self->append_here(q.handle, q.pointer, m->payload, m->payload_size, q.limit, old)
                                : fail(CCS_ERR_INTERNAL, "a malformed indexed put request");
    self->reply(m->source, indexed_reply, m->args[0], st, &old, 8);
}

void rma_engine::on_indexed_reply(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 2) return;
    auto it = self->requests_.find(m->args[0]);
    if (it == self->requests_.end() || it->second.op.kind != rma_kind::indexed_put) return;
    request &r = it->second;
    auto st = static_cast<ccs_status_t>(m->args[1]);
    std::string why;
    if (st != CCS_OK) {
        why = refused(r, m);
    } else if (m->payload_size != 8) {
        st = CCS_ERR_INTERNAL;
        why = "the reply holds " + std::to_string(m->payload_size) + " bytes";
    } else if (r.op.indexed.placed) {
        std::memcpy(r.op.indexed.placed, m->payload, 8);
    }
    self->finish(r, st, why);
    self->requests_.erase(it);
}

}  // namespace ccs
