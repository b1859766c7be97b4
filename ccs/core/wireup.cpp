#include "wireup.hpp"

#include "core/plugin/transport_selection.hpp"
#include "util/error.hpp"
#include "util/log.hpp"
#include "util/params.hpp"
#include "util/serialize.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include <unistd.h>

namespace ccs {
namespace {

struct local_failure {
    ccs_status_t status = CCS_OK;
    std::string reason;
    void set(ccs_status_t s, std::string r) {
        if (status != CCS_OK) return;  // keep the first cause
        status = s;
        reason = std::move(r);
    }
};

// Allgathers `payload` prefixed by this process's status. If any process
// failed, returns the first failing rank's status with its reason, on every
// process alike.
ccs_status_t exchange(bootstrap &boot, const local_failure &mine, const blob &payload,
                      std::vector<blob> &payloads, const char *phase) {
    blob_writer w;
    w.u32(static_cast<uint32_t>(mine.status)).str(mine.reason).bytes(payload);
    std::vector<blob> all;
    const ccs_status_t st = boot.allgather(w.take(), all);
    if (st != CCS_OK) return st;
    payloads.assign(all.size(), blob{});
    for (size_t r = 0; r < all.size(); ++r) {
        blob_reader rd(all[r]);
        const auto status = static_cast<ccs_status_t>(rd.u32());
        std::string reason = rd.str();
        payloads[r] = rd.bytes();
        if (!rd.ok())
            return fail(CCS_ERR_BOOTSTRAP, std::string("wire-up (") + phase + "): malformed record from rank " +
                                               std::to_string(r));
        if (status != CCS_OK)
            return fail(status, "rank " + std::to_string(r) + ": " + reason);
    }
    return CCS_OK;
}

std::string join(const std::vector<std::string> &v, const char *sep) {
    std::string s;
    for (const auto &x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

// Phase 0: the plugins this process will try, loaded and queried.
std::vector<std::unique_ptr<transport>> load_plugins(const transport_selection &sel, local_failure &failure) {
    std::vector<std::unique_ptr<transport>> loaded;
    auto try_open = [&](const plugin_file &file, bool required) {
        std::unique_ptr<loaded_plugin> lib;
        std::string reason;
        ccs_status_t st = loaded_plugin::open(file, lib, reason);
        if (st == CCS_OK) {
            auto t = std::make_unique<transport>(std::move(lib));
            st = t->query(reason);
            if (st == CCS_OK) {
                loaded.push_back(std::move(t));
                return;
            }
        } else {
            reason = "plugin '" + file.name + "' (" + file.path + "): " + reason;
        }
        if (required) failure.set(st, reason);
        else log_message(log_level::info, "not using " + reason);
    };
    if (sel.automatic) {
        for (const auto &file : plugin_discover())
            if (!sel.exclude.count(file.name)) try_open(file, false);
        if (loaded.empty())
            failure.set(CCS_ERR_PLUGIN_NOT_FOUND,
                        "no usable plugin found in: " + join(plugin_search_dirs(), ":"));
        return loaded;
    }
    for (const auto &name : sel.include) {
        plugin_file file;
        if (!plugin_find(name, file)) {
            failure.set(CCS_ERR_PLUGIN_NOT_FOUND, "plugin '" + name + "' (libccs_plugin_" + name +
                                                      ".so) not found in: " + join(plugin_search_dirs(), ":"));
            continue;
        }
        try_open(file, true);
    }
    return loaded;
}

// Order in which transports are tried for a peer.
std::vector<transport *> preference(const std::vector<std::unique_ptr<transport>> &ts,
                                    const transport_selection &sel, bool same_node) {
    std::vector<transport *> order;
    for (const auto &t : ts) order.push_back(t.get());
    if (!sel.automatic) return order;  // CCS_TRANSPORT order, as loaded
    std::stable_sort(order.begin(), order.end(), [&](transport *a, transport *b) {
        const int ra = same_node && a->node_scope() ? 0 : 1;
        const int rb = same_node && b->node_scope() ? 0 : 1;
        if (ra != rb) return ra < rb;
        return a->attr().priority > b->attr().priority;
    });
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](transport *t) { return !same_node && t->node_scope(); }),
                order.end());
    return order;
}

}  // namespace

std::string node_identity() {
    const std::string forced = param_get("CCS_NODE_ID", "", "");
    if (!forced.empty()) return forced;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string boot_id;
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::getline(in, boot_id);
    return std::string(host) + "/" + boot_id;
}

namespace {

// What the steps of one wire-up share.
struct wireup_run {
    bootstrap &boot;
    wireup_result &out;
    int rank = 0, size = 0;
    int thread_level = 0;
    transport_selection sel;
    local_failure failure;
    std::vector<blob> payloads;  // the last exchange's, per rank

