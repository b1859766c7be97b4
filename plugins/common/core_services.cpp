#include "core_services.hpp"

#include "util/parse_size.hpp"

#include <cctype>

namespace ccs::plugin {

std::string core_services::variable(const char *name) const {
    std::string v = "CCS_";
    for (const char *c = plugin_; *c; ++c) v += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    return v + "_" + name;
}

bool core_services::param_size(const char *name, const char *default_value, const char *description, size_t min,
                               size_t max, size_t &out, std::string &reason, const char *rule) const {
    const std::string text = param(name, default_value, description);
    size_t v = 0;
    if (parse_size(text, v) && v >= min && v <= max) {
        out = v;
        return true;
    }
    reason = variable(name) + "='" + text + "' must be " +
             (rule ? std::string(rule) : "from " + std::to_string(min) + " to " + std::to_string(max));
    return false;
}

}  // namespace ccs::plugin
