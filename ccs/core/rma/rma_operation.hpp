// One-sided operations as the RMA engine sees them: what the runtime asked
// for (rma_request: kind, both sides, key, completion, notification), and
// the forms the engine moves it in (lists of pieces, or layouts whole).
#pragma once

#include "core/rma/accumulate_kernels.hpp"
#include "core/rma/atomic_word.hpp"
#include "datadesc/handle.hpp"

#include <ccs/plugin/ccs_plugin_v1.h>
#include <ccs/rma.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace ccs {

// What an operation does to the target's memory.
enum class rma_kind : uint8_t {
    put,         // writes the target's memory from ours
    get,         // reads the target's memory into ours
    atomic,      // one word changed at the target (rma_atomic); the old value
                 // read into ours where the local side has a piece
    accumulate,  // the target combines ours into its memory (rma_accumulate)
    indexed_put, // ours appended where a pointer word of the target points,
                 // the pointer advanced (rma_indexed); the remote side is
                 // the pointer word
};

// An indexed put's arguments: the queue's end, and where the address the
// data went to is stored (or null).
struct rma_indexed {
    uint64_t limit = 0;
    uint64_t *placed = nullptr;
};

// (address, length) pieces, merged where they touch. The first few live
// inside the list: a strided patch of a few rows costs no allocation.
class segment_list {
public:
    // Merges with an adjacent last piece. Inline: a layout of single
    // elements pushes thousands.
    void push(uint64_t address, size_t length) {
        if (length == 0) return;
        bytes_ += length;
        ccs_plugin_remote_v1_t *pieces = on_heap() ? more_.data() : inline_;
        if (count_ > 0 && pieces[count_ - 1].address + pieces[count_ - 1].length == address) {
            pieces[count_ - 1].length += length;
            return;
        }
        if (count_ < inline_pieces) {
            inline_[count_] = {address, length};
        } else {
            if (count_ == inline_pieces) {
                more_.reserve(2 * inline_pieces);  // no-op where reserve() asked for more
                more_.assign(inline_, inline_ + count_);
            }
            more_.push_back({address, length});
        }
        ++count_;
    }
    // Room for `pieces` without growing as they come.
    void reserve(size_t pieces) {
        if (pieces > inline_pieces) more_.reserve(pieces);
    }
    size_t size() const { return count_; }
    const ccs_plugin_remote_v1_t *data() const { return on_heap() ? more_.data() : inline_; }
    size_t bytes() const { return bytes_; }

private:
    static constexpr size_t inline_pieces = 8;
    bool on_heap() const { return count_ > inline_pieces; }

    ccs_plugin_remote_v1_t inline_[inline_pieces]{};
    std::vector<ccs_plugin_remote_v1_t> more_;  // every piece, once there are more than fit inline
    size_t count_ = 0, bytes_ = 0;
};

// A position in a segment_list, walking it in stream order a part at a
// time (the pieces of a large accumulate).
struct list_cursor {
    size_t index = 0, offset = 0;
    // Calls fn(address, length) for the next pieces, `bytes` in all, until
    // fn returns false (after the piece it was called for).
    template <typename Fn>
    void take(const segment_list &list, size_t bytes, Fn fn) {
        while (bytes > 0 && index < list.size()) {
            const ccs_plugin_remote_v1_t &seg = list.data()[index];
            const size_t n = std::min<size_t>(bytes, seg.length - offset);
            const bool more = fn(seg.address + offset, n);
            bytes -= n;
            if ((offset += n) == seg.length) ++index, offset = 0;
            if (!more) return;
        }
    }
    // Whether the next `bytes` lie in one piece; if so `at` is where, and
    // they are taken.
    bool within_one(const segment_list &list, size_t bytes, const uint8_t *&at) {
        if (index >= list.size() || list.data()[index].length - offset < bytes) return false;
        at = reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(list.data()[index].address + offset));
        take(list, bytes, [](uint64_t, size_t) { return true; });
        return true;
    }
};

// The runtime's handler to run at the target once the data moved
// (ccs_put_notify, ccs_get_notify).
struct rma_notify {
    bool wanted = false;
    uint16_t handler = 0;
    uint8_t nargs = 0;
    std::array<uint64_t, CCS_AM_MAX_ARGS> args{};  // nargs of them used
};

// One side of a request: `length` bytes at `address`, or `count` elements
// of `dd` placed at `address` (dd null: contiguous).
struct rma_side {
    uint64_t address = 0;
    size_t length = 0;
    const ccs_datadesc_s *dd = nullptr;
    int64_t count = 0;
};

// What the runtime asked for, its arguments checked (both sides the same
// number of bytes, a local buffer where there are bytes).
struct rma_request {
    rma_kind kind = rma_kind::put;
    int target = 0;
    rma_side local, remote;
    ccs_rkey_t key{};
    const ccs_completion_t *completion = nullptr;
    rma_notify after;
    rma_atomic atomic;  // kind atomic: the remote side is the word, the
                        // local side where the old value goes (or empty)
    rma_accumulate acc;  // kind accumulate: the local side is the source
    rma_indexed indexed;  // kind indexed_put: the local side is the source
    bool writes_remote() const { return kind != rma_kind::get && kind != rma_kind::atomic; }
    bool by_layout() const { return local.dd != nullptr; }
};

// A datadesc operation that travels whole in active messages: the target
// unpacks or packs its side with the layout (rma_am.cpp), so no list of
// pieces is built on either side.
struct rma_layouts {
    ccs_datadesc_s local_dd, remote_dd;  // copies: they keep the programs alive
    uint8_t *local = nullptr;
    uint64_t remote = 0;
    int64_t local_count = 0, remote_count = 0;
    size_t bytes() const { return static_cast<size_t>(local_count * local_dd.size); }
};

// An operation as the engine moves it: local and remote lists of equal
// total bytes, or both layouts whole.
struct rma_operation {
    rma_kind kind = rma_kind::put;
    int target = 0;
    segment_list local, remote;  // empty when `whole` is set
    rma_notify after;
    rma_atomic atomic;   // kind atomic only
    rma_accumulate acc;  // kind accumulate only
    rma_indexed indexed;  // kind indexed_put only
    std::optional<rma_layouts> whole;
    bool writes_remote() const { return kind != rma_kind::get && kind != rma_kind::atomic; }
    size_t bytes() const { return whole ? whole->bytes() : remote.bytes(); }
};

}  // namespace ccs
