// CCS_TRANSPORT: an ordered list of plugin names ("shm,ucx"); entries
// written "^name" exclude a plugin. Only exclusions (or unset) means
// automatic selection among every plugin found.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace ccs {

struct transport_selection {
    bool automatic = true;
    std::vector<std::string> include;  // in order of preference
    std::set<std::string> exclude;
};

// False (with reason) on an empty entry or a character outside [a-z0-9_].
bool parse_transport_selection(const std::string &text, transport_selection &out, std::string &reason);

}  // namespace ccs
