#include "core/rma/rma_keys.hpp"

#include "util/error.hpp"
#include "util/range.hpp"

namespace ccs {
namespace {

// "[address, +length)". Built by appending: GCC 12 at -O3 reports a false
// -Wrestrict overlap for "[" + std::string (its bug 105329).
std::string describe_range(uint64_t address, uint64_t length) {
    std::string out("[");
    out += std::to_string(address);
    out += ", +";
    out += std::to_string(length);
    out += ")";
    return out;
}

void release_part(remote_key &k) {
    if (k.t && k.plugin_key) k.t->rkey_release(k.plugin_key);
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

ccs_status_t key_from_contents(const key_contents &c, int owner, int rank, transport *route, void *&plugin_key) {
    plugin_key = nullptr;
    if (c.owner != owner)
        return fail(CCS_ERR_INVALID_KEY, "key was packed by rank " + std::to_string(c.owner) + ", not by rank " +
                                             std::to_string(owner));
    if (owner == rank || !route || c.length == 0) return CCS_OK;
    for (const auto &[name, part] : c.transports) {
        if (name != route->name()) continue;
        const ccs_plugin_status_t st = route->rkey_unpack(owner, part.data(), part.size(), &plugin_key);
        if (st != CCS_PLUGIN_OK)
            return fail(CCS_ERR_INVALID_KEY, "plugin '" + name + "' refused the key: " + plugin_status_name(st));
    }
    return CCS_OK;  // no part for this transport: active messages will carry it
}

rma_keys::~rma_keys() {
    keys_.for_each([](uint64_t, remote_key &k) { release_part(k); });
}

ccs_status_t rma_keys::unpack(int owner, const void *buffer, size_t length, bool owner_failed, ccs_rkey_t &out) {
    key_contents c;
    if (!unpack_key(buffer, length, c))
        return fail(CCS_ERR_INVALID_KEY, "ccs_rkey_unpack: the " + std::to_string(length) + " bytes are not a CCS key");
    remote_key k;
    k.owner = owner;
    k.base = c.base;
    k.length = c.length;
    k.t = owner == rank_ ? nullptr : route_[static_cast<size_t>(owner)];
    const ccs_status_t st = key_from_contents(c, owner, rank_, k.t, k.plugin_key);
    if (st != CCS_OK) return st;
    if (k.t && k.plugin_key && k.length > 0 && !owner_failed)
        k.mapped = static_cast<uint8_t *>(k.t->rkey_ptr(k.plugin_key, k.base, static_cast<size_t>(k.length)));
    out = ccs_rkey_t{keys_.insert(k)};
    return CCS_OK;
}

ccs_status_t rma_keys::release(ccs_rkey_t handle) {
    remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key("ccs_rkey_release: ", handle.id);
    release_part(*k);
    keys_.erase(handle.id);
    return CCS_OK;
}

ccs_status_t rma_keys::mapped_address(ccs_rkey_t handle, uint64_t remote, size_t length, void *&out) const {
    out = nullptr;
    const remote_key *k = keys_.find(handle.id);
    if (!k || k->implicit) return unknown_key("ccs_rkey_ptr: ", handle.id);
    if (!range_holds(k->base, k->length, remote, length))
        return outside_key("ccs_rkey_ptr: ", remote, length, k->base, k->length);
    // The caller's own memory is where it is; a peer's `mapped` is cleared
    // when the peer fails, so a dead peer's memory is not offered.
    if (k->owner == rank_) out = reinterpret_cast<void *>(static_cast<uintptr_t>(remote));
    else if (k->mapped) out = k->mapped + (remote - k->base);
    return CCS_OK;
}

uint64_t rma_keys::find_implicit(int owner, uint64_t addr, size_t length) const {
    const auto it = implicit_.find(owner);
    if (it == implicit_.end()) return 0;
    for (uint64_t id : it->second) {
        const remote_key &k = *keys_.find(id);
        if (range_holds(k.base, k.length, addr, length)) return id;
    }
    return 0;
}

ccs_status_t rma_keys::adopt_implicit(int owner, const void *packed, size_t length, uint64_t lo, uint64_t hi,
                                      uint64_t &id) {
    key_contents c;
    remote_key k;
    k.owner = owner;
    k.implicit = true;
    k.t = route_[static_cast<size_t>(owner)];
    if (!unpack_key(packed, length, c) || key_from_contents(c, owner, rank_, k.t, k.plugin_key) != CCS_OK)
        return CCS_ERR_INVALID_KEY;
    k.base = c.base;
    k.length = c.length;
    k.handle = c.handle;
    if (!range_holds(k.base, k.length, lo, hi - lo)) {
        release_part(k);
        return CCS_ERR_OUT_OF_RANGE;
    }
    id = keys_.insert(k);
    implicit_[owner].push_back(id);
    return CCS_OK;
}

uint64_t rma_keys::revoke(int owner, uint64_t handle) {
    auto &ids = implicit_[owner];
    uint64_t dropped = 0;
    for (auto it = ids.begin(); it != ids.end();) {
        remote_key *k = keys_.find(*it);
        if (!k || k->handle != handle) {
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
    keys_.for_each([&](uint64_t, remote_key &k) {
        if (k.owner == peer) k.mapped = nullptr;
    });
}

}  // namespace ccs