    // A plugin failed a step here: fatal where the job asked for it by
    // name, skipped in automatic mode.
    void lose(ccs_status_t st, const std::string &reason) {
        if (!sel.automatic) failure.set(st, reason);
        else log_message(log_level::info, "not using " + reason);
    }
    bool same_node(int peer) const {
        return out.node_of_rank[static_cast<size_t>(peer)] == out.node_of_rank[static_cast<size_t>(rank)];
    }
};

// Every rank's address for each plugin that has one there.
struct peer_addresses {
    std::map<std::string, std::vector<blob>> address;  // [plugin][rank]
    std::map<std::string, std::vector<bool>> present;  // [plugin][rank]
};

// Step 1: CCS_TRANSPORT read and the plugins loaded here; node identities
// everywhere, as dense node indices; rank 0's key secret everywhere.
ccs_status_t agree_on_nodes(wireup_run &w, std::vector<std::unique_ptr<transport>> &candidates) {
    std::string reason;
    if (!parse_transport_selection(param_get("CCS_TRANSPORT", "", ""), w.sel, reason))
        w.failure.set(CCS_ERR_INVALID_ARG, reason);
    if (w.failure.status == CCS_OK) candidates = load_plugins(w.sel, w.failure);
    std::vector<uint8_t> secret;
    if (w.rank == 0) {
        const key_secret drawn = key_secret_draw();
        secret.assign(drawn.begin(), drawn.end());
    }
    const ccs_status_t st =
        exchange(w.boot, w.failure, blob_writer().str(node_identity()).bytes(secret).take(), w.payloads, "nodes");
    if (st != CCS_OK) return st;
    std::map<std::string, uint32_t> node_index;
    w.out.node_of_rank.assign(static_cast<size_t>(w.size), 0);
    for (int r = 0; r < w.size; ++r) {
        blob_reader rd(w.payloads[static_cast<size_t>(r)]);
        const auto it = node_index.emplace(rd.str(), static_cast<uint32_t>(node_index.size())).first;
        w.out.node_of_rank[static_cast<size_t>(r)] = it->second;
        const std::vector<uint8_t> drawn = rd.bytes();
        if (r == 0 && (!rd.ok() || drawn.size() != w.out.secret.size()))
            return fail(CCS_ERR_BOOTSTRAP, "wire-up (nodes): rank 0 sent no key secret");
        if (r == 0) std::copy(drawn.begin(), drawn.end(), w.out.secret.begin());
    }
    w.out.num_nodes = static_cast<uint32_t>(node_index.size());
    return CCS_OK;
}

// Step 2: each plugin initialized with the job; addresses everywhere.
ccs_status_t exchange_addresses(wireup_run &w, packet_sink &sink, std::vector<std::unique_ptr<transport>> &candidates,
                                std::vector<std::unique_ptr<transport>> &initialized, peer_addresses &peers) {
    const std::string job_id = w.boot.job_id();
    const ccs_plugin_job_v1_t job{sizeof(ccs_plugin_job_v1_t), w.rank, w.size, job_id.c_str(),
                                  w.out.node_of_rank.data(), w.out.num_nodes, w.thread_level};
    std::vector<std::pair<std::string, blob>> mine;
    for (auto &t : candidates) {
        blob addr;
        std::string reason;
        ccs_status_t st = t->init(job, &sink, reason);
        if (st == CCS_OK) st = t->address(addr, reason);
        if (st != CCS_OK) {
            w.lose(st, reason);
            continue;
        }
        mine.emplace_back(t->name(), std::move(addr));
        initialized.push_back(std::move(t));
    }
    blob_writer addresses;
    addresses.u32(static_cast<uint32_t>(mine.size()));
    for (const auto &m : mine) addresses.str(m.first).bytes(m.second);
    const ccs_status_t st = exchange(w.boot, w.failure, addresses.take(), w.payloads, "addresses");
    if (st != CCS_OK) return st;
    for (int r = 0; r < w.size; ++r) {
        blob_reader rd(w.payloads[static_cast<size_t>(r)]);
        const uint32_t n = rd.u32();
        for (uint32_t i = 0; i < n && rd.ok(); ++i) {
            const std::string name = rd.str();
            auto &addrs = peers.address[name];
            auto &has = peers.present[name];
            addrs.resize(static_cast<size_t>(w.size));
            has.resize(static_cast<size_t>(w.size), false);
            addrs[static_cast<size_t>(r)] = rd.bytes();
            has[static_cast<size_t>(r)] = true;
        }
    }
    return CCS_OK;
}

// Step 3: each plugin connected; every process learns which plugins
// connected where (connected_at[rank]).
ccs_status_t connect_everywhere(wireup_run &w, std::vector<std::unique_ptr<transport>> &initialized,
                                peer_addresses &peers, std::vector<std::unique_ptr<transport>> &connected,
                                std::vector<std::vector<std::string>> &connected_at) {
    std::vector<std::string> names;
    for (auto &t : initialized) {
        std::string reason;
        const ccs_status_t st = t->connect(peers.address[t->name()], peers.present[t->name()], reason);
        if (st != CCS_OK) {
            w.lose(st, reason);
            continue;
        }
        names.push_back(t->name());
        connected.push_back(std::move(t));
    }
    blob_writer list;
    list.u32(static_cast<uint32_t>(names.size()));
    for (const auto &n : names) list.str(n);
    const ccs_status_t st = exchange(w.boot, w.failure, list.take(), w.payloads, "connect");
    if (st != CCS_OK) return st;
    connected_at.assign(static_cast<size_t>(w.size), {});
    for (int r = 0; r < w.size; ++r) {
        blob_reader rd(w.payloads[static_cast<size_t>(r)]);
        const uint32_t n = rd.u32();
        for (uint32_t i = 0; i < n && rd.ok(); ++i) connected_at[static_cast<size_t>(r)].push_back(rd.str());
    }
    return CCS_OK;
}

// Step 4: one transport per peer, the first in preference order that both
// sides connected and that reaches it; every process agrees each peer has
// one.
ccs_status_t choose_routes(wireup_run &w, const std::vector<std::unique_ptr<transport>> &connected,
                           const std::vector<std::vector<std::string>> &connected_at) {
    w.out.route.assign(static_cast<size_t>(w.size), nullptr);
    std::vector<std::string> here;
    for (const auto &t : connected) here.push_back(t->name());
    for (int peer = 0; peer < w.size; ++peer) {
        if (peer == w.rank) continue;
        const auto &theirs = connected_at[static_cast<size_t>(peer)];
        transport *&route = w.out.route[static_cast<size_t>(peer)];
        for (transport *t : preference(connected, w.sel, w.same_node(peer))) {
            if (std::find(theirs.begin(), theirs.end(), t->name()) == theirs.end() || !t->reachable(peer)) continue;
            route = t;
            break;
        }
        if (!route)
            w.failure.set(CCS_ERR_NO_TRANSPORT, "no plugin reaches rank " + std::to_string(peer) +
                                                    (w.same_node(peer) ? " (same node)" : " (other node)") +
                                                    "; connected here: " + (here.empty() ? "none" : join(here, ",")));
    }
    return exchange(w.boot, w.failure, blob{}, w.payloads, "routes");
}

// Step 5: set-up resources released; the plugins that route some peer
// kept, the rest finalized: every ccs_progress would poll them and every
// registration register with them. Routes are symmetric (same preference
// order, same connected sets, both sides), so no peer routes to this
// process over a plugin finalized here either.
void keep_routed(wireup_run &w, std::vector<std::unique_ptr<transport>> &connected) {
    // Past the last exchange a failure cannot be agreed on any more, and
    // wireup_complete only releases set-up resources: warn, do not fail.
    std::string reason;
    for (auto &t : connected)
        if (t->wireup_complete(reason) != CCS_OK) log_message(log_level::warn, reason);
    for (auto &t : connected) {
        if (std::find(w.out.route.begin(), w.out.route.end(), t.get()) != w.out.route.end() || w.size == 1) {
            w.out.transports.push_back(std::move(t));
            continue;
        }
        log_message(log_level::info, "plugin '" + t->name() + "' reaches no peer by route; finalized");
    }
}

}  // namespace

// Each step ends in a bootstrap exchange that carries every process's
// status, so a failure anywhere fails every process alike, at the same
// step, with the first failing rank's reason.
ccs_status_t wireup(bootstrap &boot, packet_sink &sink, int thread_level, wireup_result &out) {
    wireup_run w{boot, out};
    w.thread_level = thread_level;
    w.rank = boot.rank();
    w.size = boot.size();
    std::vector<std::unique_ptr<transport>> candidates, initialized, connected;
    peer_addresses peers;
    std::vector<std::vector<std::string>> connected_at;
    ccs_status_t st = agree_on_nodes(w, candidates);
    if (st == CCS_OK) st = exchange_addresses(w, sink, candidates, initialized, peers);
    if (st == CCS_OK) st = connect_everywhere(w, initialized, peers, connected, connected_at);
    if (st == CCS_OK) st = choose_routes(w, connected, connected_at);
    if (st != CCS_OK) return st;
    keep_routed(w, connected);
    return CCS_OK;
}

}  // namespace ccs
