// Active messages on top of any transport: packet headers, fragmentation and
// reassembly of payloads larger than a transport's packet, per-peer send
// queues for back-pressure, sequence numbers and reorder buffers where the
// transport does not order, deferred completion callbacks, self delivery.
#pragma once

#include "core/am/am_wire.hpp"
#include "core/context.hpp"
#include "datadesc/program.hpp"
#include "core/transport.hpp"
#include "util/completion.hpp"
#include "util/fast_path.hpp"
#include "util/send_lock.hpp"

#include <ccs/ccs.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <map>
#include <vector>

namespace ccs {

struct am_stats {
    uint64_t sent = 0;              // messages handed to a transport or self
    uint64_t received = 0;          // messages delivered to a handler
    uint64_t fragments_sent = 0;
    uint64_t fragments_received = 0;
    uint64_t queued = 0;            // messages that had to wait for the transport
    uint64_t queue_bytes = 0;       // copied bytes waiting now
    uint64_t queue_bytes_peak = 0;
    uint64_t reordered = 0;         // messages that arrived early and waited
    uint64_t unknown_handler = 0;
    uint64_t dropped_destroyed_context = 0;
    uint64_t dropped_malformed = 0;
    uint64_t send_errors = 0;
    uint64_t peers_failed = 0;
    uint64_t sent_nocopy = 0;       // sent from the user's buffer (am_send_nocopy)
    uint64_t abandoned = 0;         // refused after part of it went; the target drops that part
    uint64_t placed = 0;            // payloads a transport fetched straight into place
    uint64_t parked = 0;            // packets whose payload their transport kept for the handler's decision
};

// Takes the messages that a header handler decides on (core/am/large_am.hpp):
// large messages' headers, and ordinary messages sent to a header handler.
class header_sink {
public:
    // `large`: the payload starts with a large message's header.
    // `parked`: the rest of the payload, which its transport keeps (the
    // sink may take it), or null.
    virtual void on_header(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                           const uint8_t *payload, size_t length, bool large, parked_payload *parked) = 0;

protected:
    ~header_sink() = default;
};

// Takes the payload of messages to one internal handler straight into its
// own memory, where a transport can fetch it there (core/am/large_am.hpp:
// pushed pieces of a large message).
class packet_placer {
public:
    // Where the `length` payload bytes of this message go, or null: it is
    // delivered to the handler the ordinary way.
    virtual uint8_t *place(int source, const uint64_t *args, size_t nargs, size_t length) = 0;
    // The bytes place() answered for are there (OK), or never come (the
    // transport's reason).
    virtual void placed(int source, const uint64_t *args, size_t nargs, size_t length,
                        ccs_plugin_status_t status) = 0;

protected:
    ~packet_placer() = default;
};

class am_engine final : public packet_sink {
public:
    // `buffer_cache`: bytes of freed message buffers kept for reuse.
    am_engine(context_table &contexts, int rank, int size, size_t queue_limit, size_t buffer_cache);

    // Which transport reaches `peer`. Must be set for every peer but self.
    void set_route(int peer, transport *route);

    // Where a message's payload bytes come from: contiguous memory, or
    // `count` elements of a compiled datadesc at `data`, packed on the way
    // packet by packet, optionally behind `head_length` contiguous bytes
    // at `head` (read during the send call only: copied if the message
    // has to wait). `length` counts all the payload's bytes.
    struct payload_source {
        const uint8_t *data = nullptr;
        size_t length = 0;
        std::shared_ptr<const dd::program> layout;  // null: contiguous
        int64_t count = 0;
        const uint8_t *head = nullptr;  // with a layout only
        size_t head_length = 0;
    };

    // `flags`: wire flags the message carries besides the engine's own
    // (wire::large).
    ccs_status_t send(context &ctx, int target, uint16_t handler, const uint64_t *args,
                      size_t nargs, const payload_source &data, const ccs_completion_t *completion,
                      uint8_t flags = 0);
    ccs_status_t send(context &ctx, int target, uint16_t handler, const uint64_t *args,
                      size_t nargs, const void *bytes, size_t length,
                      const ccs_completion_t *completion) {
        return send(ctx, target, handler, args, nargs, payload_source{static_cast<const uint8_t *>(bytes), length, nullptr, 0},
                    completion);
    }

