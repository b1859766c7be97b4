// What a ccs_datadesc_t points to. The core's AM engine reads the compiled
// program through it (and keeps the program alive by its shared_ptr, so a
// datadesc freed while a send is in flight is safe).
#pragma once

#include "node.hpp"
#include "program.hpp"

#include <memory>
#include <optional>

struct ccs_datadesc_s {
    static constexpr uint64_t live_magic = 0x4343534444455343ull;  // "CCSDDESC"
    uint64_t magic = live_magic;
    ccs::dd::node_ptr root;
    std::shared_ptr<const ccs::dd::program> compiled;  // set by commit, through set_compiled
    // Copies of the program's size and element_run, so that pack and unpack
    // read them from the handle they have just checked, not through
    // `compiled`: one dependent load less on every small call. The program
    // never changes after commit, so they stay true.
    int64_t size = 0;
    std::optional<ccs::dd::run> element_run;

    void set_compiled(std::shared_ptr<const ccs::dd::program> p) {
        if (p) {
            size = p->size;
            element_run = p->element_run;
        }
        compiled = std::move(p);
    }
};

namespace ccs::dd {
// The error check_handle returns, naming `call`.
[[gnu::cold]] ccs_status_t bad_handle(ccs_datadesc_t dd, const char *call, bool need_commit);

// Whether dd is not NULL, live, and committed if asked.
inline bool usable_handle(ccs_datadesc_t dd, bool need_commit) {
    return dd && dd->magic == ccs_datadesc_s::live_magic && (!need_commit || dd->compiled);
}

// The checks every call taking a datadesc makes (usable_handle), naming
// `call` in the error. Inline, the messages out of line: every pack and
// unpack makes them, and a small one takes about 10 ns in all.
inline ccs_status_t check_handle(ccs_datadesc_t dd, const char *call, bool need_commit) {
    if (usable_handle(dd, need_commit)) return CCS_OK;
    return bad_handle(dd, call, need_commit);
}
}  // namespace ccs::dd
