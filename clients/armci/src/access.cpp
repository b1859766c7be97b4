#include "access.hpp"

namespace ccs::armci {
namespace {
struct spans_owner {
    std::vector<in_flight_span> spans;
    ~spans_owner() { t_spans = nullptr; }
};
}  // namespace

std::vector<in_flight_span> &make_spans() {
    static thread_local spans_owner owner;
    t_spans = &owner.spans;
    return owner.spans;
}

}  // namespace ccs::armci
