// The running library: bootstrap, transports, contexts, the AM engine and
// progress. One instance per process, shared by every runtime that called
// ccs_init (reference counted).
#pragma once

#include "core/am/am_engine.hpp"
#include "core/am/large_am.hpp"
#include "core/coll/allgather.hpp"
#include "core/coll/barrier.hpp"
#include "core/coll/coll_engine.hpp"
#include "core/coll/team_table.hpp"
#include "core/internal_handlers.hpp"
#include "core/bootstrap/bootstrap.hpp"
#include "context.hpp"
#include "core/memory/memory_registry.hpp"
#include "core/rma/rma_engine.hpp"
#include "core/progress/progress_thread.hpp"
#include "core/progress/sleeper.hpp"
#include "core/rma/symmetric_blocks.hpp"
#include "util/api_lock.hpp"
#include "util/backoff.hpp"
#include "util/learned_spin.hpp"
#include "util/poll_gap.hpp"
#include "util/tick_clock.hpp"
#include "wireup.hpp"

#include <ccs/ccs.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ccs {

class runtime {
public:
    // ccs_init / ccs_finalize: reference counted. Each init asks for a
    // thread level (ccs_thread_level_t) and maybe the progress thread; the
    // library provides the highest level asked for so far.
    static ccs_status_t acquire(int thread_level, bool progress_thread);
    static ccs_status_t release();
    // The running instance; null before ccs_init and after the last finalize.
    static runtime *current() { return current_; }  // inline: every call asks
    static bool finalized();

    int rank() const { return rank_; }
    int thread_level() const { return thread_level_; }
    // Where the progress thread runs, or that there is none.
    std::string progress_thread_binding() const {
        return progress_thread_.running() ? progress_thread_.binding() : "off";
    }
    int size() const { return size_; }
    // A runtime asked for level multiple while the lock is biased.
    void unbias_lock();
    // Level multiple: the common calls run beside the API lock
    // (util/fast_path.hpp), sends through the routes that allow it.
    void enable_fast_paths();
    // ccs_abort: asks the launcher to end the job; the caller then exits.
    void abort_job(int exit_code, const std::string &reason) {
        if (boot_) boot_->abort_job(exit_code, reason);
    }
    context_table &contexts() { return contexts_; }
    am_engine &am() { return *am_; }
    rma_engine &rma() { return *rma_; }
    large_am &large() { return *large_; }
    memory_registry &memory() { return *memory_; }
    symmetric_blocks &symmetric() { return symmetric_; }
    coll::team_table &teams() { return *teams_; }
    bool symmetric_same_address() const { return settings_.symmetric_same_address; }
    // Inside a handler or a completion callback of any engine.
    bool in_callback() const {
        return am_->in_callback() || (rma_ && rma_->in_callback()) || (coll_ && coll_->in_callback());
    }