    // The send of ccs_am_send in a fast section (util/fast_path.hpp),
    // beside the API lock: one packet of contiguous bytes, from the stack,
    // through a route that takes sends from several threads, nothing
    // queued or held before it, no callback (a counter moves at once).
    // False: nothing was done; the locked path sends it, or says why not.
    bool try_send_beside(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                         const void *bytes, size_t length, const ccs_completion_t *completion,
                         fast_path::thread_counts &counts);
    // Whether the route to `peer` takes sends beside the API lock; set
    // with the lock held, before fast paths are on, and kept: the peer's
    // send lock is taken from then on.
    void set_sends_beside(int peer, bool on) { peers_[static_cast<size_t>(peer)].beside = on; }
    bool sends_beside(int peer) const { return peers_[static_cast<size_t>(peer)].beside; }
    // A context's messages to `target` wait behind large ones, or no
    // longer (context::set_holding), under the peer's send lock.
    void set_holding(context &ctx, int target, bool on) {
        peer_state &p = peers_[static_cast<size_t>(target)];
        const send_lock::hold hold(p.lock, p.beside);
        ctx.set_holding(target, on);
    }

    // One packet of `length` bytes at `data`, unsequenced, from the caller's
    // memory (held until `completion`), that `handler` of the internal
    // context places (set_placer): the transport may let the target fetch
    // it into place. Where it cannot go that way now, it goes as send()
    // sends it.
    ccs_status_t send_placeable(context &internal, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                                const uint8_t *data, size_t length, const ccs_completion_t &completion);
    // A large message of `ctx` in one packet: `head` (its large header,
    // copied) then `length` bytes at `data`, read from the caller's memory
    // until `completion`. Placeable, so a target transport that keeps
    // payloads (deliver_parked) holds them until the header handler
    // decides. `sent` false: it cannot go that way now (the route keeps no
    // payloads, a queue is ahead, it is too large); nothing was sent.
    ccs_status_t send_parkable(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                               const uint8_t *head, size_t head_length, const uint8_t *data, size_t length,
                               const ccs_completion_t &completion, bool &sent);
    // Whether the route to `peer` keeps payloads for the target's decision.
    bool parks_payloads(int peer) const {
        const peer_state &p = peers_[static_cast<size_t>(peer)];
        return p.route && p.route->parks_payloads();
    }
    // `handler` of the internal context places its payloads.
    void set_placer(uint16_t handler, packet_placer *placer);

    void deliver(int source, const void *packet, size_t length) override;
    void *place(int source, const void *head, size_t head_length, size_t length, uint64_t &placement) override;
    void placed(uint64_t placement, ccs_plugin_status_t status) override;
    // Takes a large message's header whose payload its transport keeps:
    // it goes through the context's order as any packet.
    bool deliver_parked(int source, const void *head, size_t head_length, size_t length, std::weak_ptr<transport> route,
                        uint64_t parked) override;
    // Fetches a kept payload to `to`; `placer` hears placed() with `args`
    // as for a placed packet. Not OK: nothing was started, nothing will
    // be heard.
    ccs_status_t fetch_parked(parked_payload &payload, uint8_t *to, packet_placer *placer, int source,
                              const uint64_t *args, size_t nargs);
    // Fails what is queued for the peer, refuses new sends to it and tells
    // every context's error handler.
    void peer_failed(int peer, const std::string &reason) override;
    void send_complete(uint64_t token, ccs_plugin_status_t status) override;
    // For a plugin's progress that changes a peer's send side itself;
    // only where the route takes sends beside the API lock.
    void peer_send_lock(int peer, bool take) override {
        if (peer < 0 || static_cast<size_t>(peer) >= peers_.size()) return;
        peer_state &p = peers_[static_cast<size_t>(peer)];
        if (!p.beside) return;
        if (take) p.lock.take();
        else p.lock.give();
    }
    // Also told when a peer fails (the RMA engine fails what it waits for).
    void set_peer_failed_hook(std::function<void(int)> hook) { on_peer_failed_ = std::move(hook); }
    void set_header_sink(header_sink *sink) { header_sink_ = sink; }
    bool peer_has_failed(int peer) const { return peers_[static_cast<size_t>(peer)].failed; }
    // The first failure seen, for calls that need every peer (barrier).
    bool any_peer_failed() const { return !failure_.empty(); }
    // Once a peer is known to have failed, how long a wait still waits for
    // a live process (whose runtime may have given up instead of joining)
    // or for memory a dead one may have been the writer of: the barrier's
    // rounds, collectives' receives and ccs_wait_until alike.
    static constexpr std::chrono::seconds failure_grace{2};
    const std::string &failure() const { return failure_; }
    // The first failure of each counter, shared with the RMA engine.
    failure_notes &notes() { return notes_; }

