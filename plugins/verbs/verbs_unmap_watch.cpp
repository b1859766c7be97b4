// The unmap watch on UCM's memory events.
#include "verbs_unmap_watch.hpp"

#include <ucm/api/ucm.h>

namespace ccs::verbs {
namespace {

// Before the original call, so the core hears of it before the pages go.
constexpr int before_the_call = -1;

void forward(ucm_event_type_t type, ucm_event_t *event, void *self) {
    if (type == UCM_EVENT_VM_UNMAPPED)
        static_cast<const unmap_watch *>(self)->unmapping(event->vm_unmapped.address, event->vm_unmapped.size);
}

}  // namespace

unmap_watch::~unmap_watch() {
    if (started_) ucm_unset_event_handler(UCM_EVENT_VM_UNMAPPED, forward, this);
}

bool unmap_watch::start(std::string &why) {
    const ucs_status_t st = ucm_set_event_handler(UCM_EVENT_VM_UNMAPPED, before_the_call, forward, this);
    if (st != UCS_OK) {
        why = std::string("cannot install the memory hooks that keep registrations away from unmapped memory: ") +
              ucs_status_string(st) + " (is UCX_MEM_EVENTS=no set?)";
        return false;
    }
    started_ = true;
    return true;
}

}  // namespace ccs::verbs
