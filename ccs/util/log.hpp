// Logging to stderr, prefixed with the rank once it is known. Level from
// CCS_LOG_LEVEL (error, warn, info, debug); default warn.
#pragma once

#include <string>

namespace ccs {

enum class log_level : int { error = 1, warn = 2, info = 3, debug = 4 };

// CCS_LOG_LEVEL (error, warn, info or debug); false with `error` on
// anything else.
bool log_level_param(log_level &level, std::string &error);
void log_set_rank(int rank);
bool log_enabled(log_level level);
void log_message(log_level level, const std::string &message);

}  // namespace ccs
