// What large messages keep between messages so that a stream of them from
// the same buffers costs no new registration and no key unpack (on one
// node, unpacking a key of shared memory maps it, and releasing it unmaps
// it): the sender's registrations of its payloads, with their packed keys,
// and the target's keys unpacked from them. Each holds a few entries, least
// recently used first out, and never drops one a message still uses.
#pragma once

#include "core/memory/memory_registry.hpp"
#include "core/rma/rma_engine.hpp"

#include <ccs/rma.h>

#include <cstdint>
#include <vector>

namespace ccs {

// The sender's side: registrations of payload memory. Memory the runtime
// registered (a ccs_mem_alloc block, its ccs_mem_register) is announced
// with that registration's key, kept here for the next message; other
// memory gets a registration of the core's own (internal: found by no
// lookup for peers) for as long as messages from it are unanswered.
class payload_registrations {
public:
    static constexpr size_t capacity = 16;
    explicit payload_registrations(memory_registry &memory) : memory_(memory) {}
    ~payload_registrations();
    payload_registrations(const payload_registrations &) = delete;
    payload_registrations &operator=(const payload_registrations &) = delete;

    // A registration holding [first, first + span), live, and its packed
    // key, taken for one message until give_back(mem).
    ccs_status_t take(uint64_t first, uint64_t span, ccs_mem_t &mem, const std::vector<uint8_t> *&key);
    void give_back(ccs_mem_t mem);

private:
    struct entry {
        uint64_t first = 0, span = 0;
        ccs_mem_t mem{0};
        std::vector<uint8_t> key;
        uint64_t used = 0;   // when last taken
        uint32_t users = 0;  // messages not answered yet
        bool borrowed = false;  // the runtime's registration: never ended here
    };
    void end(const entry &e) {
        if (!e.borrowed) memory_.deregister(e.mem);
    }
    memory_registry &memory_;
    std::vector<entry> entries_;
    uint64_t clock_ = 0;
};

// The target's side: keys unpacked from the bytes a sender announced.
class sender_keys {
public:
    static constexpr size_t capacity = 64;
    explicit sender_keys(rma_engine &rma) : rma_(rma) {}
    ~sender_keys();
    sender_keys(const sender_keys &) = delete;
    sender_keys &operator=(const sender_keys &) = delete;

    // The key `source` packed as `bytes`, taken until give_back(key).
    ccs_status_t take(int source, const std::vector<uint8_t> &bytes, ccs_rkey_t &key);
    void give_back(ccs_rkey_t key);
    // Drops the unused keys of a failed sender (-1: of every sender).
    void forget(int source);
    // Drops every unused key: a cached key of shared memory keeps the
    // owner's block mapped here, and its memory in use, after the owner
    // freed it. Called when a context ends; take() also drops the keys
    // whose registration has ended.
    void release_unused();

private:
    struct entry {
        int source = -1;
        std::vector<uint8_t> bytes;
        ccs_rkey_t key{};
        uint64_t used = 0;
        uint32_t users = 0;
    };
    rma_engine &rma_;
    std::vector<entry> entries_;
    uint64_t clock_ = 0;
};

}  // namespace ccs
