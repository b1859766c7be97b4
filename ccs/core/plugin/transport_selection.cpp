#include "core/plugin/transport_selection.hpp"

#include <algorithm>

namespace ccs {

bool parse_transport_selection(const std::string &text, transport_selection &out, std::string &reason) {
    out = transport_selection{};
    if (text.empty()) return true;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t end = std::min(text.find(',', pos), text.size());
        std::string entry = text.substr(pos, end - pos);
        pos = end + 1;
        const bool excluded = !entry.empty() && entry[0] == '^';
        if (excluded) entry.erase(0, 1);
        const bool valid = !entry.empty() && std::all_of(entry.begin(), entry.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
        if (!valid) {
            reason = "CCS_TRANSPORT='" + text + "': entry '" + entry +
                     "' is not a plugin name (use a,b or ^a; names are [a-z0-9_])";
            return false;
        }
        if (excluded) {
            out.exclude.insert(entry);
        } else if (std::find(out.include.begin(), out.include.end(), entry) == out.include.end()) {
            out.include.push_back(entry);
        }
    }
    out.include.erase(std::remove_if(out.include.begin(), out.include.end(),
                                     [&](const std::string &n) { return out.exclude.count(n) > 0; }),
                      out.include.end());
    out.automatic = out.include.empty();
    return true;
}

}  // namespace ccs