    // One pass over everything that can make progress; backs off when idle.
    // True when it did something. Never sleeps.
    bool progress();
    // The caller started an operation: not idle, even if no transport event
    // follows (a put by cross-memory attach gives the target none).
    // A blocking wait spins again before it sleeps.
    void note_activity() {
        backoff_.reset();
        wait_begins();
    }
    // The same from a fast call beside the API lock (util/fast_path.hpp):
    // the next shared poll notes it. Written only when not already set,
    // so threads sending all the time do not pass the line around.
    void note_activity_beside() {
        if (!activity_beside_.load(std::memory_order_relaxed)) activity_beside_.store(true, std::memory_order_relaxed);
    }
    // A blocking wait starts: it spins as learned (learn_spin) before it
    // sleeps, however long the previous waits found nothing (a put brings
    // no event that would end their idleness).
    void wait_begins() {
        pace_.idle_polls = 0;
        pace_.first_idle = 0;
    }
    // Progress until done() holds, sleeping when idle (wait_pass).
    template <typename Done>
    void progress_until(Done done) {
        wait_begins();
        while (!done()) wait_pass();
        wait_ends();
    }
    // A blocking wait ended: one that went idle sets how long the next
    // spins (learn_spin), also when an event ended it (a completion).
    void wait_ends() {
        if (pace_.first_idle != 0) [[unlikely]]
            learn_spin();
    }
    // One pass of a blocking wait: progress, and once the wait has been
    // idle for CCS_WAIT_SPIN_US, a sleep until a transport has something,
    // in slices that grow to CCS_WAIT_SLEEP_MAX_US (a wait for memory that
    // a put changes sees no event). Never sleeps inside a handler.
    void wait_pass() {
        if (!progress()) idle_wait();
    }
    // A blocking wait found nothing to do: counts, and every 64 idle polls
    // looks whether it has been idle long enough to sleep. Inline and one
    // count per poll: a wait for a fast answer is a tight loop.
    void idle_wait() {
        const uint32_t polls = ++pace_.idle_polls;
        if (polls == 1) {
            pace_.idle_since = tick_clock::now();
            pace_.slice = first_sleep;
            if (pace_.first_idle == 0) pace_.first_idle = pace_.idle_since;
        }
        if ((polls & 63) == 0) [[unlikely]]
            sleep_if_idle_long();
    }
    // Progress until done() holds, where done() reads memory another
    // process writes (ccs_wait_until). Between polls it looks at the word
    // (looked_between_polls): tightly for the first `wait_tight` of the
    // wait, then a wait gap apart (see util/poll_gap.hpp), except on a
    // crowded node, where the back-off yields instead; then the wait
    // sleeps as wait_pass does. False, with
    // done() still false, once a peer failure is detected during the wait:
    // the writer may be gone; where one was known before (the progress
    // thread found it), after `am_engine::failure_grace` more.
    template <typename Done>
    bool wait_on_memory(Done done) {
        const bool held = wait_on_memory_until(done);
        wait_ends();
        return held;
    }
    template <typename Done>
    bool wait_on_memory_until(Done &done) {
        wait_begins();
        const uint64_t failures = am_->stats().peers_failed;
        uint64_t tight_until = 0, give_up_at = 0;
        uint32_t idle = 0;
        bool spaced = false;
        while (!done()) {
            if (progress()) continue;
            if (am_->stats().peers_failed != failures) return done();
            if (failures > 0 && idle % 64 == 0) {
                const uint64_t now = tick_clock::now();
                if (give_up_at == 0) give_up_at = now + tick_clock::ticks(am_engine::failure_grace);
                else if (now >= give_up_at) return done();
            }
            // Clock reads only while idle, off the answer's path, and in the
            // tight part every fourth poll: a read costs about a poll.
            if (++idle == 1) tight_until = tick_clock::now() + wait_tight_ticks_;
            if (!spaced) {
                if (looked_between_polls(done, false)) return true;
                if (idle % 4 != 0 || tick_clock::now() < tight_until) continue;
                spaced = true;
            }
            if (!backoff_.crowded() && looked_between_polls(done, true)) return true;
            idle_wait();
        }
        return true;
    }
    // A put into mapped memory lands without a poll, and a poll of the
    // transports costs many looks at the word: between two polls the word
    // is looked at `looks_between_polls` times, one pause apart while the
    // wait is tight, a wait gap apart once it is spaced. True once it
    // holds.
    template <typename Done>
    bool looked_between_polls(Done &done, bool spaced) {
        for (int i = 0; i < looks_between_polls; ++i) {
            if (spaced) wait_gap_.wait();
            else cpu_pause();
            if (done()) return true;
        }
        return false;
    }
    static constexpr int looks_between_polls = 16;
    // How long a wait for memory polls tightly before the gap: an answer
    // passed between nearby cores comes within it, where a gap would only
    // delay it; where lines pass slowly it comes later, into spaced polls.
    // 200 ns is where the fast case stopped gaining.
    static constexpr std::chrono::nanoseconds wait_tight{200};
    // A wait's first sleep; each next one is twice as long, up to
    // CCS_WAIT_SLEEP_MAX_US.
    static constexpr std::chrono::microseconds first_sleep{20};

    // The barrier over all processes (coll/barrier.hpp); also ORs `flags`
    // over all processes into *all_flags.
    ccs_status_t barrier(uint64_t flags = 0, uint64_t *all_flags = nullptr) { return barrier_->run(flags, all_flags); }
    // Every process's blob in rank order (coll/allgather.hpp).
    ccs_status_t allgather(const blob &mine, std::vector<blob> &all) { return allgather_->run(mine, all); }
    // Collective. `local` is this process's verdict on the arguments: every
    // process takes part even when its own arguments are bad, so a mistake
    // on one process fails the call everywhere instead of hanging the rest.
    ccs_status_t context_create(ccs_status_t local, uint64_t flags, const char *name,
                                const context_handlers &given, ccs_context_t *out);
    ccs_status_t context_destroy(context &ctx);

