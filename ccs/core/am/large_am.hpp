// Large active messages (ccs/am_large.h): the sender announces a payload, the
// target's header handler decides where it goes, and the target reads it
// from the sender's memory with the RMA engine where that memory is mapped
// here, else has the sender write it with the RMA engine into the
// destination (cross-memory attach on one node, the transport's put), or,
// where the route has no native get, push it in packets; then it answers
// so the sender's completion runs. Small payloads travel with the
// announcement (eager) and are copied on accept.
//
// The announcement is an ordinary message of the user's context carrying
// wire::large, so header handlers keep the context's order with its other
// messages. The answer travels on the core's internal context.
#pragma once

#include "core/am/am_engine.hpp"
#include "core/am/large_caches.hpp"
#include "core/am/large_wire.hpp"
#include "core/context.hpp"
#include "core/internal_handlers.hpp"
#include "core/memory/memory_registry.hpp"
#include "core/rma/rma_engine.hpp"

#include <ccs/am_large.h>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ccs {

struct large_am_stats {
    uint64_t sent = 0;       // large messages sent
    uint64_t sent_eager = 0; // of those, with their payload
    uint64_t sent_parkable = 0;  // of those, with a payload the target's transport keeps until accepted
    uint64_t answered = 0;   // of those, accepted or refused by the target (the window counts the rest)
    uint64_t received = 0;   // header handlers run
    uint64_t fetched = 0;    // accepted payloads read from the sender or pushed by it
    uint64_t written = 0;    // of those, written into the destination by the sender's RMA
    uint64_t deferred = 0;   // header handlers that left the decision for later
    uint64_t refused = 0;    // refused, or a failed accept
};

class large_am final : public header_sink, public packet_placer {
public:
    // eager_limit: CCS_AM_EAGER_LIMIT, payloads that travel with the header
    // (where the route's packet holds them too). window:
    // CCS_AM_LARGE_WINDOW, unanswered large messages per (context,
    // target); more wait here, not copied, and the context's later
    // messages to that target wait behind them. So a target that defers
    // holds at most `window` headers per sender and context.
    large_am(context_table &contexts, am_engine &am, rma_engine &rma, memory_registry &memory, int rank,
             size_t eager_limit, size_t window);
    ~large_am();
    large_am(const large_am &) = delete;
    large_am &operator=(const large_am &) = delete;

    // Its handlers on the internal context (answer, pull, piece).
    ccs_status_t install(internal_handlers &handlers);

    // What ccs_am_send_large sends: `size` bytes at `base`, or `count`
    // elements of `dd` placed at `base` (dd null: contiguous). Checked by
    // the caller.
    struct sender_payload {
        const uint8_t *base = nullptr;
        size_t size = 0;
        const ccs_datadesc_s *dd = nullptr;
        int64_t count = 0;
    };
    ccs_status_t send(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                      const sender_payload &data, const ccs_completion_t &completion);
    // An ordinary message of `ctx` to `target` while it is holding(target):
    // it waits, copied if it has no completion, behind the large ones.
    ccs_status_t send_behind(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                             const am_engine::payload_source &data, const ccs_completion_t *completion);

    // Where an accepted payload goes: `length` bytes at `base`, or `count`
    // elements of `dd` there.
    struct destination {
        uint8_t *base = nullptr;
        size_t length = 0;
        const ccs_datadesc_s *dd = nullptr;
        int64_t count = 0;
    };
    ccs_status_t accept(const char *call, uint64_t token, const destination &to, const ccs_completion_t *completion);
    ccs_status_t refuse(uint64_t token);

    // packet_placer: pushed pieces into a contiguous destination.
    uint8_t *place(int source, const uint64_t *args, size_t nargs, size_t length) override;
    // A piece that never comes ends its transfer with the transport's
    // reason (CCS_ERR_PEER_FAILED for a dead sender), once no other piece
    // is being written.
    void placed(int source, const uint64_t *args, size_t nargs, size_t length, ccs_plugin_status_t status) override;
    // Pieces of the context's messages a transport is writing into their
    // destinations now (destroying the context waits for them).
    size_t placing(uint16_t ctx) const;

    // header_sink: runs the header handler.
    void on_header(context &ctx, int source, uint16_t handler, const uint64_t *args, size_t nargs,
                   const uint8_t *payload, size_t length, bool large, parked_payload *parked) override;

    // Undecided messages of the context: their senders hear
    // CCS_ERR_CANCELED; so do its messages still waiting here to go.
    void context_destroyed(uint16_t ctx);
    // Sends to the peer complete with CCS_ERR_PEER_FAILED.
    void peer_failed(int peer);

    const large_am_stats &stats() const { return stats_; }
    // Messages whose header handler ran and that are not decided yet.
    size_t undecided() const { return waiting_.size(); }

private:
    enum handler_offset : uint16_t { answer_at, pull_at, piece_at, write_at, written_at, handler_count };

