// Remote atomics. A registration's atomics take one mechanism, chosen
// when it is made and carried in its keys:
//  - the CPU's (the default): the atomic instructions change the word here
//    where it is mapped (a node peer's ccs_mem_alloc block), else the
//    target does in its progress, from an active message;
//  - the network adapter's (ccs_mem_register_atomics): the atomics
//    transport's atomic entry point, from every process, its owner too.
// Either way every CCS atomic on a word is atomic with respect to the
// others. A CPU atomic that reaches memory of the other mechanism (a
// stale or forged key) is refused by the target.
//
//   atomic request  rma_wire.hpp
//   reply           args {token, status}   payload: the old value (width bytes)
#include "core/rma/rma_engine.hpp"
#include "core/rma/rma_wire.hpp"

#include "util/completion.hpp"
#include "util/error.hpp"

namespace ccs {

// The op goes to a plugin's atomic entry point as it is.
namespace {
constexpr bool same_op(ccs_plugin_atomic_op_t plugin, ccs_atomic_op_t core) {
    return static_cast<int>(plugin) == static_cast<int>(core);
}
}  // namespace
static_assert(same_op(CCS_PLUGIN_ATOMIC_ADD, CCS_ATOMIC_ADD) && same_op(CCS_PLUGIN_ATOMIC_AND, CCS_ATOMIC_AND) &&
              same_op(CCS_PLUGIN_ATOMIC_OR, CCS_ATOMIC_OR) && same_op(CCS_PLUGIN_ATOMIC_XOR, CCS_ATOMIC_XOR) &&
              same_op(CCS_PLUGIN_ATOMIC_SWAP, CCS_ATOMIC_SWAP) && same_op(CCS_PLUGIN_ATOMIC_CSWAP, CCS_ATOMIC_CSWAP) &&
              same_op(CCS_PLUGIN_ATOMIC_FETCH, CCS_ATOMIC_FETCH) && same_op(CCS_PLUGIN_ATOMIC_SET, CCS_ATOMIC_SET));

// Both inline paths: the word's atomic where an explicit key maps it
// here, applied, fetched and counted; false (nothing done) elsewhere.
bool rma_engine::apply_mapped_atomic(int target, const rma_atomic &a, uint64_t remote, ccs_rkey_t key, void *fetched,
                                     fast_path::thread_counts *beside) noexcept {
    const remote_key *k = mapped_key(target, key, remote, a.width);
    if (!k || k->network_atomics) return false;
    store_fetched(a, fetched, apply_atomic(a, k->mapped + (remote - k->base)));
    if (beside) {
        fast_path::bump(beside->atomics);
        fast_path::bump(beside->bytes, a.width);
    } else {
        ++stats_.atomics;
        stats_.bytes += a.width;
    }
    return true;
}

bool rma_engine::try_mapped_atomic(const rma_request &q) {
    if (!apply_mapped_atomic(q.target, q.atomic, q.remote.address, q.key,
                             reinterpret_cast<void *>(static_cast<uintptr_t>(q.local.address))))
        return false;
    complete_now(q.completion);
    return true;
}

bool rma_engine::try_mapped_atomic(int target, const rma_atomic &a, uint64_t remote, ccs_rkey_t key, void *fetched,
                                   const ccs_completion_t *completion, fast_path::thread_counts *beside) noexcept {
    // A callback waits for progress with its context, which only a request knows.
    if (completion && completion->callback) return false;
    if (!apply_mapped_atomic(target, a, remote, key, fetched, beside)) return false;
    if (completion && completion->counter) counter_add(*completion->counter);
    return true;
}

void rma_engine::issue_atomic(request &r) {
    ++stats_.atomics_at_target;
    r.at = stage::in_flight;
    const rma_atomic &a = r.op.atomic;
    const uint64_t args[6] = {r.token,      key_handle(r), r.op.remote.data()[0].address,
                              a.op | static_cast<uint64_t>(a.width) << 8, a.operand, a.compare};
    context &internal = *contexts_.by_id(context_table::internal_id);
    const ccs_status_t st =
        am_.send(internal, r.op.target, static_cast<uint16_t>(first_handler_ + atomic_request), args, 6, nullptr, 0, nullptr);
    if (st != CCS_OK) finish(r, st, last_error());
}

void rma_engine::issue_network_atomic(request &r, const remote_key &k) {
    const int target = r.op.target;
    if (!k.atomic_t || !k.atomic_key)
        return finish(r, CCS_ERR_UNSUPPORTED,
                      "rank " + std::to_string(target) + " registered the word for network atomics, and " +
                          (k.atomic_t ? "its key has no part for plugin '" + k.atomic_t->name() + "'"
                                      : std::string("no transport of this process carries atomics out itself")));
    const rma_atomic &a = r.op.atomic;
    void *fetched = r.op.local.size() > 0 ? reinterpret_cast<void *>(static_cast<uintptr_t>(r.op.local.data()[0].address))
                                          : nullptr;
    transport &t = *k.atomic_t;
    const ccs_plugin_status_t st =
        t.atomic(target, a.op, a.width, r.op.remote.data()[0].address, a.operand, a.compare, fetched, k.atomic_key, r.token);
    switch (st) {
    case CCS_PLUGIN_OK:
        ++stats_.atomics_by_network;
        return finish(r, CCS_OK);
    case CCS_PLUGIN_IN_PROGRESS:
        ++stats_.atomics_by_network;
        r.at = stage::in_flight;
        return;
    case CCS_PLUGIN_AGAIN:
        r.at = stage::ready;
        retry_.push_back(r.token);
        return;
    case CCS_PLUGIN_ERR_UNSUPPORTED:
        return finish(r, CCS_ERR_UNSUPPORTED,
                      "the word is registered for network atomics, and plugin '" + t.name() +
                          "' cannot carry out atomics to rank " + std::to_string(target) +
                          " itself (its lanes there would emulate them)");
    default:
        return finish(r, status_from_plugin(st), "plugin '" + t.name() + "' refused it: " + plugin_status_name(st));
    }
}

bool rma_engine::issued_network_atomic_here(request &r) {
    if (r.key_id != 0) {  // an explicit key of this process's own
        const remote_key *k = keys_.find(r.key_id);
        if (!k || !k->network_atomics) return false;
        issue_network_atomic(r, *k);
        return true;
    }
    const uint64_t address = r.op.remote.data()[0].address, width = r.op.atomic.width;
    const uint64_t handle = memory_.covering(address, width);
    if (handle == 0 || !memory_.network_atomics(handle)) return false;
    // The transport reaches this process's own memory through a key, as
    // any other's: one of its own, kept as an implicit key.
    uint64_t id = keys_.find_implicit(rank_, address, width);
    if (id == 0) {
        std::vector<uint8_t> key;
        ccs_status_t st = memory_.key_for_range(rank_, address, width, false, key);
        if (st == CCS_OK) st = keys_.adopt_implicit(rank_, key.data(), key.size(), address, address + width, id);
        if (st != CCS_OK) {
            finish(r, st, last_error());
            return true;
        }
    }
    issue_network_atomic(r, *keys_.find(id));
    return true;
}

ccs_status_t rma_engine::indexed_on_network_atomics() {
    return fail(CCS_ERR_UNSUPPORTED, "the pointer word is in memory registered for network atomics, and the "
                                     "indexed put moves it with the CPU's atomics: one word must never be "
                                     "updated by both mechanisms");
}

void rma_engine::on_atomic_request(const ccs_am_message_t *m, void *arg) {
    auto *self = static_cast<rma_engine *>(arg);
    if (m->nargs < 1) return;
    atomic_message q;
    ccs_status_t st = read_atomic_message(m->args, m->nargs, q)
                                ? self->memory_.check_access(q.handle, q.address, q.atomic.width)
                                : fail(CCS_ERR_INTERNAL, "a malformed atomic request");
    if (st == CCS_OK && self->memory_.network_atomics(q.handle))
        st = fail(CCS_ERR_UNSUPPORTED, "the word is in memory registered for network atomics: the CPU's atomics "
                                       "must not update it (the key that named it is not that registration's)");
    alignas(8) uint8_t old[8] = {};
    if (st == CCS_OK)
        store_fetched(q.atomic, old, apply_atomic(q.atomic, reinterpret_cast<void *>(static_cast<uintptr_t>(q.address))));
    self->reply(m->source, reply_to, m->args[0], st, old, st == CCS_OK ? q.atomic.width : 0);
}

}  // namespace ccs
