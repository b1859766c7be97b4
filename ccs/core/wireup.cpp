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

ccs_status_t wireup(bootstrap &boot, packet_sink &sink, wireup_result &out) {
    const int rank = boot.rank(), size = boot.size();
    local_failure failure;
    std::vector<blob> payloads;

    // Phase 0/1: plugins loaded here; node identities everywhere.
    transport_selection sel;
    std::string reason;
    if (!parse_transport_selection(param_get("CCS_TRANSPORT", "", ""), sel, reason))
        failure.set(CCS_ERR_INVALID_ARG, reason);
    std::vector<std::unique_ptr<transport>> candidates;
    if (failure.status == CCS_OK) candidates = load_plugins(sel, failure);
    ccs_status_t st = exchange(boot, failure, blob_writer().str(node_identity()).take(), payloads, "nodes");
    if (st != CCS_OK) return st;
    std::map<std::string, uint32_t> node_index;
    out.node_of_rank.assign(static_cast<size_t>(size), 0);
    for (int r = 0; r < size; ++r) {
        blob_reader rd(payloads[static_cast<size_t>(r)]);
        const auto it = node_index.emplace(rd.str(), static_cast<uint32_t>(node_index.size())).first;
        out.node_of_rank[static_cast<size_t>(r)] = it->second;
    }
    out.num_nodes = static_cast<uint32_t>(node_index.size());

    // Phase 2: init and addresses.
    const std::string job_id = boot.job_id();
    ccs_plugin_job_v1_t job{sizeof(ccs_plugin_job_v1_t), rank, size, job_id.c_str(),
                            out.node_of_rank.data(), out.num_nodes};
    std::vector<std::unique_ptr<transport>> initialized;
    blob_writer addresses;
    std::vector<std::pair<std::string, blob>> mine;
    for (auto &t : candidates) {
        blob addr;
        st = t->init(job, &sink, reason);
        if (st == CCS_OK) st = t->address(addr, reason);
        if (st != CCS_OK) {
            if (!sel.automatic) failure.set(st, reason);
            else log_message(log_level::info, "not using " + reason);
            continue;
        }
        mine.emplace_back(t->name(), std::move(addr));
        initialized.push_back(std::move(t));
    }
    addresses.u32(static_cast<uint32_t>(mine.size()));
    for (const auto &m : mine) addresses.str(m.first).bytes(m.second);
    st = exchange(boot, failure, addresses.take(), payloads, "addresses");
    if (st != CCS_OK) return st;
    // peer_addr[name][r]: rank r's address for that plugin, if it has one.
    std::map<std::string, std::vector<blob>> peer_addr;
    std::map<std::string, std::vector<bool>> peer_has;
    for (int r = 0; r < size; ++r) {
        blob_reader rd(payloads[static_cast<size_t>(r)]);
        const uint32_t n = rd.u32();
        for (uint32_t i = 0; i < n && rd.ok(); ++i) {
            const std::string name = rd.str();
            blob b = rd.bytes();
            auto &addrs = peer_addr[name];
            auto &has = peer_has[name];
            addrs.resize(static_cast<size_t>(size));
            has.resize(static_cast<size_t>(size), false);
            addrs[static_cast<size_t>(r)] = std::move(b);
            has[static_cast<size_t>(r)] = true;
        }
    }

    // Phase 3: connect; every process learns which plugins connected where.
    std::vector<std::unique_ptr<transport>> connected;
    std::vector<std::string> connected_names;
    for (auto &t : initialized) {
        st = t->connect(peer_addr[t->name()], peer_has[t->name()], reason);
        if (st != CCS_OK) {
            if (!sel.automatic) failure.set(st, reason);
            else log_message(log_level::info, "not using " + reason);
            continue;
        }
        connected_names.push_back(t->name());
        connected.push_back(std::move(t));
    }
    blob_writer names;
    names.u32(static_cast<uint32_t>(connected_names.size()));
    for (const auto &n : connected_names) names.str(n);
    st = exchange(boot, failure, names.take(), payloads, "connect");
    if (st != CCS_OK) return st;
    std::vector<std::vector<std::string>> connected_at(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        blob_reader rd(payloads[static_cast<size_t>(r)]);
        const uint32_t n = rd.u32();
        for (uint32_t i = 0; i < n && rd.ok(); ++i) connected_at[static_cast<size_t>(r)].push_back(rd.str());
    }

    // Phase 4: one transport per peer, and agreement that every peer has one.
    out.route.assign(static_cast<size_t>(size), nullptr);
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        const bool same_node = out.node_of_rank[static_cast<size_t>(peer)] == out.node_of_rank[static_cast<size_t>(rank)];
        const auto &theirs = connected_at[static_cast<size_t>(peer)];
        for (transport *t : preference(connected, sel, same_node)) {
            if (std::find(theirs.begin(), theirs.end(), t->name()) == theirs.end()) continue;
            if (!t->reachable(peer)) continue;
            out.route[static_cast<size_t>(peer)] = t;
            break;
        }
        if (!out.route[static_cast<size_t>(peer)])
            failure.set(CCS_ERR_NO_TRANSPORT,
                        "no plugin reaches rank " + std::to_string(peer) + (same_node ? " (same node)" : " (other node)") +
                            "; connected here: " + (connected_names.empty() ? "none" : join(connected_names, ",")));
    }
    st = exchange(boot, failure, blob{}, payloads, "routes");
    if (st != CCS_OK) return st;
    // Past the last exchange a failure cannot be agreed on any more, and
    // wireup_complete only releases set-up resources: warn, do not fail.
    for (auto &t : connected)
        if (t->wireup_complete(reason) != CCS_OK) log_message(log_level::warn, reason);
    // A plugin no peer is routed over is finalized now: every ccs_progress
    // would poll it, and every registration would register with it. Routes
    // are symmetric (same preference order, same connected sets, both
    // sides), so no peer routes to this process over it either.
    for (auto &t : connected) {
        if (std::find(out.route.begin(), out.route.end(), t.get()) != out.route.end() || size == 1) {
            out.transports.push_back(std::move(t));
            continue;
        }
        log_message(log_level::info, "plugin '" + t->name() + "' reaches no peer by route; finalized");
    }
    return CCS_OK;
}

}  // namespace ccs
