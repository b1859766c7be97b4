// Environment parameters. Every variable CCS reads goes through param_get so
// that ccs_info can list each one with its meaning and current value.
#pragma once

#include "parse_size.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace ccs {

struct param_info {
    std::string name;
    std::string default_value;
    std::string description;
};

// Value of environment variable `name`, or `default_value` when unset.
std::string param_get(const std::string &name, const std::string &default_value,
                      const std::string &description);

// A numeric parameter the core declared (param_declare_core holds its
// default): its value in parse_size syntax, at most `max`. False on junk or
// a larger value, with `error` naming the variable, its text, the unit and
// the limit.
bool param_size(const std::string &name, const char *unit, size_t max, size_t &value, std::string &error);

// A declared parameter that takes one of `choices`; false on anything
// else, with `error` listing them.
bool param_choice(const std::string &name, std::initializer_list<const char *> choices, std::string &value,
                  std::string &error);

// Every parameter read so far (or declared by param_declare_core).
std::vector<param_info> param_list();

// Makes the core's own parameters known before they are first read.
void param_declare_core();

}  // namespace ccs
