// Set-up, worker addresses, endpoints on first use, and teardown.
#include "ucx_callbacks.hpp"

#include <ucs/config/global_opts.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace ccs::ucx {
namespace {

// Endpoints of a finished job close with a flush; one that does not finish
// in this time (the peer is gone) is closed by force.
constexpr auto close_deadline = std::chrono::seconds(2);

}  // namespace

ucx_plugin::ucx_plugin(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
    : core_(services, name), cfg_(cfg), rank_(job.rank),
      concurrent_(plugin::job_thread_level(job) == plugin::thread_level_multiple), header_rank_(job.rank),
      peers_(static_cast<size_t>(job.size)) {
    for (int32_t r = 0; r < job.size; ++r) {
        peer &p = peers_[static_cast<size_t>(r)];
        p.owner = this;
        p.rank = r;
        p.same_node = job.node_of_rank[r] == job.node_of_rank[job.rank];
    }
}

ucx_plugin::~ucx_plugin() {
    close_endpoints();
    for (size_t i = delivered_; i < arrivals_.size(); ++i) {
        if (arrivals_[i]->ucx_data) ucp_am_data_release(worker_, arrivals_[i]->ucx_data);
        if (arrivals_[i]->parked) ucp_am_data_release(worker_, arrivals_[i]->parked);
    }
    for (const pending_rendezvous &w : waiting_rendezvous_) ucp_am_data_release(worker_, w.descriptor);
    for (const auto &kv : parked_) ucp_am_data_release(worker_, kv.second.descriptor);
    // Sends to a peer that died stay open in UCX (1.13 neither completes
    // nor cancels rendezvous sends on an endpoint without error handling,
    // closed by force), and the worker's destruction warns of each as a
    // leak: the failure is CCS's to report, once, so UCX's warnings are
    // held back while it frees them, and only then.
    bool quiet = false;
    for (const peer &p : peers_) quiet |= p.failed;
    const ucs_log_level_t level = ucs_global_opts.log_component.log_level;
    if (quiet && level > UCS_LOG_LEVEL_ERROR) ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_ERROR;
    if (worker_) ucp_worker_destroy(worker_);
    if (context_) ucp_cleanup(context_);
    ucs_global_opts.log_component.log_level = level;
}

void ucx_plugin::log(int32_t level, const std::string &message) const {
    core_.log(level, message);
}

ccs_plugin_status_t ucx_plugin::init() {
    ucp_config_t *ucx_config = nullptr;
    ucs_status_t st = read_ucx_config(&ucx_config);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_ERROR, std::string("cannot read the UCX configuration: ") + ucs_status_string(st));
        return CCS_PLUGIN_ERR_INVALID;
    }
    // A dead peer is found by keepalive on idle endpoints; UCX's default
    // (20 s) is longer than a runtime should wait to hear of it.
    if (!std::getenv("UCX_KEEPALIVE_INTERVAL") && !std::getenv("CCS_UCX_KEEPALIVE_INTERVAL"))
        (void)ucp_config_modify(ucx_config, "KEEPALIVE_INTERVAL", "1s");
    cfg_.max_packet = max_packet_for(cfg_, configured_transports(ucx_config));  // as query() told the core
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
    params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
    if (cfg_.wakeup) params.features |= UCP_FEATURE_WAKEUP;
    params.name = "ccs";
    st = ucp_init(&params, ucx_config, &context_);
    ucp_config_release(ucx_config);
    if (st != UCS_OK) {
        context_ = nullptr;
        log(CCS_PLUGIN_LOG_ERROR, std::string("ucp_init: ") + ucs_status_string(st));
        return st == UCS_ERR_NO_DEVICE ? CCS_PLUGIN_ERR_NO_DEVICE : CCS_PLUGIN_ERR_TRANSPORT;
    }
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    // Below thread level multiple the core calls in from one thread at a
    // time (its API lock serializes the application's threads and the
    // progress thread), and UCX's own lock would only cost.
    wp.thread_mode = concurrent_ ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED;
    st = ucp_worker_create(context_, &wp, &worker_);
    if (st != UCS_OK) {
        worker_ = nullptr;
        log(CCS_PLUGIN_LOG_ERROR, std::string("ucp_worker_create: ") + ucs_status_string(st));
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG |
                    UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = am_id;
    hp.cb = callbacks::am_arrived;
    hp.arg = this;
    // Whole messages. Not UCP_AM_FLAG_PERSISTENT_DATA: with it UCX 1.13
    // copies every eager arrival out of its transport buffer, where the
    // plugin copies a small one once into its own record and keeps a larger
    // one where UCX offers to (see keep_or_copy).
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    st = ucp_worker_set_am_recv_handler(worker_, &hp);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_ERROR, std::string("ucp_worker_set_am_recv_handler: ") + ucs_status_string(st));
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    ucp_address_t *address = nullptr;
    size_t length = 0;
    st = ucp_worker_get_address(worker_, &address, &length);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_ERROR, std::string("ucp_worker_get_address: ") + ucs_status_string(st));
        return CCS_PLUGIN_ERR_TRANSPORT;
    }
    // The blob peers get: this process's id (to watch it where UCX cannot),
    // then the worker address.
    const int32_t pid = static_cast<int32_t>(::getpid());
    const auto *bytes = reinterpret_cast<const uint8_t *>(address);
    my_address_.resize(sizeof pid);
    std::memcpy(my_address_.data(), &pid, sizeof pid);
    my_address_.insert(my_address_.end(), bytes, bytes + length);
    ucp_worker_release_address(worker_, address);
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t ucx_plugin::address(void *buffer, size_t *length) const {
    if (!length) return CCS_PLUGIN_ERR_INVALID;
    const size_t capacity = *length;
    *length = my_address_.size();
    if (!buffer) return CCS_PLUGIN_OK;
    if (capacity < my_address_.size()) return CCS_PLUGIN_ERR_INVALID;
    std::memcpy(buffer, my_address_.data(), my_address_.size());
    return CCS_PLUGIN_OK;
}

