// One-sided operations over any transport. start() takes a checked request
// and chooses how it travels: copied here where the target's memory is
// mapped (rma_direct.cpp), by the route transport's put/get when it has
// native RMA, else (no CAP_PUT/CAP_GET, the OS refused, or
// CCS_RMA_EMULATE=1) in active messages on the core's internal context,
// the target copying (rma_am.cpp); datadesc operations of small pieces
// travel whole there. Keys are rma_keys'; with CCS_RKEY_IMPLICIT the
// engine asks the target for a key once. Completions run in progress;
// fences wait for a context's outstanding operations.
#pragma once

#include "core/am/am_engine.hpp"
#include "core/context.hpp"
#include "core/internal_handlers.hpp"
#include "datadesc/copy_kernels.hpp"
#include "datadesc/handle.hpp"
#include "core/memory/memory_registry.hpp"
#include "core/rma/beside_operations.hpp"
#include "core/rma/rma_keys.hpp"
#include "core/rma/rma_operation.hpp"
#include "core/transport.hpp"
#include "util/completion.hpp"
#include "util/fast_path.hpp"
#include "util/fence.hpp"
#include "util/range.hpp"

#include <ccs/rma.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

namespace ccs {

struct rma_stats {
    uint64_t puts = 0;
    uint64_t gets = 0;
    uint64_t atomics = 0;
    uint64_t atomics_at_target = 0;  // of those, carried out by the target (not mapped here)
    uint64_t atomics_by_network = 0;  // of those, by a transport's own atomics (network atomics)
    uint64_t accumulates = 0;
    uint64_t indexed_puts = 0;
    uint64_t native = 0;          // carried by a transport's put/get
    uint64_t emulated = 0;        // carried in active messages
    uint64_t by_layout = 0;       // of those, datadesc operations the target unpacked or packed
    uint64_t bytes = 0;
    uint64_t key_requests = 0;    // implicit keys asked for
    uint64_t key_cache_hits = 0;  // implicit keys found cached
    uint64_t keys_revoked = 0;    // implicit keys dropped: the owner deregistered
    uint64_t failed = 0;          // completed with an error
};

// Where `count` elements of a layout placed at `address` lie, as
// addresses: [first, first + span). too_wide: the layout's own reach does
// not fit in 64 bits; outside: it starts below address 0 or ends past the
// address space. The initiator (submit, try_mapped_layouts) and the target
// of a whole operation (rma_am.cpp) both place the remote layout so.
enum class layout_fit { fits, too_wide, outside };
layout_fit place_layout(const ccs_datadesc_s &dd, int64_t count, uint64_t address, uint64_t &first, uint64_t &span);

class rma_engine final : public rma_sink {
public:
    // route[p]: the transport reaching rank p (null for self); same_node[p]:
    // whether p runs on this node. secret: the job's, for packed keys.
    // layout_piece: CCS_RMA_LAYOUT_PIECE (sends_layouts).
    // atomics: the transport that carries out network atomics (the
    // highest-priority one with CCS_PLUGIN_CAP_ATOMIC), or null.
    rma_engine(context_table &contexts, am_engine &am, memory_registry &memory, std::vector<transport *> route,
               const std::vector<bool> &same_node, transport *atomics, int rank, const key_secret &secret,
               bool force_emulation, size_t layout_piece);
    ~rma_engine();
    rma_engine(const rma_engine &) = delete;
    rma_engine &operator=(const rma_engine &) = delete;

    // Its handlers on the internal context (rma_am.cpp). `wait_progress`
    // is one pass of the runtime's progress (with back-off).
    ccs_status_t install(internal_handlers &handlers, std::function<void()> wait_progress);

    ccs_status_t unpack_key(int owner, const void *buffer, size_t length, ccs_rkey_t &out) {
        return keys_.unpack(owner, buffer, length, am_.peer_has_failed(owner), out);
    }
    ccs_status_t release_key(ccs_rkey_t key) { return keys_.release(key); }
    // Whether the owner ended the registration behind `key` (known only
    // where its liveness word is readable: on its node), or the key is gone.
    bool key_ended(ccs_rkey_t key) const {
        const remote_key *k = keys_.find(key.id);
        return !k || k->ended();
    }
    // Where [remote, remote + length) of the key's region is mapped in this
    // process, or null where it is not (ccs_rkey_ptr).
    ccs_status_t mapped_address(const char *call, ccs_rkey_t key, uint64_t remote, size_t length, void *&out) const {
        return keys_.mapped_address(call, key, remote, length, out);
    }

