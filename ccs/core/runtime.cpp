#include "runtime.hpp"

#include "api_guard.hpp"
#include "util/error.hpp"
#include "util/fast_path.hpp"
#include "util/log.hpp"
#include "util/params.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace ccs {
namespace {

enum class phase { never, running, finalized };
phase g_phase = phase::never;
int g_references = 0;

}  // namespace

bool runtime::finalized() { return g_phase == phase::finalized; }

// Declared in api_guard.hpp; out of line, since every call checks and
// almost none fails.
ccs_status_t bad_context_target(const char *call, ccs_context_t handle, int target, const runtime &rt,
                                const context *ctx) {
    if (!ctx)
        return fail(CCS_ERR_INVALID_CONTEXT, std::string(call) + ": context " + std::to_string(handle.id) +
                                                 " was never created or has been destroyed");
    return fail(CCS_ERR_INVALID_RANK, std::string(call) + ": target " + std::to_string(target) +
                                          " is outside [0, " + std::to_string(rt.size()) + ")");
}

ccs_status_t bad_handler_id(const char *call, uint16_t handler_id) {
    return fail(CCS_ERR_INVALID_HANDLER, std::string(call) + ": handler id " + std::to_string(handler_id) +
                                             " is not below CCS_AM_MAX_HANDLERS (" +
                                             std::to_string(CCS_AM_MAX_HANDLERS) + ")");
}

ccs_status_t bad_handler_args(const char *call, uint16_t handler_id, const uint64_t *args, size_t nargs) {
    if (handler_id >= CCS_AM_MAX_HANDLERS) return bad_handler_id(call, handler_id);
    if (nargs > CCS_AM_MAX_ARGS)
        return fail(CCS_ERR_TOO_MANY_ARGS, std::string(call) + ": " + std::to_string(nargs) + " arguments, at most " +
                                               std::to_string(CCS_AM_MAX_ARGS));
    if (nargs > 0 && !args) return fail(CCS_ERR_INVALID_ARG, std::string(call) + ": args is NULL but nargs > 0");
    return CCS_OK;  // not reached: the caller saw one of the above
}

ccs_status_t not_running(const char *call) {
    return fail(CCS_ERR_NOT_INITIALIZED, std::string(call) + ": CCS is not initialized" +
                                             (runtime::finalized() ? " (ccs_finalize was called)"
                                                                   : " (call ccs_init first)"));
}

ccs_status_t runtime::acquire(int thread_level, bool progress_thread) {
    if (g_phase == phase::finalized)
        return fail(CCS_ERR_FINALIZED, "ccs_init after the last ccs_finalize: CCS cannot be restarted");
    if (g_phase == phase::running) {
        ++g_references;
        runtime *rt = current_;
        rt->thread_level_ = std::max(rt->thread_level_, thread_level);
        if (rt->thread_level_ == CCS_THREAD_MULTIPLE) {
            if (api_lock::biased()) rt->unbias_lock();
            api_lock::set(true);
            rt->enable_fast_paths();
        }
        if (progress_thread && !rt->progress_thread_.running()) rt->start_progress_thread();
        return CCS_OK;
    }
    std::unique_ptr<runtime> rt(new runtime());
    rt->thread_level_ = thread_level;
    const ccs_status_t st = rt->start();
    if (st != CCS_OK) {
        rt->stop();
        return st;
    }
    current_ = rt.release();
    g_phase = phase::running;
    g_references = 1;
    if (current_->thread_level_ == CCS_THREAD_MULTIPLE) {
        api_lock::set(true);
        current_->enable_fast_paths();
    }
    if (progress_thread || current_->settings_.progress_thread) current_->start_progress_thread();
    return CCS_OK;
}

ccs_status_t runtime::release() {
    if (g_phase != phase::running) return not_running("ccs_finalize");
    if (current_->am().in_callback())
        return fail(CCS_ERR_IN_HANDLER, "ccs_finalize called from a handler or callback");
    if (--g_references > 0) return CCS_OK;
    runtime *rt = current_;
    // The progress thread goes first; it needs the lock to finish a round.
    if (rt->progress_thread_.running()) {
        const api_lock::released unlocked;
        rt->progress_thread_.stop();
    }
    // Hand every queued message to its transport, then make sure every
    // process did the same before anyone tears its transports down.
    rt->progress_until([rt] { return !rt->am().sends_pending(); });
    const ccs_status_t st = rt->barrier();
    fast_path::set_enabled(false);
    rt->stop();
    delete rt;
    current_ = nullptr;
    g_phase = phase::finalized;
    api_lock::set(false);
    api_lock::set_biased(false);
    return st;
}