ccs_plugin_status_t ucx_plugin::connect(const void *const *addresses, const size_t *lengths) {
    // Endpoints are made on first use: a job where most pairs never talk
    // pays for none of them.
    for (size_t r = 0; r < peers_.size(); ++r) {
        if (!addresses[r] || lengths[r] <= sizeof(int32_t)) continue;
        const auto *b = static_cast<const uint8_t *>(addresses[r]);
        std::memcpy(&peers_[r].pid, b, sizeof(int32_t));
        peers_[r].address.assign(b + sizeof(int32_t), b + lengths[r]);
    }
    return CCS_PLUGIN_OK;
}

bool ucx_plugin::reachable(int32_t rank) const {
    return rank >= 0 && static_cast<size_t>(rank) < peers_.size() && rank != rank_ &&
           !peers_[static_cast<size_t>(rank)].address.empty();
}

ucp_ep_h ucx_plugin::create_endpoint(peer &p, ccs_plugin_status_t &why) {
    why = CCS_PLUGIN_ERR_PEER_FAILED;
    if (p.failed) return nullptr;
    why = CCS_PLUGIN_ERR_TRANSPORT;
    // A sender and an RMA call may both come here first for one peer.
    const auto creating = hold_if_concurrent(endpoint_lock_);
    if (p.ep || p.address.empty()) return p.ep;
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t *>(p.address.data());
    // PEER mode: a dead peer fails its operations instead of hanging them.
    // UCX 1.13's shared-memory transports cannot report a failure and
    // refuse that mode, so for a peer on this node the plugin watches its
    // pid instead (the same test the shm plugin makes).
    p.ucx_reports_failure = !p.same_node;
    ep.err_mode = p.ucx_reports_failure ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
    ep.err_handler.cb = callbacks::ep_error;
    ep.err_handler.arg = &p;
    ucp_ep_h created = nullptr;
    const ucs_status_t st = ucp_ep_create(worker_, &ep, &created);
    if (st != UCS_OK) {
        log(CCS_PLUGIN_LOG_ERROR,
            "cannot create an endpoint to rank " + std::to_string(p.rank) + ": " + ucs_status_string(st));
        return nullptr;
    }
    const lane_facts facts = lanes(created);
    p.native_rma = cfg_.rma == rma_mode::native || (cfg_.rma == rma_mode::automatic && facts.rma);
    p.put_visible_on_return = facts.shared_memory_only;
    p.native_atomics = facts.atomics;
    p.eager_large = !facts.rma;
    if (!p.native_rma && cfg_.rma == rma_mode::automatic)
        log(CCS_PLUGIN_LOG_INFO, "UCX's lanes to rank " + std::to_string(p.rank) +
                                     " emulate RMA in software; the core's active messages carry it instead");
    p.ep.store(created, std::memory_order_release);
    return created;
}

