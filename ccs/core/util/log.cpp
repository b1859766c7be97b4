#include "util/log.hpp"

#include "util/params.hpp"

#include <cstdio>
#include <cstring>

namespace ccs {
namespace {

int g_rank = -1;

log_level configured_level() {
    static const log_level level = [] {
        const std::string v = param_get("CCS_LOG_LEVEL", "warn",
                                        "error, warn, info or debug");
        if (v == "error") return log_level::error;
        if (v == "info") return log_level::info;
        if (v == "debug") return log_level::debug;
        return log_level::warn;
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