    // Progress pieces; each returns the number of events handled.
    int push_queues();
    int run_completions();
    int deliver_self();
    // While the progress thread polls: messages of contexts whose handlers
    // must run on the application's thread wait, in arrival order, for
    // run_deferred() there.
    // Completion callbacks likewise (counters alone move at once).
    void set_deferring(bool on) { deferring_ = on; }
    bool deferring() const { return deferring_; }
    bool deferred_waiting() const { return !deferred_.empty() || !deferred_completions_.empty(); }
    // Deferred payloads past CCS_AM_QUEUE_LIMIT: the progress thread stops
    // taking messages in (senders feel the back-pressure) until the
    // application runs them.
    bool deferred_full() const { return deferred_bytes_ > queue_limit_; }
    int run_deferred();
    // Runs `c` now, or keeps it for run_deferred() (any engine's).
    void complete_or_defer(pending_completion &&c) {
        if (deferring_ && c.completion.callback) [[unlikely]] {
            const context *ctx = contexts_.by_id(c.context);
            if (!ctx || !ctx->handlers_on_progress_thread()) {
                deferred_completions_.push_back(std::move(c));
                return;
            }
        }
        complete(c, notes_);
    }

    // Counts and logs a packet from `source` that breaks the wire format.
    void drop_malformed(int source, const char *why);
    // Completes `c` in the next progress, with the engine's handler depth
    // raised (for work that finishes outside a handler or callback).
    void add_completion(pending_completion &&c) { completions_.push_back(std::move(c)); }
    // The largest packet the route to `peer` takes; 0 for this process.
    size_t packet_limit(int peer) const { return peers_[static_cast<size_t>(peer)].max_packet; }
    // Whether the route to `peer` lands placeable packets in place
    // (declares am_placeable_max).
    bool receives_in_place(int peer) const { return peers_[static_cast<size_t>(peer)].placeable_max > 0; }
    // The largest payload send_placeable sends to `peer` as one packet
    // behind `nargs` arguments; 0 for this process.
    size_t placeable_limit(int peer, size_t nargs) const {
        const peer_state &p = peers_[static_cast<size_t>(peer)];
        const size_t head = sizeof(wire::header) + nargs * sizeof(uint64_t);
        if (p.placeable_max) return p.placeable_max;
        return p.max_packet > head ? p.max_packet - head : 0;
    }

