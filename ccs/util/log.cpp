#include "util/log.hpp"

#include "util/params.hpp"

#include <cstdio>
#include <cstring>

namespace ccs {
namespace {

int g_rank = -1;

log_level configured_level() {
    // ccs_init refuses a bad CCS_LOG_LEVEL; a message logged before (or
    // without) it uses the default instead.
    static const log_level level = [] {
        log_level l = log_level::warn;
        std::string ignored;
        log_level_param(l, ignored);
        return l;
    }();
    return level;
}

const char *level_name(log_level level) {
    switch (level) {
    case log_level::error: return "error";
    case log_level::warn: return "warning";
    case log_level::info: return "info";
    case log_level::debug: return "debug";
    }
    return "?";
}

}  // namespace

bool log_level_param(log_level &level, std::string &error) {
    param_declare_core();
    std::string v;
    if (!param_choice("CCS_LOG_LEVEL", {"error", "warn", "info", "debug"}, v, error)) return false;
    level = v == "error" ? log_level::error : v == "info" ? log_level::info : v == "debug" ? log_level::debug : log_level::warn;
    return true;
}

void log_set_rank(int rank) { g_rank = rank; }

bool log_enabled(log_level level) {
    return static_cast<int>(level) <= static_cast<int>(configured_level());
}

void log_message(log_level level, const std::string &message) {
    if (!log_enabled(level)) return;
    if (g_rank >= 0)
        std::fprintf(stderr, "ccs[%d] %s: %s\n", g_rank, level_name(level),
                     message.c_str());
    else
        std::fprintf(stderr, "ccs %s: %s\n", level_name(level), message.c_str());
}

}  // namespace ccs