    // Whether the route to `target` is a node-scope transport (shared
    // memory: its put and get are copies by the calling process).
    bool node_route(int target) const {
        const transport *t = route_[static_cast<size_t>(target)];
        return t && t->node_scope();
    }
    // Whether `key` of `target`'s is live and mapped here over `length`
    // bytes at `remote`: a get from it is a copy in this process.
    bool maps(int target, ccs_rkey_t key, uint64_t remote, uint64_t length) const {
        return mapped_key(target, key, remote, length) != nullptr;
    }

    // Every operation but the inline one below starts here: the request
    // goes the fastest way that applies (try_direct, try_mapped_layouts,
    // whole in active messages, lists of pieces). Errors (a bad key, a
    // remote range outside it) are returned before anything moves.
    ccs_status_t start(context &ctx, const rma_request &request);

    // The most common case, inline in ccs_put and ccs_get: one piece below
    // mapped_copy_limit, through an unpacked key whose region is mapped
    // here, to a live peer, with no callback to run. A copy and a few
    // counts; false when that does not apply (nothing was done). The
    // caller has checked the runtime and the context; the key's owner
    // (checked when unpacked) stands for the target's range. A mapped key
    // always has the owner's liveness word: one load says the
    // registration has not ended.
    // `beside`: the calling thread's counts in a fast section
    // (util/fast_path.hpp), or null under the API lock.
    bool try_mapped(bool put, int target, void *local, size_t length, uint64_t remote, ccs_rkey_t rkey,
                    const ccs_completion_t *completion, fast_path::thread_counts *beside = nullptr) noexcept {
        const remote_key *k = keys_.find(rkey.id);
        // length - 1 wraps for 0: an empty operation takes the general path.
        if (!k || !k->mapped || k->live->load(std::memory_order_relaxed) != k->handle || k->owner != target ||
            !local || length - 1 >= mapped_copy_limit - 1 ||
            !range_holds(k->base, k->length, remote, length) || emulate(target, put) ||
            (completion && completion->callback)) [[unlikely]]
            return false;
        copy_mapped(put, *k, local, length, remote);
        if (beside) {
            fast_path::bump(put ? beside->puts : beside->gets);
            fast_path::bump(beside->bytes, length);
        } else {
            count_direct(put, length);
        }
        if (completion && completion->counter) counter_add(*completion->counter);
        return true;
    }
    // The inline path of ccs_atomic and ccs_atomic_sync, before a request
    // is built: the word mapped here through `key` (a live registration of
    // the target's), its atomics the CPU's, no callback to run. False when
    // that does not apply (nothing was done).
    bool try_mapped_atomic(int target, const rma_atomic &a, uint64_t remote, ccs_rkey_t key, void *fetched,
                           const ccs_completion_t *completion, fast_path::thread_counts *beside = nullptr) noexcept;
    // The inline path of ccs_accumulate and ccs_accumulate_sync, before a
    // request is built: contiguous elements (their arguments checked) into
    // a node peer's ccs_mem_alloc block mapped here through `key`, under
    // the block's lock, no callback to run. False when that does not apply
    // (nothing was done).
    bool try_mapped_accumulate(int target, const rma_accumulate &a, const void *src, size_t length, uint64_t remote,
                               ccs_rkey_t key, const ccs_completion_t *completion,
                               fast_path::thread_counts *beside = nullptr) noexcept;
    // The same for a datadesc accumulate with one side contiguous, or both
    // plain strided runs (both layouts checked by the caller): the pieces
    // go straight to the kernel, with no list of pieces.
    bool try_mapped_accumulate_layouts(int target, const rma_accumulate &a, const uint8_t *local, int64_t local_count,
                                       const ccs_datadesc_s &local_dd, uint64_t remote, int64_t remote_count,
                                       const ccs_datadesc_s &remote_dd, ccs_rkey_t key,
                                       const ccs_completion_t *completion);
    // At thread level multiple, beside the API lock (rma_beside.cpp): a
    // contiguous put or get through an unpacked key by a transport that
    // takes RMA from several threads (rma_concurrent), with no callback to
    // run. done: finished (the counter moved); in_flight: the transport
    // finishes it later, noted in beside_operations under `token` (a put's
    // source is reusable once that is no longer in flight); not_taken:
    // nothing was done.
    enum class beside_result { not_taken, done, in_flight };
    beside_result try_direct_beside(uint16_t ctx, bool put, int target, void *local, size_t length, uint64_t remote,
                                    ccs_rkey_t rkey, const ccs_completion_t *completion,
                                    fast_path::thread_counts &counts, uint64_t &token) noexcept;
    // Set before fast paths are on: whether `peer`'s route takes puts and
    // gets beside the API lock.
    void set_rma_beside(int peer, bool on) { rma_beside_[static_cast<size_t>(peer)] = on; }
    bool rma_beside(int peer) const { return rma_beside_[static_cast<size_t>(peer)] != 0; }
    // The same for network atomics, through the atomics transport, on an
    // explicit key of the target's memory registered for them.
    beside_result try_network_atomic_beside(uint16_t ctx, int target, const rma_atomic &a, uint64_t remote,
                                            ccs_rkey_t rkey, void *fetched, const ccs_completion_t *completion,
                                            fast_path::thread_counts &counts, uint64_t &token) noexcept;
    // Set before fast paths are on: whether the atomics transport takes
    // its atomics from several threads.
    void allow_network_atomics_beside() { atomics_beside_ = atomics_ && atomics_->rma_concurrently(); }
    bool network_atomics_beside() const { return atomics_beside_; }