// UCX 1.13 has no query for an endpoint's transports; its printed
// configuration lists every lane ("lane[1]:  1:posix/memory.0 md[1] ...")
// and the put and get protocols of real RMA lanes only ("put[0]: ...",
// "get[0]: ..."), none over tcp.
ucx_plugin::lane_facts ucx_plugin::lanes(ucp_ep_h ep) const {
    lane_facts out;
    char *text = nullptr;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) return out;
    ucp_ep_print_info(ep, f);
    std::fclose(f);
    const std::string info(text, size);
    std::free(text);
    out.rma = info.find("put[") != std::string::npos && info.find("get[") != std::string::npos;
    out.atomics = info.find(" amo#") != std::string::npos;
    // Shared-memory transports write the target's memory before a put
    // returns or completes: no flush is needed to make it visible.
    static const char *const shared[] = {"self", "posix", "sysv", "xpmem", "knem", "cma"};
    bool any = false, all_shared = true;
    for (size_t at = info.find("lane["); at != std::string::npos; at = info.find("lane[", at + 5)) {
        const size_t colon = info.find(':', info.find(']', at) + 2);
        const size_t slash = info.find('/', colon);
        if (colon == std::string::npos || slash == std::string::npos) break;
        const std::string tl = info.substr(colon + 1, slash - colon - 1);
        bool known = false;
        for (const char *n : shared) known = known || tl == n;
        all_shared = all_shared && known;
        any = true;
    }
    out.shared_memory_only = any && all_shared;
    return out;
}

void ucx_plugin::close_endpoints() {
    if (!worker_) return;
    // A peer that died since the last progress is closed by force too:
    // a graceful close would wait for it to acknowledge what is still in
    // flight, and UCX would warn of every request still open at the end.
    check_peers_alive();
    std::vector<void *> closing;
    for (peer &p : peers_) {
        if (!p.ep) continue;
        ucp_request_param_t rp{};
        rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        rp.flags = p.failed ? UCP_EP_CLOSE_FLAG_FORCE : 0;
        void *r = ucp_ep_close_nbx(p.ep.exchange(nullptr), &rp);
        if (UCS_PTR_IS_PTR(r)) closing.push_back(r);
    }
    const auto deadline = std::chrono::steady_clock::now() + close_deadline;
    while (!closing.empty() && std::chrono::steady_clock::now() < deadline) {
        ucp_worker_progress(worker_);
        for (size_t i = 0; i < closing.size();) {
            if (ucp_request_check_status(closing[i]) == UCS_INPROGRESS) {
                ++i;
                continue;
            }
            ucp_request_free(closing[i]);
            closing[i] = closing.back();
            closing.pop_back();
        }
    }
    // Requests still open belong to endpoints whose peers are gone; the
    // worker's destruction releases them.
}

void ucx_plugin::check_peers_alive() {
    for (peer &p : peers_) {
        if (!p.ep || p.failed || p.ucx_reports_failure || p.pid <= 0) continue;
        if (!plugin::process_exists(p.pid)) report_gone(p);
    }
}

void ucx_plugin::report_gone(peer &p) {
    if (p.failed.exchange(true)) return;
    failed_peers_.emplace_back(p.rank, "process " + std::to_string(p.pid) + " is gone");
    reports_ = true;
}

ucs_status_t ucx_plugin::fetch_failed(int32_t source, ucs_status_t status) {
    peer *p = peer_at(source);
    if (!p || p->ucx_reports_failure || p->pid <= 0 || plugin::process_exists(p->pid)) return status;
    report_gone(*p);
    return UCS_ERR_CONNECTION_RESET;
}

void ucx_plugin::on_peer_error(peer &p, ucs_status_t status) {
    if (p.failed.exchange(true)) return;
    failed_peers_.emplace_back(p.rank, std::string("UCX endpoint error: ") + ucs_status_string(status));
    reports_ = true;
}

void callbacks::ep_error(void *arg, ucp_ep_h, ucs_status_t status) {
    auto *p = static_cast<peer *>(arg);
    p->owner->on_peer_error(*p, status);
}

}  // namespace ccs::ucx
