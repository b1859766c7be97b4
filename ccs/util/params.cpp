#include "util/params.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace ccs {
namespace {

std::mutex g_mutex;  // plugins may be queried from ccs_info at any time

std::map<std::string, param_info> &registry() {
    static std::map<std::string, param_info> r;
    return r;
}

void remember(const std::string &name, const std::string &default_value,
              const std::string &description) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto &r = registry();
    if (r.find(name) == r.end()) r[name] = {name, default_value, description};
}

// The text of a declared parameter (set, or its declared default).
bool declared_text(const std::string &name, std::string &text, std::string &default_value, std::string &error) {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        const auto it = registry().find(name);
        if (it == registry().end()) {
            error = name + " is not a declared parameter";
            return false;
        }
        default_value = it->second.default_value;
    }
    const char *set = std::getenv(name.c_str());
    text = set ? set : default_value;
    return true;
}

}  // namespace

std::string param_get(const std::string &name, const std::string &default_value,
                      const std::string &description) {
    remember(name, default_value, description);
    const char *v = std::getenv(name.c_str());
    return v ? std::string(v) : default_value;
}

bool param_size(const std::string &name, const char *unit, size_t max, size_t &value, std::string &error) {
    std::string text, default_value;
    if (!declared_text(name, text, default_value, error)) return false;
    if (parse_size(text, value) && value <= max) return true;
    const bool bytes = std::string(unit) == "bytes";
    error = name + "='" + text + "' is not a number of " + unit + (bytes ? " (suffixes k, M, G; " : " (") +
            "default " + default_value +
            (max == SIZE_MAX ? ")" : ", at most " + std::to_string(max) + ")");
    return false;
}

bool param_choice(const std::string &name, std::initializer_list<const char *> choices, std::string &value,
                  std::string &error) {
    std::string default_value;
    if (!declared_text(name, value, default_value, error)) return false;
    std::string listed;
    for (const char *c : choices) {
        if (value == c) return true;
        listed += (listed.empty() ? "" : ", ") + std::string(c);
    }
    error = name + "='" + value + "' is not one of " + listed + " (default " + default_value + ")";
    return false;
}

std::vector<param_info> param_list() {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::vector<param_info> out;
    for (const auto &kv : registry()) out.push_back(kv.second);
    return out;
}

void param_declare_core() {
    remember("CCS_TRANSPORT", "",
             "ordered plugin list (shm,ucx); ^name excludes; unset: automatic");
    remember("CCS_PLUGIN_PATH", "", "directories searched for plugins first (':'-separated)");
    remember("CCS_LOG_LEVEL", "warn", "error, warn, info or debug");
    remember("CCS_AM_QUEUE_LIMIT", "8M",
             "bytes of copied AM data waiting for the transport before ccs_am_send makes progress itself");
    remember("CCS_AM_BUFFER_CACHE", "16M",
             "bytes of freed AM buffers (queued copies, reassembled messages) kept for reuse instead of returned to malloc");
    remember("CCS_AM_EAGER_LIMIT", "16K",
             "large-message payloads up to this size travel with the header and are copied on accept; "
             "larger ones are read from the sender's memory or pushed by it once accepted, or, where the route's "
             "transport keeps payloads until the header handler decides (UCX), sent with the header in one piece");
    remember("CCS_AM_LARGE_WINDOW", "64",
             "large messages per context and target the target has not answered; more wait at the sender, "
             "and the context's later messages to that target behind them");
    remember("CCS_RCACHE_MAX_UNUSED", "256M",
             "registered bytes no handle uses that the registration cache keeps before deregistering, LRU first");
    remember("CCS_RMA_EMULATE", "0", "1: carry every put and get in active messages, even where a plugin has native RMA");
    remember("CCS_RMA_LAYOUT_PIECE", "2048",
             "datadesc put/get whose pieces average fewer bytes than this travel whole in active messages, "
             "the target unpacking or packing its side; also, whatever the pieces, where RMA is emulated (0: never)");
    remember("CCS_RMA_EXPOSE", "registered",
             "what implicit-key requests may reach: registered (memory this process registered) or all");
    remember("CCS_COLL_CROSS_MEMORY", "auto",
             "whether large collectives among processes of one node move bytes straight between their buffers by "
             "cross-memory attach (where the kernel allows it for every member) instead of through node memory in "
             "two copies: auto (while the node's members are no more than its CPUs), always or never");
    remember("CCS_SYMMETRIC_ADDRESS", "same",
             "where ccs_mem_alloc_symmetric places each process's part: same (one address in every process where "
             "the address space allows, else offsets) or offset (wherever each process maps it)");
    remember("CCS_WAIT_GAP_NS", "80",
             "ns between looks of ccs_wait_until at its word once a wait has lasted 200 ns (pause instructions; 0: none)");
    remember("CCS_WAIT_SPIN_US", "50",
             "µs a blocking wait (counters, fences, barriers, ccs_wait_until, finalize) polls before it sleeps");
    remember("CCS_WAIT_SPIN_MAX_US", "1000",
             "longest µs a blocking wait polls before it sleeps after the previous wait ended within this time "
             "(it then polls a quarter longer than that one lasted; not while processes crowd the node; "
             "CCS_WAIT_SPIN_US or less: always CCS_WAIT_SPIN_US)");
    remember("CCS_WAIT_SLEEP_MAX_US", "1000",
             "longest µs a sleeping wait goes without polling: arrivals wake it sooner, a put into polled memory "
             "does not");
    remember("CCS_PROGRESS_THREAD", "0",
             "1: a thread makes progress for the process while the application computes (CCS_INIT_PROGRESS_THREAD)");
    remember("CCS_BOOTSTRAP_TIMEOUT", "300",
             "seconds a start-up exchange under PMIx or PMI-1 waits for every process before failing "
             "(under ccsrun, a process that ended is reported at once)");
    remember("CCS_NODE_ID", "", "overrides the node identity (hostname + boot id) used to group processes");
    remember("CCS_RANK", "", "set by ccsrun: this process's rank");
    remember("CCS_SIZE", "", "set by ccsrun: number of processes");
    remember("CCS_JOB_ID", "", "set by ccsrun: job identifier");
    remember("CCS_BOOTSTRAP_SOCKET", "", "set by ccsrun: its rendezvous socket");
}

}  // namespace ccs