    // Whether puts (gets) to `target` go by its transport's RMA now, not
    // in active messages.
    bool native(int target, bool put) const { return target != rank_ && !emulate(target, put); }

    // Whether network atomics can reach `peer`: the atomics transport
    // reaches it (or it is this process).
    bool network_atomics_reach(int peer) const {
        return atomics_ && (peer == rank_ || atomics_->reachable(peer));
    }

    // Operations `ctx` issued to `target` (-1: to anyone) not yet complete.
    uint64_t outstanding(uint16_t ctx, int target) const;
    void context_destroyed(uint16_t ctx) {
        if (ctx < outstanding_.size()) outstanding_[ctx].clear();
    }

    int progress();  // retries and completions
    bool busy() const { return !retry_.empty() || !completions_.empty(); }
    // Nothing stored that could still complete.
    bool idle() const { return requests_.empty() && !busy() && !beside_operations::any(); }
    void rma_complete(uint64_t token, ccs_plugin_status_t status) override;
    void peer_failed(int peer);
    const rma_stats &stats() const { return stats_; }
    bool in_callback() const { return depth_ > 0; }

    // Operations on a peer's memory mapped here, below this size, are
    // copied by the core without calling the plugin; larger ones go to the
    // plugin, which may pick a faster bulk copy than memcpy (shm times rep
    // movsb from 1 MiB).
    static constexpr size_t mapped_copy_limit = size_t{1} << 20;

private:
    // The ways start() tries first (rma_direct.cpp). The common case
    // without building an operation: one contiguous piece, an unpacked key,
    // a transport with native RMA that finishes it at once. False when that
    // does not apply (nothing was done).
    bool try_direct(context &ctx, bool put, int target, void *local, size_t length, uint64_t remote, ccs_rkey_t rkey,
                    const ccs_completion_t *completion);

    // A put or get with datadescs on both sides to a region mapped here, as
    // try_direct: the datadesc engine copies from one layout straight into
    // the other (dd::copy_layouts), with no list of pieces. False when that
    // does not apply (nothing was done). Both layouts checked by the caller.
    bool try_mapped_layouts(bool put, int target, uint8_t *local, int64_t local_count, const ccs_datadesc_s &local_dd,
                            uint64_t remote, int64_t remote_count, const ccs_datadesc_s &remote_dd, ccs_rkey_t rkey,
                            const ccs_completion_t *completion);