// Every environment parameter of the core, read before anything starts:
// a bad value fails ccs_init with nothing to undo.
ccs_status_t runtime::read_settings(settings &out) {
    param_declare_core();
    std::string error, emulate, expose, symmetric, cross_memory, progress_thread;
    size_t spin_us = 0, spin_max_us = 0, sleep_max_us = 0;
    log_level level;  // only checked here: the log reads its level itself
    if (!log_level_param(level, error) || !param_size("CCS_AM_QUEUE_LIMIT", "bytes", SIZE_MAX, out.queue_limit, error) ||
        !param_size("CCS_AM_BUFFER_CACHE", "bytes", SIZE_MAX, out.buffer_cache, error) ||
        !param_size("CCS_AM_EAGER_LIMIT", "bytes", SIZE_MAX, out.eager_limit, error) ||
        !param_size("CCS_AM_LARGE_WINDOW", "messages", SIZE_MAX, out.large_window, error) ||
        !param_size("CCS_RCACHE_MAX_UNUSED", "bytes", SIZE_MAX, out.max_unused, error) ||
        !wait_gap_param(out.wait_gap, error) ||
        !param_choice("CCS_RMA_EMULATE", {"0", "1"}, emulate, error) ||
        !param_size("CCS_RMA_LAYOUT_PIECE", "bytes", INT64_MAX, out.rma_layout_piece, error) ||
        !param_choice("CCS_RMA_EXPOSE", {"registered", "all"}, expose, error) ||
        !param_choice("CCS_SYMMETRIC_ADDRESS", {"same", "offset"}, symmetric, error) ||
        !param_choice("CCS_COLL_CROSS_MEMORY", {"auto", "always", "never"}, cross_memory, error) ||
        !param_size("CCS_WAIT_SPIN_US", "microseconds", 60000000, spin_us, error) ||
        !param_size("CCS_WAIT_SPIN_MAX_US", "microseconds", 60000000, spin_max_us, error) ||
        !param_size("CCS_WAIT_SLEEP_MAX_US", "microseconds", 1000000, sleep_max_us, error) ||
        !param_choice("CCS_PROGRESS_THREAD", {"0", "1"}, progress_thread, error))
        return fail(CCS_ERR_INVALID_ARG, "ccs_init: " + error);
    if (sleep_max_us == 0)
        return fail(CCS_ERR_INVALID_ARG, "ccs_init: CCS_WAIT_SLEEP_MAX_US='0': a sleep lasts at least 1 µs");
    out.wait_spin = std::chrono::microseconds(spin_us);
    out.wait_spin_max = std::chrono::microseconds(spin_max_us);
    out.wait_sleep_max = std::chrono::microseconds(sleep_max_us);
    out.progress_thread = progress_thread == "1";
    out.symmetric_same_address = symmetric == "same";
    out.rma_emulate = emulate == "1";
    out.expose_all = expose == "all";
    out.coll_cross_memory = cross_memory == "auto"     ? coll::cross_memory_use::automatic
                            : cross_memory == "always" ? coll::cross_memory_use::always
                                                       : coll::cross_memory_use::never;
    return CCS_OK;
}

ccs_status_t runtime::start() {
    ccs_status_t st = read_settings(settings_);
    if (st != CCS_OK) return st;
    boot_ = bootstrap_create(st);
    if (st != CCS_OK) return st;
    rank_ = boot_->rank();
    size_ = boot_->size();
    log_set_rank(rank_);

    wait_gap_ = poll_gap(settings_.wait_gap);
    wait_tight_ticks_ = tick_clock::ticks(wait_tight);

    context *internal = nullptr;
    // The core's own handlers (RMA at the target, collectives, barrier)
    // serve the process from the progress thread too.
    st = contexts_.create(CCS_CONTEXT_HANDLERS_ON_PROGRESS_THREAD, "ccs-internal", size_, internal);
    if (st != CCS_OK) return st;
    internal_handlers_ = std::make_unique<internal_handlers>(*internal);
    am_ = std::make_unique<am_engine>(contexts_, rank_, size_, settings_.queue_limit, settings_.buffer_cache);

    st = wireup(*boot_, *am_, thread_level_, wired_);
    if (st != CCS_OK) return st;
    for (int peer = 0; peer < size_; ++peer)
        if (wired_.route[static_cast<size_t>(peer)]) am_->set_route(peer, wired_.route[static_cast<size_t>(peer)]);
    for (const auto &t : wired_.transports)
        log_message(log_level::info, "transport " + t->name() + " (" + t->path() + ") connected");
    long on_node = 0;
    for (int peer = 0; peer < size_; ++peer) on_node += same_node(peer);
    backoff_.set_oversubscribed(on_node > ::sysconf(_SC_NPROCESSORS_ONLN));
    spin_.set_bounds(tick_clock::ticks(settings_.wait_spin), tick_clock::ticks(settings_.wait_spin_max));
    std::vector<transport *> all;
    for (const auto &t : wired_.transports) all.push_back(t.get());
    const std::string no_sleep = sleeper_.set_up(all);
    if (!no_sleep.empty())
        log_message(log_level::info, "blocking waits sleep in slices of " +
                                         std::to_string(sleeper::slice_without_wakeup.count()) + " µs: " + no_sleep);
    return install_subsystems();
}