    // A sent message, until the target answers and the transport no longer
    // reads any piece of it that it pushed.
    struct sending {
        int target = -1;
        uint16_t ctx = 0;
        ccs_completion_t completion{};
        ccs_mem_t mem{0};  // fetch: the payload's registration (registrations_)
        const uint8_t *payload = nullptr;  // contiguous: pushed from here if asked
        uint64_t size = 0;
        large_am *owner = nullptr;
        uint64_t op = 0;
        uint32_t pieces_out = 0;  // pushed pieces or a write the transport may still read
        bool ended = false;       // answered (or failed), waiting for pieces_out
        ccs_status_t end_status = CCS_OK;
        std::string end_detail;
    };
    // A message whose header handler ran, until accepted or refused.
    struct incoming {
        uint16_t ctx = 0;
        int source = -1;
        uint64_t op = 0;  // 0: an ordinary message, no one to answer
        uint64_t size = 0;
        bool eager = false;
        bool push = false;              // the sender pushes once accepted
        const uint8_t *data = nullptr;  // eager: the payload, in the packet or `kept`
        std::vector<uint8_t> kept;      // eager, deferred: the payload copied
        parked_payload parked;          // eager: the payload, kept by the transport (`data` null)
        uint64_t address = 0;
        int64_t count = 0;
        std::vector<uint8_t> key, layout;
    };
    // An accepted payload on its way from the sender.
    struct transfer {
        large_am *self = nullptr;
        uint64_t id = 0;
        uint16_t ctx = 0;
        int source = -1;
        uint64_t op = 0;
        ccs_rkey_t key{};  // keys_'; none when pushed
        // Pushed by the sender (the route has no native get): where its
        // pieces go, and how many bytes came.
        bool pushed = false;
        // Pushed as one write by the sender's RMA engine (`pushed` too): the
        // destination's registration, and `placing` is 1 until the sender
        // says the write ended.
        bool written = false;
        ccs_mem_t mem{0};
        destination to;
        uint64_t size = 0, received = 0;
        // Pieces a transport writes into `to` now: the transfer lives until
        // they are done, even once it has ended (`ending`).
        uint32_t placing = 0;
        uint64_t placing_bytes = 0;
        bool ending = false;
        ccs_status_t end_status = CCS_OK;
        std::string end_detail;
        ccs_completion_t completion{};
        std::unique_ptr<ccs_datadesc_s> remote_dd;  // the sender's layout, while the engine reads it
    };

    // A message waiting here for room (large) or behind one (ordinary).
    struct queued_send {
        bool large = false;
        uint16_t handler = 0;
        uint8_t nargs = 0;
        std::array<uint64_t, CCS_AM_MAX_ARGS> args{};
        sender_payload large_data;
        ccs_datadesc_s layout;  // large_data.dd points here: kept alive
        am_engine::payload_source data;  // ordinary
        std::vector<uint8_t> copy;        // ordinary without completion: its bytes
        ccs_completion_t completion{};
        bool has_completion = false;
    };
    // The sender's write of an accepted payload into the target's
    // destination, until the RMA engine completes it.
    struct outgoing_write {
        large_am *self = nullptr;
        uint64_t id = 0;
        uint64_t op = 0;  // the message (sending_)
        int target = -1;
        uint64_t transfer = 0;  // the target's
        ccs_rkey_t key{};       // keys_'
    };

