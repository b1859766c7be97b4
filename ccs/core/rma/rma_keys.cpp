#include "core/rma/rma_keys.hpp"

#include "util/fast_path.hpp"

#include "util/error.hpp"
#include "util/log.hpp"
#include "util/range.hpp"

namespace ccs {
namespace {

void release_part(remote_key &k) {
    if (k.t && k.plugin_key) k.t->rkey_release(k.plugin_key);
    if (k.atomic_t && k.atomic_key) k.atomic_t->rkey_release(k.atomic_key);
}

// The part of transport `t` in key `c`, unpacked for `owner` into `out`
// (left null where the key has none).
ccs_status_t unpack_part(const char *call, transport &t, int owner, const key_contents &c, void *&out) {
    for (const auto &[name, part] : c.transports) {
        if (name != t.name()) continue;
        const ccs_plugin_status_t st = t.rkey_unpack(owner, part.data(), part.size(), &out);
        if (st != CCS_PLUGIN_OK)
            return fail(CCS_ERR_INVALID_KEY, call + ("plugin '" + name + "' refused the key: " + plugin_status_name(st)));
    }
    return CCS_OK;
}

}  // namespace

ccs_status_t unknown_key(const char *call, uint64_t id) {
    return fail(CCS_ERR_INVALID_KEY,
                call + ("key " + std::to_string(id) + " was never unpacked or is already released"));
}

ccs_status_t outside_key(const char *call, uint64_t address, uint64_t length, uint64_t base, uint64_t key_length) {
    return fail(CCS_ERR_OUT_OF_RANGE, call + describe_range(address, length) + " is outside the key's region " +
                                          describe_range(base, key_length));
}

std::string ended_message(const remote_key &k) {
    return "rank " + std::to_string(k.owner) + " has deregistered or freed " + describe_range(k.base, k.length) +
           ": the key is stale";
}

ccs_status_t ended_key(const char *call, const remote_key &k) {
    return fail(CCS_ERR_INVALID_KEY, call + ended_message(k));
}

ccs_status_t rma_keys::read(const char *call, int owner, const void *buffer, size_t length, bool owner_failed,
                            remote_key &k) {
    key_contents c;
    std::string why;
    if (!key_read(buffer, length, secret_, c, why))
        return fail(CCS_ERR_INVALID_KEY, call + ("the " + std::to_string(length) + " bytes are not a key: " + why));
    if (c.owner != owner)
        return fail(CCS_ERR_INVALID_KEY, call + ("key was packed by rank " + std::to_string(c.owner) +
                                                 ", not by rank " + std::to_string(owner)));
    k.owner = owner;
    k.base = c.base;
    k.length = c.length;
    k.handle = c.handle;
    const bool self = owner == rank_;
    const bool near = !self && same_node_[static_cast<size_t>(owner)];
    if (self) {
        k.live = memory_.own_word(c.liveness.slot);
        k.lock = memory_.own_lock(c.liveness.lock_slot);
    } else if (near) {
        k.live = views_.word(owner, c.liveness);
        k.lock = views_.lock(owner, c.liveness);
    }
    if ((self || near) && !k.live)
        log_message(log_level::info, "the liveness of rank " + std::to_string(owner) +
                                         "'s registrations cannot be read here: active messages carry RMA "
                                         "through its keys, and it checks them");
    if (k.ended()) return ended_key(call, k);
    k.network_atomics = c.network_atomics;
    if (k.network_atomics && atomics_ && c.length > 0) {
        k.atomic_t = atomics_;
        if (const ccs_status_t st = unpack_part(call, *atomics_, owner, c, k.atomic_key); st != CCS_OK) return st;
    }
    k.t = self ? nullptr : route_[static_cast<size_t>(owner)];
    // On this node, a plugin's own access is checked here first: without
    // the word, the plugin's part is left unused.
    if (!k.t || c.length == 0 || (near && !k.live)) return CCS_OK;
    if (const ccs_status_t st = unpack_part(call, *k.t, owner, c, k.plugin_key); st != CCS_OK) return st;
    // No part for this transport: active messages will carry the accesses.
    // Mapped only where the liveness word is read too: the inline path
    // checks it before every copy.
    if (k.plugin_key && !owner_failed && k.live)
        k.mapped = static_cast<uint8_t *>(k.t->rkey_ptr(k.plugin_key, k.base, static_cast<size_t>(k.length)));
    return CCS_OK;
}

rma_keys::~rma_keys() {
    keys_.for_each([](uint64_t, remote_key &k) { release_part(k); });
}

ccs_status_t rma_keys::unpack(int owner, const void *buffer, size_t length, bool owner_failed, ccs_rkey_t &out) {
    remote_key k;
    const ccs_status_t st = read("ccs_rkey_unpack: ", owner, buffer, length, owner_failed, k);
    if (st != CCS_OK) {
        release_part(k);
        return st;
    }
    const fast_path::exclusive alone;  // the inline paths find keys
    out = ccs_rkey_t{keys_.insert(k)};
    return CCS_OK;
}

ccs_status_t rma_keys::release(ccs_rkey_t handle) {
    const fast_path::exclusive alone;  // a fast call may copy through its mapping
    remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key("ccs_rkey_release: ", handle.id);
    release_part(*k);
    keys_.erase(handle.id);
    return CCS_OK;
}

ccs_status_t rma_keys::mapped_address(const char *call, ccs_rkey_t handle, uint64_t remote, size_t length,
                                      void *&out) const {
    out = nullptr;
    const remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key(call, handle.id);
    if (!range_holds(k->base, k->length, remote, length))
        return outside_key(call, remote, length, k->base, k->length);
    if (k->ended()) return ended_key(call, *k);
    // The caller's own memory is where it is; a peer's `mapped` is cleared
    // when the peer fails, so a dead peer's memory is not offered.
    if (k->owner == rank_) out = reinterpret_cast<void *>(static_cast<uintptr_t>(remote));
    else if (k->mapped) out = k->mapped + (remote - k->base);
    if (out) return CCS_OK;
    const size_t owner = static_cast<size_t>(k->owner);
    std::string why;
    if (failed_.count(k->owner)) why = "the owner has failed";
    else if (!same_node_[owner]) why = "the owner runs on another node";
    else if (!k->plugin_key) why = "the owner's memory is reached by active messages only";
    else
        why = "plugin '" + k->t->name() + "' does not map it (only memory from ccs_mem_alloc is mapped, by plugins "
              "that can: CCS_PEER_MAPS_MEMORY)";
    return fail(CCS_ERR_UNSUPPORTED, call + describe_range(remote, length) + " of rank " +
                                         std::to_string(k->owner) + " is not mapped in this process: " + why);
}

uint64_t rma_keys::find_implicit(int owner, uint64_t addr, size_t length) const {
    const auto it = implicit_.find(owner);
    if (it == implicit_.end()) return 0;
    for (uint64_t id : it->second) {
        const remote_key &k = *keys_.find(id);
        // An ended one is as good as revoked: the owner is asked again.
        if (!k.ended() && range_holds(k.base, k.length, addr, length)) return id;
    }
    return 0;
}

ccs_status_t rma_keys::adopt_implicit(int owner, const void *packed, size_t length, uint64_t lo, uint64_t hi,
                                      uint64_t &id) {
    // Those that ended are asked again, never used: none piles up (the
    // owner tells no process, itself included, of its own keys' ends).
    drop_implicit(owner, [](const remote_key &old) { return old.ended(); });
    remote_key k;
    k.implicit = true;
    ccs_status_t st = read("implicit key: ", owner, packed, length, false, k);
    if (st == CCS_OK && !range_holds(k.base, k.length, lo, hi - lo))
        st = outside_key("the implicit key's region does not hold ", lo, hi - lo, k.base, k.length);
    if (st != CCS_OK) {
        release_part(k);
        return st;
    }
    k.mapped = nullptr;  // implicit keys take the general path
    const fast_path::exclusive alone;
    id = keys_.insert(k);
    implicit_[owner].push_back(id);
    return CCS_OK;
}

uint64_t rma_keys::revoke(int owner, uint64_t handle) {
    return drop_implicit(owner, [handle](const remote_key &k) { return k.handle == handle; });
}

template <typename Doomed>
uint64_t rma_keys::drop_implicit(int owner, Doomed doomed) {
    const fast_path::exclusive alone;
    auto &ids = implicit_[owner];
    uint64_t dropped = 0;
    for (auto it = ids.begin(); it != ids.end();) {
        remote_key *k = keys_.find(*it);
        if (!k || !doomed(*k)) {
            ++it;
            continue;
        }
        release_part(*k);
        keys_.erase(*it);
        it = ids.erase(it);
        ++dropped;
    }
    return dropped;
}

void rma_keys::peer_failed(int peer) {
    const fast_path::exclusive alone;
    failed_.insert(peer);
    keys_.for_each([&](uint64_t, remote_key &k) {
        if (k.owner == peer) k.mapped = nullptr;
    });
}

}  // namespace ccs