    // Whether a datadesc operation of `pieces` pieces (the larger side's)
    // and `bytes` bytes to `target` should travel whole in active messages
    // (rma_layouts): where RMA is emulated anyway, and where pieces
    // average under CCS_RMA_LAYOUT_PIECE bytes, which a transport moves
    // one by one (cross-memory attach: 100-300 ns a piece) while the
    // target unpacks them at memory speed. Not to this process itself, and
    // never with CCS_RMA_LAYOUT_PIECE=0.
    bool sends_layouts(bool put, int target, int64_t pieces, int64_t bytes) const {
        if (target == rank_ || bytes == 0 || layout_piece_ == 0) return false;
        return emulate(target, put) || (pieces > 1 && bytes / pieces < static_cast<int64_t>(layout_piece_));
    }

    enum class stage { waiting_key, ready, in_flight, done };
    // The general path: `op` as lists or whole; the remote side must lie in
    // the key's region (or, with an implicit key, in one region of the
    // target).
    ccs_status_t submit(context &ctx, rma_operation &&op, ccs_rkey_t rkey, const ccs_completion_t *completion);
    // The request's pieces as lists (datadescs walked).
    static rma_operation as_lists(const rma_request &request);

    // The explicit key `key` when its owner is the target, its registration
    // live, the transport holds a key for it, and it holds `length` bytes
    // at `remote`: what try_direct and try_direct_beside need. Null
    // otherwise (the general path says what is wrong, or goes another way).
    const remote_key *direct_key(int target, ccs_rkey_t key, uint64_t remote, uint64_t length) const {
        const remote_key *k = key.id != 0 ? keys_.find(key.id) : nullptr;
        if (!k || k->implicit || k->owner != target || !k->plugin_key ||
            !range_holds(k->base, k->length, remote, length) || k->ended())
            return nullptr;
        return k;
    }
    // The explicit key of `q`, when its owner is the target, its
    // registration live and mapped here, and it holds `length` bytes at
    // the request's remote address: what the inline atomic and indexed put
    // need. Null otherwise (the general path takes the request, or says
    // what is wrong).
    const remote_key *mapped_key(const rma_request &q, uint64_t length) const {
        return mapped_key(q.target, q.key, q.remote.address, length);
    }
    const remote_key *mapped_key(int target, ccs_rkey_t key, uint64_t remote, uint64_t length) const {
        if (key.id == 0 || target == rank_) return nullptr;
        const remote_key *k = keys_.find(key.id);
        if (!k || !k->mapped || k->ended() || k->owner != target || !range_holds(k->base, k->length, remote, length))
            return nullptr;
        return k;
    }
    // Atomics (rma_atomic.cpp): applied here where the word is mapped,
    // else (this process's own, or a request) in issue.
    bool try_mapped_atomic(const rma_request &q);
    bool apply_mapped_atomic(int target, const rma_atomic &a, uint64_t remote, ccs_rkey_t key, void *fetched,
                             fast_path::thread_counts *beside = nullptr) noexcept;
    // Accumulate (rma_accumulate.cpp): in place where a block is mapped
    // here, else applied by the target, in messages each answered on its
    // own, at most accumulate_window of them and accumulate_in_flight bytes
    // of data unanswered. A message holds what the route sends as one
    // packet, between 64 KiB and 1 MiB (shm: 64 KiB, fragmented; UCX: 1 MiB
    // by rendezvous where its lanes do RMA, else 252 KiB sent eager). `op`:
    // the request as lists, or null for a contiguous one.
    static constexpr uint32_t accumulate_window = 8;
    static constexpr size_t accumulate_in_flight = 2 << 20;
    // The message's arguments and header take the packet's last 4 KiB, so
    // that a message up to the packet's size is not cut in two.
    size_t accumulate_piece(int target) const {
        const transport *t = route_[static_cast<size_t>(target)];
        const size_t packet = t ? t->attr().am_max_packet : 0;
        return std::clamp<size_t>(packet > 4096 ? packet - 4096 : 0, 64 << 10, 1 << 20);
    }
    bool try_mapped_accumulate(const rma_request &q, const rma_operation *op);
    bool apply_mapped_accumulate(int target, const rma_accumulate &a, const void *src, size_t length, uint64_t remote,
                                 ccs_rkey_t key, fast_path::thread_counts *beside = nullptr) noexcept;
    void count_accumulate(size_t length, fast_path::thread_counts *beside) {
        if (beside) {
            fast_path::bump(beside->accumulates);
            fast_path::bump(beside->bytes, length);
        } else {
            ++stats_.accumulates;
            stats_.bytes += length;
        }
    }
    // Indexed put (rma_indexed_put.cpp): the pointer advanced and the data
    // copied here where the region is mapped, else by the target.
    // `status` is the refusal when the queue is full (true: done or refused).
    bool try_mapped_indexed(const rma_request &q, ccs_status_t &status);

