// Sizes as people write them in the environment: 4096, 64k, 8M, 1G. One
// parser for the core's parameters and every plugin's (plugins/common).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <string>

namespace ccs {

// False on junk, a sign, an unknown suffix or a value that does not fit.
inline bool parse_size(const std::string &text, size_t &value) {
    if (text.empty() || text[0] == '-') return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str()) return false;
    unsigned long long mult = 1;
    const std::string suffix(end);
    if (suffix.empty()) mult = 1;
    else if (suffix == "k" || suffix == "K") mult = 1ull << 10;
    else if (suffix == "m" || suffix == "M") mult = 1ull << 20;
    else if (suffix == "g" || suffix == "G") mult = 1ull << 30;
    else return false;
    if (n > ~0ull / mult || n * mult > static_cast<unsigned long long>(static_cast<size_t>(-1))) return false;
    value = static_cast<size_t>(n * mult);
    return true;
}

}  // namespace ccs
