#include "core/internal_handlers.hpp"

#include "util/error.hpp"

namespace ccs {

ccs_status_t internal_handlers::reserve(const char *subsystem, uint16_t count, uint16_t &first) {
    if (count == 0 || count > CCS_AM_MAX_HANDLERS - next_) {
        std::string held;
        for (const range &r : ranges_) held += (held.empty() ? "" : ", ") + r.subsystem + " " + std::to_string(r.count);
        return fail(CCS_ERR_INVALID_HANDLER, std::string("internal handlers: ") + subsystem + " asks for " +
                                                 std::to_string(count) + " ids, " +
                                                 std::to_string(CCS_AM_MAX_HANDLERS - next_) + " are left (held: " +
                                                 held + ")");
    }
    first = next_;
    ranges_.push_back({subsystem, next_, count});
    next_ = static_cast<uint16_t>(next_ + count);
    return CCS_OK;
}

const char *internal_handlers::owner(uint16_t id) const {
    for (const range &r : ranges_)
        if (id >= r.first && id - r.first < r.count) return r.subsystem.c_str();
    return nullptr;
}

}  // namespace ccs