    struct request {
        uint64_t token = 0;
        uint16_t ctx = 0;
        rma_operation op;
        uint64_t key_id = 0;        // 0 until resolved for implicit keys
        std::vector<uint8_t> copy;  // put without completion: the source, kept
        ccs_completion_t completion{};
        bool has_completion = false;
        stage at = stage::ready;
        // Hull of the remote segments, for bounds checks and key requests.
        uint64_t lo = 0, hi = 0;
        uint32_t parts = 0;  // accumulate: messages not answered yet
        uint64_t sent = 0;   // accumulate: stream bytes sent so far
        list_cursor to, from;  // accumulate: where the next message starts on each side
    };
    // Keeps a put's source when the caller will reuse it before it went.
    void keep_source(request &r);
    // Moves a request with a resolved key: native, emulated or local. `k`
    // saves the lookup when the caller has the key at hand.
    void issue(request &r, const remote_key *k = nullptr);
    void issue_emulated(request &r);
    void issue_atomic(request &r);
    // An atomic on memory registered for network atomics: through the
    // atomics transport, with the key's part for it (rma_atomic.cpp).
    void issue_network_atomic(request &r, const remote_key &k);
    // An atomic on this process's own memory: if its word is registered
    // for network atomics, issues it through the atomics transport (or
    // finishes it with the reason it cannot) and says true; false leaves
    // it to the CPU.
    bool issued_network_atomic_here(request &r);
    // The refusal of an indexed put whose pointer word takes network
    // atomics: the append moves it with the CPU's.
    [[gnu::cold]] static ccs_status_t indexed_on_network_atomics();
    void issue_accumulate(request &r);
    // Sends the accumulate's next messages, as many as the window allows;
    // false when a send failed (then `r` is finished).
    bool send_accumulate_pieces(request &r);
    // An accumulate into this process's own memory.
    void accumulate_here(request &r);
    void issue_indexed(request &r);
    // Appends `length` bytes of `data` at this process's queue whose
    // pointer is at `pointer`, reached through registration `handle` (0:
    // any registered memory, this process's own implicit key); the old
    // pointer in `old`. Refuses, changing nothing, what does not fit.
    ccs_status_t append_here(uint64_t handle, uint64_t pointer, const void *data, uint64_t length, uint64_t limit,
                             uint64_t &old);
    // The owner's registration the request's key names, which the target
    // checks (rma_am.cpp).
    uint64_t key_handle(const request &r) const {
        const remote_key *k = keys_.find(r.key_id);
        return k ? k->handle : 0;
    }
    void issue_layouts(request &r);
    // Completes a request (counts, notify, completion); the stored form
    // also forgets it.
    // `reason`: what went wrong, for a failure (the status's meaning if
    // empty); the completion's detail names the operation before it.
    void finish(uint64_t token, ccs_status_t status, const std::string &reason = {});
    void finish(request &r, ccs_status_t status, const std::string &reason = {});
    bool emulate(int target, bool put) const {
        return !(native_[static_cast<size_t>(target)] & (put ? native_put_bit : native_get_bit));
    }
    // A put's bytes into the mapped region (then a release fence), or a
    // get's out of it (after an acquire fence). The datadesc engine's copy
    // for one piece, with the region as its stream: small sizes inline.
    static void copy_mapped(bool put, const remote_key &k, void *local, size_t length, uint64_t remote) {
        uint8_t *at = k.mapped + (remote - k.base);
        auto *mem = static_cast<uint8_t *>(local);
        const auto len = static_cast<int64_t>(length);
        if (put) {
            dd::copy_one<dd::direction::pack>(mem, at, len);
            release_fence();
        } else {
            acquire_fence();
            dd::copy_one<dd::direction::unpack>(mem, at, len);
        }
    }
    void count_direct(bool put, size_t length) {
        ++(put ? stats_.puts : stats_.gets);
        ++stats_.native;
        stats_.bytes += length;
    }
    void count_outstanding(uint16_t ctx, int target);
    // The context of the request start() works on, for completions that
    // finish within the call.
    uint16_t starting_ctx_ = 0;
    // An operation that finished within its call: a counter alone moves at
    // once; a callback waits for progress.
    void complete_now(const ccs_completion_t *completion) {
        if (!wants_completion(completion)) return;
        if (!completion->callback) counter_add(*completion->counter);
        else completions_.push_back({*completion, CCS_OK, {}, starting_ctx_});
    }
    // A direct operation the transport started but did not finish: from
    // here on it is an ordinary request.
    [[gnu::noinline]] void track_direct(context &ctx, bool put, int target, void *local, size_t length,
                                        uint64_t remote, ccs_rkey_t rkey, const ccs_completion_t *completion,
                                        uint64_t token);
    void refuse_native(int target);
    // Completes an operation started beside the lock, once (rma_beside.cpp).
    void finish_beside(uint64_t token, ccs_status_t status, const std::string &reason);