    // Large messages of one (context, target).
    struct stream {
        uint32_t unanswered = 0;
        std::deque<queued_send> queue;
    };
    using stream_key = std::pair<uint16_t, int>;
    // Sends what waits in the stream while there is room.
    void drain(stream_key key);
    // The context's messages still waiting here complete with CCS_ERR_CANCELED.
    void cancel_queued(uint16_t ctx);
    // A queued message that can no longer go: its completion, or the
    // context's error handler, hears why.
    void fail_queued(context *ctx, int target, queued_send &q, ccs_status_t status, const std::string &detail);
    ccs_status_t send_now(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                          const sender_payload &data, const ccs_completion_t &completion);
    size_t eager_limit_to(int target, size_t nargs) const;
    ccs_status_t send_eager(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                            const sender_payload &data, wire::large_header &h);
    ccs_status_t send_fetch(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                            const sender_payload &data, wire::large_header &h, ccs_mem_t &mem);
    // send_push and send_parkable read a payload nothing registers:
    // send_now checked it is mapped.
    ccs_status_t send_push(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                           wire::large_header &h);
    // Header and payload as one placeable packet, where the route's
    // transport keeps the payload at the target until the header handler
    // decides (UCX's own rendezvous): no round trip before the data moves.
    // `sent` false: it cannot go so now; the message goes as a push.
    ccs_status_t send_parkable(context &ctx, int target, uint16_t handler, const uint64_t *args, size_t nargs,
                               const sender_payload &data, const ccs_completion_t &completion, bool &sent);
    static void on_answer(const ccs_am_message_t *m, void *self);
    // The message ends with `status`: its completion runs once no pushed
    // piece of it is left with the transport (`later`: from the next
    // progress, for callers outside handlers and callbacks).
    void end_sending(std::unordered_map<uint64_t, sending>::iterator it, ccs_status_t status, std::string detail,
                     bool later = false);
    static void on_piece_sent(ccs_status_t status, void *sending);
    // A pushed piece or the write no longer reads the payload: the message
    // ends here if it was answered and this was the last.
    void release_piece(sending &s);
    // Where the route has no native get, the target asks the sender to
    // push the payload in pieces of a packet each, which it copies into
    // the destination as they come: one copy on each side, no reassembly.
    ccs_status_t ask_for_push(incoming &in, std::unique_ptr<transfer> t, const destination &to);
    static void on_pull(const ccs_am_message_t *m, void *self);
    static void on_piece(const ccs_am_message_t *m, void *self);
    // Whether `length` bytes at `offset` from `source` are a piece of pushed
    // transfer `t` that fits what has not arrived or is not being placed.
    static bool piece_fits(const transfer &t, int source, uint64_t offset, uint64_t length);
    // A pushed transfer ends: the completion runs, the sender is answered.
    void finish_push(uint64_t id, ccs_status_t status, const std::string &detail);
    // Ends every pushed transfer `which` picks (a failed sender's, a
    // destroyed context's) with `status`.
    void end_pushed(const std::function<bool(const transfer &)> &which, ccs_status_t status,
                    const std::string &detail);
    // Tells the sender of `op` how its message ended (nothing for op 0).
    void answer(int to, uint64_t op, ccs_status_t status, const std::string &detail);
    // (id, status) to the peer's handler `at` on the internal context, the
    // detail as payload for a failure; nothing to a failed peer (its end
    // hears of that on its own).
    void report(int to, handler_offset at, uint64_t id, ccs_status_t status, const std::string &detail);
    // A message that cannot be taken as accepted: both ends hear why.
    ccs_status_t fail_message(incoming &in, ccs_status_t here, const std::string &detail);
    ccs_status_t accept_eager(incoming &in, const destination &to, const ccs_completion_t *completion);
    // A transfer of an accepted message, not listed yet.
    std::unique_ptr<transfer> new_transfer(const incoming &in, const ccs_completion_t *completion);
    // The transport fetches a kept payload into a contiguous destination
    // (placed() ends it as a pushed transfer); a datadesc destination has
    // the sender push it instead.
    ccs_status_t accept_parked(incoming &in, const destination &to, const ccs_completion_t *completion);
    ccs_status_t accept_fetch(const char *call, incoming &in, const destination &to,
                              const ccs_completion_t *completion);
    static void on_fetched(ccs_status_t status, void *arg);
    // Where the route is shared memory and the sender's payload is not
    // mapped here, the sender writes it (large_write.cpp): cross-memory
    // attach writes faster than it reads, and a destination the sender
    // maps takes a plain copy. Network routes read, as their own
    // rendezvous does. The target registers the destination and sends its
    // key (`write_at`); the sender's RMA engine puts the payload and says
    // how that ended (`written`).
    ccs_status_t ask_to_write(incoming &in, std::unique_ptr<transfer> t, const destination &to);
    static void on_write_at(const ccs_am_message_t *m, void *self);
    static void on_write_done(ccs_status_t status, void *arg);
    static void on_written(const ccs_am_message_t *m, void *self);
    std::string who() const { return "rank " + std::to_string(rank_); }

    context_table &contexts_;
    am_engine &am_;
    rma_engine &rma_;
    int rank_;
    size_t eager_limit_;
    size_t window_;
    std::map<stream_key, stream> streams_;
    // Handler ids on the internal context, from answer_handler_: the
    // answer to the sender, the target's request to push the payload, one
    // pushed piece, the target's request to write it, the sender's report.
    uint16_t answer_handler_ = 0;
    uint64_t next_op_ = 1;
    uint64_t next_token_ = 1;
    uint64_t next_transfer_ = 1;
    std::unordered_map<uint64_t, sending> sending_;
    std::unordered_map<uint64_t, incoming> waiting_;  // by token
    std::unordered_map<uint64_t, std::unique_ptr<transfer>> transfers_;
    uint64_t next_write_ = 1;
    std::unordered_map<uint64_t, std::unique_ptr<outgoing_write>> writes_;
    memory_registry &memory_;
    payload_registrations registrations_;
    sender_keys keys_;
    large_am_stats stats_;
};

}  // namespace ccs
