// ccs_info_print: what the library would do here, and why. Needs no
// ccs_init, so it can explain why ccs_init fails.
#include "api_guard.hpp"
#include "core/plugin/transport_selection.hpp"
#include "util/params.hpp"
#include "util/poll_gap.hpp"

#include <cstdlib>

#include <sys/stat.h>

using namespace ccs;

namespace {

std::string caps_text(uint64_t caps) {
    std::string s;
    if (caps & CCS_PLUGIN_CAP_AM) s += "am ";
    if (caps & CCS_PLUGIN_CAP_AM_ORDERED) s += "am-ordered ";
    if (caps & CCS_PLUGIN_CAP_PUT) s += "put ";
    if (caps & CCS_PLUGIN_CAP_GET) s += "get ";
    if (!s.empty()) s.pop_back();
    return s.empty() ? "none" : s;
}

const char *scope_text(uint32_t scope) {
    switch (scope) {
    case CCS_PLUGIN_SCOPE_NODE: return "node (same-host peers)";
    case CCS_PLUGIN_SCOPE_NETWORK: return "network (any peer)";
    default: return "invalid";
    }
}

void print_plugin(FILE *out, const plugin_file &file, const transport_selection &sel) {
    std::fprintf(out, "  %s\n    path:    %s\n", file.name.c_str(), file.path.c_str());
    if (sel.exclude.count(file.name)) std::fprintf(out, "    note:    excluded by CCS_TRANSPORT\n");
    std::unique_ptr<loaded_plugin> lib;
    std::string reason;
    ccs_status_t st = loaded_plugin::open(file, lib, reason);
    if (st != CCS_OK) {
        std::fprintf(out, "    status:  NOT USABLE (%s): %s\n", ccs_strerror(st), reason.c_str());
        return;
    }
    transport t(std::move(lib));
    st = t.query(reason);
    if (st != CCS_OK) {
        std::fprintf(out, "    status:  NOT USABLE (%s): %s\n", ccs_strerror(st), reason.c_str());
        return;
    }
    const auto &a = t.attr();
    std::fprintf(out, "    status:  usable (ABI v%u)\n", CCS_PLUGIN_ABI_VERSION_1);
    std::fprintf(out, "    caps:    %s\n    scope:   %s, priority %u\n", caps_text(a.caps).c_str(),
                 scope_text(a.scope), a.priority);
    std::fprintf(out, "    limits:  am packet %zu bytes (larger payloads are fragmented)\n", a.am_max_packet);
    if (a.am_nocopy_min)
        std::fprintf(out, "    nocopy:  packets from %zu bytes sent with a completion go from the caller's memory\n",
                     a.am_nocopy_min);
    if (a.am_placeable_max)
        std::fprintf(out, "    placed:  pushed payloads of up to %zu bytes are fetched straight into place\n",
                     a.am_placeable_max);
    if (a.description[0]) std::fprintf(out, "    about:   %s\n", a.description);
}

}  // namespace

extern "C" ccs_status_t ccs_info_print(FILE *out) {
    return guarded([&]() -> ccs_status_t {
        if (!out) return fail(CCS_ERR_INVALID_ARG, "ccs_info_print: out is NULL");
        param_declare_core();
        std::fprintf(out, "CCS %d.%d.%d, plugin ABI v%u\n", CCS_VERSION_MAJOR, CCS_VERSION_MINOR,
                     CCS_VERSION_PATCH, CCS_PLUGIN_ABI_VERSION_1);
        std::fprintf(out, "bootstrap: %s (from the environment)\n", bootstrap_detect());
        std::fprintf(out, "node:      %s\n", node_identity().c_str());

        transport_selection sel;
        std::string reason;
        const std::string choice = param_get("CCS_TRANSPORT", "", "");
        if (!parse_transport_selection(choice, sel, reason))
            std::fprintf(out, "selection: INVALID: %s\n", reason.c_str());
        else if (sel.automatic)
            std::fprintf(out, "selection: automatic (node-scope plugins for same-host peers, then by priority)\n");
        else
            std::fprintf(out, "selection: CCS_TRANSPORT=%s (in this order)\n", choice.c_str());

        std::string gap_error;
        std::chrono::nanoseconds gap{};
        if (!wait_gap_param(gap, gap_error)) {
            std::fprintf(out, "waits:     INVALID: %s\n", gap_error.c_str());
        } else {
            const poll_gap g{gap};
            std::fprintf(out,
                         "waits:     ccs_wait_until looks at its word tightly for %lld ns, then every ~%lld ns: %u "
                         "pause instructions of %.1f ns; it polls the transports every %d looks\n",
                         static_cast<long long>(runtime::wait_tight.count()), static_cast<long long>(gap.count()),
                         g.pauses(), poll_gap::pause_ns(), runtime::looks_between_polls);
        }

        if (const runtime *rt = runtime::current()) {
            static const char *const levels[] = {"single", "funneled", "serialized", "multiple"};
            std::fprintf(out, "threads:   level %s; progress thread %s\n", levels[rt->thread_level()],
                         rt->progress_thread_binding().c_str());
        } else {
            std::fprintf(out, "threads:   (not initialized) progress thread %s\n",
                         param_get("CCS_PROGRESS_THREAD", "0", "") == std::string("1") ? "asked for" : "off");
        }

        std::fprintf(out, "plugin search path:\n");
        for (const auto &dir : plugin_search_dirs()) {
            struct stat st {};
            std::fprintf(out, "  %s%s\n", dir.c_str(), ::stat(dir.c_str(), &st) == 0 ? "" : "  (missing)");
        }
        std::fprintf(out, "plugins found:\n");
        const auto files = plugin_discover();
        if (files.empty()) std::fprintf(out, "  none\n");
        for (const auto &f : files) print_plugin(out, f, sel);
        for (const auto &name : sel.include) {
            plugin_file f;
            if (!plugin_find(name, f))
                std::fprintf(out, "  %s\n    status:  NOT FOUND (named in CCS_TRANSPORT)\n", name.c_str());
        }

        std::fprintf(out, "environment:\n");
        for (const auto &p : param_list()) {
            const char *v = std::getenv(p.name.c_str());
            std::fprintf(out, "  %-26s = %-14s %s%s%s\n", p.name.c_str(), v ? v : "(unset)", p.description.c_str(),
                         p.default_value.empty() ? "" : "; default ", p.default_value.c_str());
        }
        return CCS_OK;
    });
}
