#include "core/am/large_caches.hpp"

#include <algorithm>

namespace ccs {
namespace {

// The least recently used entry no message uses, or end().
template <typename Entries>
auto unused_oldest(Entries &entries) {
    auto oldest = entries.end();
    for (auto it = entries.begin(); it != entries.end(); ++it)
        if (it->users == 0 && (oldest == entries.end() || it->used < oldest->used)) oldest = it;
    return oldest;
}

}  // namespace

payload_registrations::~payload_registrations() {
    for (const entry &e : entries_) end(e);
}

ccs_status_t payload_registrations::take(uint64_t first, uint64_t span, ccs_mem_t &mem,
                                         const std::vector<uint8_t> *&key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (first < it->first || first + span > it->first + it->span) continue;
        // Ended meanwhile (ccs_mem_free of the block it lay in): gone.
        if (memory_.check_access(it->mem.id, first, span) != CCS_OK) {
            if (it->users == 0) {
                end(*it);
                entries_.erase(it);
                break;
            }
            continue;
        }
        it->used = ++clock_;
        ++it->users;
        mem = it->mem;
        key = &it->key;
        return CCS_OK;
    }
    entry e;
    e.first = first;
    e.span = span;
    e.mem.id = memory_.covering(first, span);
    e.borrowed = e.mem.id != 0;
    ccs_status_t st = CCS_OK;
    if (!e.borrowed &&
        (st = memory_.register_memory(reinterpret_cast<void *>(static_cast<uintptr_t>(first)), span, e.mem, false,
                                      true)) != CCS_OK)
        return st;
    if ((st = memory_.pack_key(e.mem, e.key)) != CCS_OK) {
        end(e);
        return st;
    }
    if (entries_.size() >= capacity) {
        const auto oldest = unused_oldest(entries_);
        if (oldest != entries_.end()) {
            end(*oldest);
            entries_.erase(oldest);
        }
    }
    e.used = ++clock_;
    e.users = 1;
    entries_.push_back(std::move(e));
    mem = entries_.back().mem;
    key = &entries_.back().key;
    return CCS_OK;
}

void payload_registrations::give_back(ccs_mem_t mem) {
    const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const entry &e) { return e.mem.id == mem.id; });
    if (it == entries_.end() || it->users == 0) return;
    --it->users;
    // The core's own registration ends with its last message: left
    // standing over memory the runtime may free and reuse, it would answer
    // for memory nobody registered. (The registration cache keeps the
    // region, so the next message registers it again cheaply.) The
    // runtime's own ones are kept, up to `capacity`.
    if (it->users == 0 && (!it->borrowed || entries_.size() > capacity)) {
        end(*it);
        entries_.erase(it);
    }
}

sender_keys::~sender_keys() {
    for (entry &e : entries_) rma_.release_key(e.key);
}

ccs_status_t sender_keys::take(int source, const std::vector<uint8_t> &bytes, ccs_rkey_t &key) {
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (it->users == 0 && rma_.key_ended(it->key)) {
            rma_.release_key(it->key);
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->source != source || it->bytes != bytes) continue;
        it->used = ++clock_;
        ++it->users;
        key = it->key;
        return CCS_OK;
    }
    entry e;
    const ccs_status_t st = rma_.unpack_key(source, bytes.data(), bytes.size(), e.key);
    if (st != CCS_OK) return st;
    if (entries_.size() >= capacity) {
        const auto oldest = unused_oldest(entries_);
        if (oldest != entries_.end()) {
            rma_.release_key(oldest->key);
            entries_.erase(oldest);
        }
    }
    e.source = source;
    e.bytes = bytes;
    e.used = ++clock_;
    e.users = 1;
    key = e.key;
    entries_.push_back(std::move(e));
    return CCS_OK;
}

void sender_keys::give_back(ccs_rkey_t key) {
    const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const entry &e) { return e.key.id == key.id; });
    if (it == entries_.end() || it->users == 0) return;
    --it->users;
    if (it->users == 0 && entries_.size() > capacity) {
        rma_.release_key(it->key);
        entries_.erase(it);
    }
}

void sender_keys::release_unused() { forget(-1); }

void sender_keys::forget(int source) {
    for (auto it = entries_.begin(); it != entries_.end();) {
        if ((source < 0 || it->source == source) && it->users == 0) {
            rma_.release_key(it->key);
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace ccs