    bool over_queue_limit() const { return stats_.queue_bytes > queue_limit_; }
    bool sends_pending() const {
        return !backlog_.empty() || !self_queue_.empty() || !completions_.empty() || !nocopy_.empty();
    }
    bool in_callback() const { return depth_ > 0; }
    // Without the messages fast calls sent (fast_path::sum has those).
    const am_stats &stats() const { return stats_; }
    const byte_pool &buffers() const { return buffers_; }
    // Messages partly received now.
    size_t reassembling() const { return partial_.size(); }
    // Releases what is half received for context `id` (its later packets
    // are dropped: the context is gone).
    void context_destroyed(uint16_t id);

private:
    struct outgoing {
        wire::header header{};
        std::array<uint64_t, CCS_AM_MAX_ARGS> args{};
        const uint8_t *data = nullptr;  // the user's buffer, or owned.data()
        byte_buffer owned;
        std::shared_ptr<const dd::program> layout;  // set: pack from data
        int64_t layout_count = 0;
        const uint8_t *head = nullptr;  // contiguous bytes before the layout's
        size_t head_length = 0;
        size_t total = 0;
        size_t offset = 0;              // bytes already handed to the transport
        bool fragmented = false;
        uint32_t message = 0;           // fragment message number
        ccs_completion_t completion{};
        bool has_completion = false;
        bool started = false;           // at least one packet went
        bool queued = false;            // counted in its context's queued_sends
    };
    struct peer_state {
        transport *route = nullptr;
        size_t max_packet = 0;
        size_t nocopy_min = 0;          // packets this large go without a copy; 0: never
        size_t placeable_max = 0;       // attr am_placeable_max
        bool sequenced = false;         // transport does not order: add seq
        bool beside = false;            // route takes sends beside the API lock
        // Held by whoever works on the queue, the sequence numbers to this
        // peer or the route's sends to it, while fast paths are on.
        send_lock lock;
        std::deque<outgoing> queue;
        uint32_t next_message = 0;
        bool backlogged = false;        // listed in backlog_
        bool failed = false;
    };
    struct partial_message {
        wire::header header{};
        std::array<uint64_t, CCS_AM_MAX_ARGS> args{};
        byte_buffer data;  // not initialised: fragments fill it
        size_t received = 0;
        // The sender gave up on it: drop fragments until `abandoned_after`
        // bytes arrived in all, then forget the message.
        bool abandoned = false;
        size_t abandoned_after = 0;
    };
    // A packet the transport sends from the user's buffer: its head lives
    // here until the transport says it is done.
    struct nocopy_send {
        std::vector<uint8_t> head;
        ccs_completion_t completion;
        int target = -1;
        uint16_t context = 0;
    };

    // The steps of send() (am_send.cpp).
    ccs_status_t send_to_self(context &ctx, uint16_t handler, const uint64_t *args, size_t nargs,
                              const payload_source &data, const ccs_completion_t *completion, bool large);
    // Packets of `o` until done or the transport pushes back, then the
    // rest queued (copied from `data` where the caller may not keep it).
    ccs_status_t send_or_queue(int target, peer_state &p, outgoing &&o, const payload_source &data);

    static bool done(const outgoing &o) { return o.started && o.offset >= o.total; }
    // A packet without payload telling the target to drop message `message`.
    static bool abandon_notice(const outgoing &o) { return (o.header.flags & wire::abandoned) != 0; }
    // Writes the packet head (header, args, fragment header) for the next
    // `chunk` bytes of `o`; returns its size.
    static size_t write_head(const outgoing &o, size_t chunk, uint8_t *head);
    // Header (its length set to `chunk`) and args; returns their size.
    static size_t write_packet_head(wire::header h, const uint64_t *args, size_t chunk, uint8_t *head);
    // A whole message from the user's buffer (`placeable`: by the plugin's
    // am_send_placeable), counted, its completion kept or queued: OK. AGAIN:
    // use the copying path (also where the plugin has no such send, which
    // is then not tried again for the peer); anything else: refused.
    // The head of a rendezvous packet a transport offers (place,
    // deliver_parked), checked as deliver() checks a packet: a known
    // source, at most CCS_AM_MAX_ARGS args within it, and a length that
    // adds up to `inline_length` bytes after the args plus the `length`
    // the transport fetches. False: malformed.
    bool read_rendezvous_head(int source, const void *head, size_t head_length, size_t length, wire::header &h,
                              size_t &inline_length) const;
    // `inline_head`: bytes sent after the args, before the payload.
    ccs_plugin_status_t send_nocopy(int target, peer_state &p, const outgoing &o, bool placeable = false,
                                    const uint8_t *inline_head = nullptr, size_t inline_length = 0);
    // Hands the next packet of `o` to the transport.
    ccs_plugin_status_t send_packet(int target, peer_state &p, outgoing &o);
    // Counts and reports a send the transport refused; out of line.
    [[gnu::cold]] ccs_status_t send_failed(int target, const peer_state &p, ccs_plugin_status_t st);
    // `detail`: what went wrong, for a failure.
    void finish(outgoing &o, ccs_status_t status, std::string detail = {});
    // A queued message the transport refused: its completion hears of it,
    // or, without one, the context's error handler (the caller was told
    // CCS_OK when it was queued).
    [[gnu::cold]] void queued_send_refused(int target, const peer_state &p, outgoing &o, ccs_plugin_status_t st);
    void enqueue(int target, peer_state &p, outgoing &&o);
    // `o` was refused (`why`) after part of it went: queue, first for its
    // peer, a notice that tells the target to drop that part (and, if
    // sequenced, not to wait for the message), unless the peer is gone.
    void abandon(int target, peer_state &p, const outgoing &o, ccs_plugin_status_t why);
    // The notice itself was refused; out of line.
    [[gnu::cold]] void abandon_notice_refused(int target, const peer_state &p, const outgoing &o,
                                              ccs_plugin_status_t st);
    int push_queue(int target);