ccs_status_t runtime::install_subsystems() {
    barrier_ = std::make_unique<coll::barrier>(*am_, rank_, size_, [this] { wait_pass(); });
    ccs_status_t st = barrier_->install(*internal_handlers_);
    if (st != CCS_OK) return st;
    allgather_ = std::make_unique<coll::allgather>(*am_, rank_, size_, [this] { wait_pass(); });
    if ((st = allgather_->install(*internal_handlers_)) != CCS_OK) return st;
    coll_ = std::make_unique<coll::coll_engine>(*am_);
    if ((st = coll_->install(*internal_handlers_)) != CCS_OK) return st;
    std::vector<transport *> all;
    for (const auto &t : wired_.transports) all.push_back(t.get());
    // Network atomics: the highest-priority transport that does atomics.
    transport *atomics = nullptr;
    for (transport *t : all)
        if (t->native_atomics() && (!atomics || t->attr().priority > atomics->attr().priority)) atomics = t;
    memory_ = std::make_unique<memory_registry>(all, atomics, rank_, settings_.max_unused, wired_.secret);
    memory_->expose_all = settings_.expose_all;
    for (transport *t : all) t->set_lender(memory_.get());
    std::vector<transport *> route(static_cast<size_t>(size_), nullptr);
    for (int peer = 0; peer < size_; ++peer) route[static_cast<size_t>(peer)] = wired_.route[static_cast<size_t>(peer)];
    std::vector<bool> near(static_cast<size_t>(size_));
    for (int peer = 0; peer < size_; ++peer) near[static_cast<size_t>(peer)] = same_node(peer);
    rma_ = std::make_unique<rma_engine>(contexts_, *am_, *memory_, route, near, atomics, rank_, wired_.secret,
                                        settings_.rma_emulate, settings_.rma_layout_piece);
    if ((st = rma_->install(*internal_handlers_, [this] { wait_pass(); })) != CCS_OK) return st;
    large_ = std::make_unique<large_am>(contexts_, *am_, *rma_, *memory_, rank_, settings_.eager_limit,
                                        std::max<size_t>(settings_.large_window, 1));
    if ((st = large_->install(*internal_handlers_)) != CCS_OK) return st;
    am_->set_header_sink(large_.get());
    am_->set_peer_failed_hook([this](int peer) {
        rma_->peer_failed(peer);
        large_->peer_failed(peer);
    });
    teams_ = std::make_unique<coll::team_table>(*coll_, rank_, size_, [this] { wait_pass(); },
                                                coll::team_table::node_memory{*memory_, *rma_, wired_.node_of_rank,
                                                                              settings_.coll_cross_memory});
    return teams_->set_up_world();
}

void runtime::stop() {
    // Registrations are undone through the transports, so before them.
    if (am_) {
        am_->set_peer_failed_hook(nullptr);
        am_->set_header_sink(nullptr);
    }
    teams_.reset();  // its node memory came from the registry and keys
    large_.reset();  // its registrations and keys go back first
    rma_.reset();
    for (const auto &t : wired_.transports) t->set_lender(nullptr);  // its regions are deregistered next
    memory_.reset();
    // Transports go next: their finalize may still deliver into the engine
    // (and, through the internal context, to the barrier).
    wired_.transports.clear();
    coll_.reset();
    am_.reset();
    allgather_.reset();
    barrier_.reset();
    boot_.reset();
}