    std::vector<std::pair<std::string, uint64_t>> stats() const;
    const std::vector<std::unique_ptr<transport>> &transports() const { return wired_.transports; }
    // The transport that reaches `peer`; null for this process.
    transport *route(int peer) const { return wired_.route[static_cast<size_t>(peer)]; }
    bool same_node(int peer) const {
        return wired_.node_of_rank[static_cast<size_t>(peer)] == wired_.node_of_rank[static_cast<size_t>(rank_)];
    }

private:
    // The core's environment parameters (util/params.cpp lists them).
    struct settings {
        size_t queue_limit = 0;                       // CCS_AM_QUEUE_LIMIT
        size_t buffer_cache = 0;                      // CCS_AM_BUFFER_CACHE
        size_t eager_limit = 0;                       // CCS_AM_EAGER_LIMIT
        size_t large_window = 0;                      // CCS_AM_LARGE_WINDOW
        size_t max_unused = 0;                        // CCS_RCACHE_MAX_UNUSED
        std::chrono::nanoseconds wait_gap{0};         // CCS_WAIT_GAP_NS
        bool rma_emulate = false;                     // CCS_RMA_EMULATE
        size_t rma_layout_piece = 0;                  // CCS_RMA_LAYOUT_PIECE
        bool expose_all = false;                      // CCS_RMA_EXPOSE
        bool symmetric_same_address = true;           // CCS_SYMMETRIC_ADDRESS
        std::chrono::nanoseconds wait_spin{0};        // CCS_WAIT_SPIN_US
        std::chrono::nanoseconds wait_spin_max{0};    // CCS_WAIT_SPIN_MAX_US
        std::chrono::nanoseconds wait_sleep_max{0};   // CCS_WAIT_SLEEP_MAX_US
        bool progress_thread = false;                 // CCS_PROGRESS_THREAD
        coll::cross_memory_use coll_cross_memory{};   // CCS_COLL_CROSS_MEMORY
    };
    static ccs_status_t read_settings(settings &out);

    runtime() = default;
    ccs_status_t start();
    // Subsystems on the internal context, in the same order everywhere.
    ccs_status_t install_subsystems();
    void stop();
    int poll();
    [[gnu::noinline]] int poll_shared();
    // The wait has been idle for spin_.ticks(): sleeps (longer each time).
    void sleep_if_idle_long();
    // How long the wait that ends was idle sets the next one's spin
    // (util/learned_spin.hpp).
    void learn_spin();
    // The progress thread's round (progress_thread.hpp): true when the
    // application polled since the last one.
    bool serve_in_background();
    // The progress thread, without the lock: whether the application
    // polled since it last looked.
    bool application_polled();
    void start_progress_thread();

    settings settings_;
    std::unique_ptr<bootstrap> boot_;
    static inline runtime *current_ = nullptr;
    std::atomic<bool> activity_beside_{false};
    int rank_ = 0;
    int size_ = 1;
    context_table contexts_;
    std::unique_ptr<am_engine> am_;
    std::unique_ptr<memory_registry> memory_;
    std::unique_ptr<internal_handlers> internal_handlers_;
    std::unique_ptr<coll::barrier> barrier_;
    std::unique_ptr<coll::allgather> allgather_;
    std::unique_ptr<coll::coll_engine> coll_;
    std::unique_ptr<coll::team_table> teams_;
    symmetric_blocks symmetric_;
    std::unique_ptr<rma_engine> rma_;
    std::unique_ptr<large_am> large_;
    wireup_result wired_;
    backoff backoff_;
    poll_gap wait_gap_;  // CCS_WAIT_GAP_NS
    uint64_t wait_tight_ticks_ = 0;
    // The blocking waits' idleness: since when (this stretch, and the
    // wait's first), and the next sleep's length.
    struct wait_pace {
        uint32_t idle_polls = 0;
        uint64_t idle_since = 0;  // tick_clock
        uint64_t first_idle = 0;  // tick_clock; 0: the wait has not been idle
        std::chrono::nanoseconds slice{};
    };
    wait_pace pace_;
    learned_spin spin_;  // CCS_WAIT_SPIN_US, CCS_WAIT_SPIN_MAX_US
    sleeper sleeper_;
    int thread_level_ = CCS_THREAD_SINGLE;
    // Application passes through progress(); the progress thread stays
    // out of the way while they go on.
    // Counted by the application's polls (under the lock, so one writer at
    // a time); the progress thread reads it without the lock.
    std::atomic<uint64_t> application_polls_{0};
    uint64_t application_polls_seen_ = 0;  // the progress thread's
    std::chrono::nanoseconds background_sleep_{0};  // the progress thread's
    progress_thread progress_thread_;
};

}  // namespace ccs