    // `owned`: the payload's buffer if it is the engine's (a reassembled
    // message), kept instead of copied if the message has to wait.
    // `parked`: the rest of its payload, kept by the transport.
    void on_message(int source, context &ctx, const wire::header &h, const uint64_t *args, const uint8_t *payload,
                    size_t length, byte_buffer *owned = nullptr, parked_payload *parked = nullptr);
    // Runs the handler, or defers the message (set_deferring).
    void dispatch(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs, const void *payload,
                  size_t length, bool large, parked_payload *parked = nullptr);
    // Completes (or defers) every completion in `list`, which callbacks
    // may add to meanwhile; how many there were.
    int complete_all(std::vector<pending_completion> &list);
    void dispatch_now(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                      const void *payload, size_t length, bool large, parked_payload *parked = nullptr);
    // The whole payload as contiguous bytes (packed if it has a layout).
    byte_buffer copy_payload(const payload_source &data);
    // Bytes [offset, offset + length) of a payload with a layout (its head,
    // then the packed elements) into `to`.
    static void pack_payload(const dd::program &layout, int64_t count, const uint8_t *data, const uint8_t *head,
                             size_t head_length, size_t offset, uint8_t *to, size_t length);
    void drop_abandoned(int source, context &ctx, const wire::header &h, const wire::fragment_header &f);
    // Delivers the messages of `source` that waited for the one just
    // delivered or skipped.
    void deliver_held(context &ctx, int source);

    context_table &contexts_;
    int rank_;
    size_t queue_limit_;
    byte_pool buffers_;
    std::vector<peer_state> peers_;
    std::vector<int> backlog_;  // peers with a non-empty queue
    std::deque<stored_message> self_queue_;
    struct deferred_message {
        int source;
        stored_message message;
    };
    std::deque<deferred_message> deferred_;
    std::vector<pending_completion> deferred_completions_;
    size_t deferred_bytes_ = 0;
    bool deferring_ = false;
    std::vector<pending_completion> completions_;
    failure_notes notes_;
    std::map<uint64_t, nocopy_send> nocopy_;        // by token
    uint64_t next_nocopy_token_ = 1;
    std::vector<uint8_t> scratch_;                  // one packet's packed payload
    std::map<uint64_t, partial_message> partial_;  // key: source << 32 | message
    int depth_ = 0;                                  // inside handlers / callbacks
    std::string failure_;                            // first peer failure
    std::function<void(int)> on_peer_failed_;
    header_sink *header_sink_ = nullptr;
    std::map<uint16_t, packet_placer *> placers_;  // by internal handler
    // Payloads a transport is fetching into place.
    struct placement {
        packet_placer *placer = nullptr;
        int source = -1;
        std::array<uint64_t, CCS_AM_MAX_ARGS> args{};
        uint8_t nargs = 0;
        size_t length = 0;
    };
    std::map<uint64_t, placement> placing_;
    uint64_t next_placement_ = 1;
    am_stats stats_;
};

}  // namespace ccs