    // rma_am.cpp: the active-message side, at handler ids first_handler_
    // + these.
    enum handler_offset : uint16_t {
        put_request,
        get_request,
        reply_to,
        key_request,
        key_reply,
        key_revoked,
        put_layout,
        get_layout,
        atomic_request,
        accumulate_request,
        accumulate_reply,
        indexed_request,
        indexed_reply,
        handler_count
    };
    static void on_put_request(const ccs_am_message_t *m, void *self);
    static void on_get_request(const ccs_am_message_t *m, void *self);
    static void on_put_layout(const ccs_am_message_t *m, void *self);
    static void on_get_layout(const ccs_am_message_t *m, void *self);
    static void on_atomic_request(const ccs_am_message_t *m, void *self);
    static void on_accumulate_request(const ccs_am_message_t *m, void *self);
    static void on_accumulate_reply(const ccs_am_message_t *m, void *self);
    static void on_indexed_request(const ccs_am_message_t *m, void *self);
    static void on_indexed_reply(const ccs_am_message_t *m, void *self);
    static void on_reply(const ccs_am_message_t *m, void *self);
    static void on_key_request(const ccs_am_message_t *m, void *self);
    static void on_key_reply(const ccs_am_message_t *m, void *self);
    static void on_key_revoked(const ccs_am_message_t *m, void *self);
    // Tells `holder` that our registration `handle` is gone.
    void revoke(int holder, uint64_t handle);
    void reply(int to, uint16_t handler, uint64_t token, ccs_status_t status, const void *data, size_t length);
    // A reply's refusal of `r`, as its completion's detail: "rank N
    // refused it: " and the reason the target's reply carries.
    static std::string refused(const request &r, const ccs_am_message_t *m);

    context_table &contexts_;
    am_engine &am_;
    memory_registry &memory_;
    std::vector<transport *> route_;
    transport *atomics_;
    int rank_;
    // Per peer: which operations its transport does natively; cleared by
    // CCS_RMA_EMULATE, and for good when the transport refuses.
    static constexpr uint8_t native_put_bit = 1, native_get_bit = 2;
    std::vector<uint8_t> native_;
    std::vector<uint8_t> rma_beside_;  // per peer: set_rma_beside
    bool atomics_beside_ = false;       // allow_network_atomics_beside
    size_t layout_piece_;
    uint16_t first_handler_ = 0;
    std::function<void()> wait_progress_;

    rma_keys keys_;
    uint64_t next_token_ = 1;
    std::unordered_map<uint64_t, request> requests_;
    std::deque<uint64_t> retry_;  // transports said AGAIN
    std::vector<pending_completion> completions_;
    // Indexed by context id (dense, small), then target; empty until used.
    std::vector<std::vector<uint64_t>> outstanding_;
    int depth_ = 0;
    rma_stats stats_;
    // One accumulate message's target pieces and gathered bytes, reused.
    std::vector<ccs_plugin_remote_v1_t> accumulate_pieces_;
    std::vector<uint8_t> accumulate_scratch_;
};

}  // namespace ccs