// The engines are asked only when they have queued work: an idle poll is
// what a ping-pong waits in, so it stays a few loads and the transports.
int runtime::poll() {
    int events = am_->sends_pending() ? am_->run_completions() : 0;
    for (const auto &t : wired_.transports) events += t->progress();
    if (am_->sends_pending()) {
        events += am_->push_queues();
        events += am_->deliver_self();
    }
    if (rma_ && rma_->busy()) events += rma_->progress();
    if (coll_ && coll_->busy()) events += coll_->progress();
    return events;
}

bool runtime::progress() {
    const int events = api_lock::on() ? poll_shared() : poll();
    if (events > 0) {
        backoff_.reset();
        pace_.idle_polls = 0;
        return true;
    }
    backoff_.idle();
    return false;
}

// progress() while threads share the library: out of line, so that a
// process of one thread polls as it did before.
int runtime::poll_shared() {
    // A handler on the progress thread that waits polls again: that is
    // neither the application's poll nor its thread for deferred work.
    const bool background = am_->deferring();
    if (activity_beside_.load(std::memory_order_relaxed)) [[unlikely]] {
        activity_beside_.store(false, std::memory_order_relaxed);
        note_activity();
    }
    if (!background) {
        api_lock::let_others_in();
        application_polls_.store(application_polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    int events = poll();
    if (!background && am_->deferred_waiting()) events += am_->run_deferred();
    // A thread asleep in a wait may wait for what this pass did.
    if (events > 0) sleeper_.wake();
    return events;
}

void runtime::sleep_if_idle_long() {
    // Inside a handler the lock is held deeper than one call: no sleep.
    if (in_callback() || (api_lock::on() && !api_lock::held_outermost())) return;
    if (tick_clock::now() - pace_.idle_since < spin_.ticks()) return;
    if (sleeper_.sleep(std::min(pace_.slice, settings_.wait_sleep_max)))
        pace_.slice = std::min(pace_.slice * 2, settings_.wait_sleep_max);
}

void runtime::learn_spin() {
    // From the first idle poll: a wait whose completions come one by one
    // (a window of large messages) is idle in stretches between them, each
    // of which the spin must outlast, or the wait sleeps before the last.
    spin_.wait_lasted(tick_clock::now() - pace_.first_idle, backoff_.crowded());
}

bool runtime::application_polled() {
    const uint64_t polls = application_polls_.load(std::memory_order_relaxed);
    if (polls == application_polls_seen_) return false;
    application_polls_seen_ = polls;
    return true;
}

bool runtime::serve_in_background() {
    // Serve until idle a while, or until the application polls again, or
    // until what waits for the application reaches the queue limit.
    bool polled = false;
    bool served = false;
    for (uint32_t idle = 0; idle < 64 && !(polled = application_polled()) && !am_->deferred_full();) {
        am_->set_deferring(true);
        const int events = poll();
        am_->set_deferring(false);
        if (events > 0) {
            idle = 0;
            served = true;
            sleeper_.wake();
        } else {
            ++idle;
        }
        api_lock::let_others_in();
    }
    // The application polls again, or must run what waits for it first:
    // look again later, without sleeping on the wake-ups.
    if (polled || am_->deferred_full() || application_polled()) return true;
    // An arrival ends the sleep at once; its timeout only bounds a wake-up
    // lost to a race and how late a dead peer is seen. Each timeout costs
    // the application's CPU a context switch, which a bulk copy on that
    // CPU feels, so the timeout doubles while nothing comes, up to
    // progress_thread::sleep_at_most.
    const std::chrono::nanoseconds shortest = settings_.wait_sleep_max;
    const std::chrono::nanoseconds longest = std::max<std::chrono::nanoseconds>(shortest, progress_thread::sleep_at_most);
    if (served) background_sleep_ = shortest;
    const uint64_t woken = sleeper_.woken();
    sleeper_.sleep(background_sleep_);
    background_sleep_ = sleeper_.woken() != woken ? shortest : std::clamp(background_sleep_ * 2, shortest, longest);
    return false;
}

void runtime::start_progress_thread() {
    // Below level multiple one application thread at a time calls in: the
    // lock is biased towards it.
    api_lock::set_biased(thread_level_ < CCS_THREAD_MULTIPLE);
    api_lock::set(true);
    application_polls_seen_ = application_polls_.load(std::memory_order_relaxed);
    background_sleep_ = settings_.wait_sleep_max;
    progress_thread_.start([this] { return application_polled(); }, [this] { return serve_in_background(); },
                           [this] { sleeper_.wake(); });
}

void runtime::enable_fast_paths() {
    if (fast_path::enabled()) return;
    for (int peer = 0; peer < size_; ++peer)
        if (transport *t = route(peer)) {
            am_->set_sends_beside(peer, t->sends_concurrently());
            rma_->set_rma_beside(peer, t->rma_concurrently());
        }
    rma_->allow_network_atomics_beside();
    fast_path::set_enabled(true);
}

void runtime::unbias_lock() {
    // The biased lock serves one application thread: the progress thread
    // stops while the lock changes, and starts again with the other one.
    {
        const api_lock::released unlocked;
        progress_thread_.stop();
        api_lock::set_biased(false);
    }
    start_progress_thread();
}

namespace {

// Puts one handler given at creation in its slot; `what` names it
// ("handlers[3]").
template <typename Entry>
ccs_status_t place_handler(context &ctx, const Entry &h, const std::string &what, context::handler_slot slot) {
    if (h.id >= CCS_AM_MAX_HANDLERS)
        return fail(CCS_ERR_INVALID_HANDLER,
                    "ccs_context_create: " + what + ".id " + std::to_string(h.id) + " is out of range");
    if (!h.handler) return fail(CCS_ERR_INVALID_ARG, "ccs_context_create: " + what + ".handler is NULL");
    if (ctx.handler(h.id).used())
        return fail(CCS_ERR_HANDLER_IN_USE, "ccs_context_create: handler id " + std::to_string(h.id) +
                                                " appears twice (" + what + ")");
    ctx.handler(h.id) = slot;
    return CCS_OK;
}

}  // namespace

ccs_status_t runtime::context_create(ccs_status_t local, uint64_t flags, const char *name,
                                     const context_handlers &given, ccs_context_t *out) {
    // Every process consumes the id, failed or not, so ids stay in step.
    context *ctx = nullptr;
    const ccs_status_t created = contexts_.create(flags, name, size_, ctx);
    if (local == CCS_OK) local = created;
    for (size_t i = 0; local == CCS_OK && i < given.count; ++i) {
        const ccs_am_handler_entry_t &h = given.handlers[i];
        local = place_handler(*ctx, h, "handlers[" + std::to_string(i) + "]", {h.handler, h.arg});
    }
    for (size_t i = 0; local == CCS_OK && i < given.header_count; ++i) {
        const ccs_am_header_handler_entry_t &h = given.header_handlers[i];
        local = place_handler(*ctx, h, "header_handlers[" + std::to_string(i) + "]", {nullptr, h.arg, h.handler});
    }
    // A faster process may send on the context while this one is still in
    // the barrier below, and its handler runs here then: the caller's
    // handle is set first, so a handler may use it.
    if (local == CCS_OK && out) *out = ctx->handle();
    // Once any process returns, every process has the context and its
    // handlers: no message can arrive before its target exists.
    uint64_t any_failed = 0;
    ccs_status_t st = barrier(local != CCS_OK ? 1 : 0, &any_failed);
    if (st == CCS_OK && any_failed)
        st = local != CCS_OK ? local
                             : fail(CCS_ERR_INVALID_ARG,
                                    "ccs_context_create failed on another process; no context was created");
    // Its world team, with node memory: collective, like the creation.
    if (st == CCS_OK) st = teams_->make_world(ctx->id());
    if (st != CCS_OK) {
        if (ctx && contexts_.by_id(ctx->id())) {
            teams_->context_destroyed(ctx->id());
            contexts_.destroy(ctx->id());
        }
        if (out) *out = ccs_context_t{0};
    }
    return st;
}

ccs_status_t runtime::context_destroy(context &ctx) {
    // Its sends leave, its RMA completes (callbacks included) and no
    // transport writes a large message's payload into its destinations.
    progress_until([&] {
        return ctx.queued_sends == 0 && (rma_->outstanding(ctx.id(), -1) == 0 || am_->any_peer_failed()) &&
               large_->placing(ctx.id()) == 0;
    });
    rma_->progress();
    rma_->context_destroyed(ctx.id());
    am_->run_completions();
    am_->context_destroyed(ctx.id());
    large_->context_destroyed(ctx.id());
    teams_->context_destroyed(ctx.id());
    contexts_.destroy(ctx.id());
    return CCS_OK;
}

std::vector<std::pair<std::string, uint64_t>> runtime::stats() const {
    const am_stats &s = am_->stats();
    const fast_path::totals fast = fast_path::sum();  // what calls beside the API lock did
    std::vector<std::pair<std::string, uint64_t>> out = {
        {"am.sent", s.sent + fast.am_sent},
        {"am.received", s.received},
        {"am.fragments_sent", s.fragments_sent},
        {"am.fragments_received", s.fragments_received},
        {"am.queued", s.queued},
        {"am.queue_bytes", s.queue_bytes},
        {"am.queue_bytes_peak", s.queue_bytes_peak},
        {"am.reordered", s.reordered},
        {"am.unknown_handler", s.unknown_handler},
        {"am.dropped_destroyed_context", s.dropped_destroyed_context},
        {"am.dropped_malformed", s.dropped_malformed},
        {"am.send_errors", s.send_errors},
        {"am.sent_nocopy", s.sent_nocopy},
        {"am.abandoned", s.abandoned},
        {"am.placed", s.placed},
        {"am.large_sent", large_->stats().sent},
        {"am.large_sent_eager", large_->stats().sent_eager},
        {"am.large_sent_parkable", large_->stats().sent_parkable},
        {"am.parked", s.parked},
        {"am.large_answered", large_->stats().answered},
        {"am.large_received", large_->stats().received},
        {"am.large_fetched", large_->stats().fetched},
        {"am.large_written", large_->stats().written},
        {"am.large_deferred", large_->stats().deferred},
        {"am.large_refused", large_->stats().refused},
        {"am.large_undecided", large_->undecided()},
        {"am.reassembling", am_->reassembling()},
        {"am.buffers_reused", am_->buffers().stats().reused},
        {"am.buffers_allocated", am_->buffers().stats().allocated},
        {"am.buffer_cache_bytes", am_->buffers().cached_bytes()},
        {"peers_failed", s.peers_failed},
        {"rma.puts", rma_->stats().puts + fast.puts},
        {"rma.gets", rma_->stats().gets + fast.gets},
        {"rma.atomics", rma_->stats().atomics + fast.atomics},
        {"rma.atomics_at_target", rma_->stats().atomics_at_target},
        {"rma.atomics_by_network", rma_->stats().atomics_by_network + fast.atomics_by_network},
        {"rma.accumulates", rma_->stats().accumulates + fast.accumulates},
        {"rma.indexed_puts", rma_->stats().indexed_puts},
        {"rma.native", rma_->stats().native + fast.puts + fast.gets},
        {"rma.emulated", rma_->stats().emulated},
        {"rma.by_layout", rma_->stats().by_layout},
        {"rma.bytes", rma_->stats().bytes + fast.bytes},
        {"rma.failed", rma_->stats().failed},
        {"rma.key_requests", rma_->stats().key_requests},
        {"rma.key_cache_hits", rma_->stats().key_cache_hits},
        {"rma.keys_revoked", rma_->stats().keys_revoked},
        {"rcache.hits", memory_->stats().hits},
        {"rcache.misses", memory_->stats().misses},
        {"rcache.registrations", memory_->stats().registrations},
        {"rcache.deregistrations", memory_->stats().deregistrations},
        {"rcache.evictions", memory_->stats().evictions},
        {"rcache.limit_retries", memory_->stats().limit_retries},
        {"rcache.regions", memory_->stats().regions},
        {"rcache.registered_bytes", memory_->stats().registered_bytes},
        {"rcache.unused_bytes", memory_->stats().unused_bytes},
        {"coll.by_messages", coll_->stats().by_messages},
        {"coll.in_node_memory", coll_->stats().in_node_memory},
        {"coll.in_the_call", coll_->stats().in_the_call},
        {"coll.two_levels", coll_->stats().two_levels},
        {"coll.cross_memory", coll_->stats().cross_memory},
        {"coll.failed", coll_->stats().failed},
        {"progress.yields", backoff_.yields()},
        {"progress.naps", backoff_.naps()},
        {"progress.thread", progress_thread_.running() ? 1u : 0u},
        {"progress.sleeps", sleeper_.sleeps()},
        {"progress.sleeps_woken", sleeper_.woken()},
        {"progress.sleeps_sliced", sleeper_.sliced() ? 1u : 0u},
        {"transports", wired_.transports.size()},
        {"nodes", wired_.num_nodes},
    };
    // route.<plugin>: how many peers this process reaches through it.
    for (const auto &t : wired_.transports)
        out.emplace_back("route." + t->name(),
                         static_cast<uint64_t>(std::count(wired_.route.begin(), wired_.route.end(), t.get())));
    return out;
}

}  // namespace ccs
