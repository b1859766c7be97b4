// A registered window every rank holds a key to: the RMA tests' fixture.
#pragma once

#include "harness.hpp"

#include <ccs/rma.h>

#include <sys/mman.h>

#include <cstdint>
#include <string>
#include <vector>

namespace conformance {

constexpr size_t slot_bytes = 1 << 20;  // per source rank in every window

// What every rank sent: its bytes (a packed key) and one word (an address).
struct shared_bytes {
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<uint64_t> words;
};

// Collective: each rank gives `mine` and `word`, each gets everyone's.
inline shared_bytes share_with_everyone(const std::vector<uint8_t> &mine, uint64_t word) {
    struct exchange {
        shared_bytes got;
        int count = 0;
    } ex;
    ex.got.bytes.resize(static_cast<size_t>(size()));
    ex.got.words.resize(static_cast<size_t>(size()));
    auto on_bytes = [](const ccs_am_message_t *m, void *arg) {
        auto *e = static_cast<exchange *>(arg);
        const auto *p = static_cast<const uint8_t *>(m->payload);
        e->got.bytes[static_cast<size_t>(m->source)].assign(p, p + m->payload_size);
        e->got.words[static_cast<size_t>(m->source)] = m->args[0];
        ++e->count;
    };
    scoped_context ctx("share-with-everyone", {{1, on_bytes, &ex}});
    for (int t = 0; t < size(); ++t)
        CCS_EXPECT_OK(ccs_am_send(ctx, t, 1, &word, 1, mine.data(), mine.size(), nullptr));
    EXPECT_TRUE(progress_until([&] { return ex.count == size(); }));
    CCS_EXPECT_OK(ccs_barrier());
    return std::move(ex.got);
}

// The packed key of `mem`.
inline std::vector<uint8_t> packed_key(ccs_mem_t mem) {
    size_t length = 0;
    CCS_EXPECT_OK(ccs_rkey_pack(mem, nullptr, &length));
    std::vector<uint8_t> packed(length);
    CCS_EXPECT_OK(ccs_rkey_pack(mem, packed.data(), &length));
    packed.resize(length);
    return packed;
}

// A window of size() slots, registered, its key exchanged with everyone.
class window {
public:
    // allocated: from ccs_mem_alloc (peers on the node map it), else
    // private anonymous pages registered, as a large malloc returns them
    // (reached by cross-memory attach), its atomics `atomics_by` (a
    // ccs_atomics_by_t). Both start zero without being written: a window is
    // size() MiB on every process, and zeroing it eagerly made each test
    // at many processes mostly page faults.
    explicit window(bool allocated = false, int atomics_by = CCS_ATOMICS_BY_CPU)
        : allocated_(allocated), bytes_(static_cast<size_t>(size()) * slot_bytes) {
        if (allocated_) {
            void *p = nullptr;
            CCS_EXPECT_OK(ccs_mem_alloc(bytes_, &p, &mem_));
            base_ = static_cast<uint8_t *>(p);
        } else {
            void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            EXPECT_NE(p, MAP_FAILED) << "mmap of " << bytes_ << " bytes";
            base_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
            CCS_EXPECT_OK(ccs_mem_register_atomics(base_, bytes_, atomics_by, &mem_));
        }
        const std::vector<uint8_t> packed = packed_key(mem_);
        const shared_bytes all = share_with_everyone(packed, reinterpret_cast<uintptr_t>(base_));
        for (int r = 0; r < size(); ++r) {
            ccs_rkey_t k{};
            const auto &key = all.bytes[static_cast<size_t>(r)];
            CCS_EXPECT_OK(ccs_rkey_unpack(r, key.data(), key.size(), &k));
            keys_.push_back(k);
            bases_.push_back(all.words[static_cast<size_t>(r)]);
        }
    }
    ~window() {
        for (ccs_rkey_t k : keys_) EXPECT_EQ(ccs_rkey_release(k), CCS_OK) << ccs_last_error();
        if (allocated_) {
            EXPECT_EQ(ccs_mem_free(mem_), CCS_OK) << ccs_last_error();
        } else {
            EXPECT_EQ(ccs_mem_deregister(mem_), CCS_OK) << ccs_last_error();
            if (base_ != nullptr) munmap(base_, bytes_);
        }
    }
    window(const window &) = delete;
    window &operator=(const window &) = delete;
    // Address of source rank `from`'s slot in `owner`'s window.
    uint64_t slot(int owner, int from) const { return bases_[static_cast<size_t>(owner)] + static_cast<uint64_t>(from) * slot_bytes; }
    ccs_rkey_t key(int owner) const { return keys_[static_cast<size_t>(owner)]; }
    uint8_t *local_slot(int from) { return base_ + static_cast<size_t>(from) * slot_bytes; }
    ccs_mem_t handle() const { return mem_; }

private:
    bool allocated_;
    size_t bytes_;
    uint8_t *base_ = nullptr;
    ccs_mem_t mem_{};
    std::vector<ccs_rkey_t> keys_;
    std::vector<uint64_t> bases_;
};

// RMA suites run each case on both kinds of window (the parameter of a
// window): registered heap memory and ccs_mem_alloc memory.
inline auto window_kinds() { return ::testing::Values(false, true); }
inline std::string window_kind_name(const ::testing::TestParamInfo<bool> &info) {
    return info.param ? "Allocated" : "Registered";
}

inline int right() { return (rank() + 1) % size(); }
inline int left() { return (rank() + size() - 1) % size(); }

}  // namespace conformance
