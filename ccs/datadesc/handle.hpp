// What a ccs_datadesc_t points to. The core's AM engine reads the compiled
// program through it (and keeps the program alive by its shared_ptr, so a
// datadesc freed while a send is in flight is safe).
#pragma once

#include "node.hpp"
#include "program.hpp"

#include <memory>

struct ccs_datadesc_s {
    static constexpr uint64_t live_magic = 0x4343534444455343ull;  // "CCSDDESC"
    uint64_t magic = live_magic;
    ccs::dd::node_ptr root;
    std::shared_ptr<const ccs::dd::program> compiled;  // set by commit
};

namespace ccs::dd {
// The checks every call taking a datadesc makes: not NULL, live, and
// committed if asked. Names `call` in the error.
ccs_status_t check_handle(ccs_datadesc_t dd, const char *call, bool need_commit);
}  // namespace ccs::dd
