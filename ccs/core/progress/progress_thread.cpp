#include "core/progress/progress_thread.hpp"

#include "util/api_lock.hpp"
#include "util/log.hpp"

#include <hwloc.h>

#include <algorithm>
#include <memory>

namespace ccs {
namespace {

struct topology_deleter {
    void operator()(hwloc_topology *t) const { hwloc_topology_destroy(t); }
};
struct bitmap_deleter {
    void operator()(hwloc_bitmap_s *b) const { hwloc_bitmap_free(b); }
};
using bitmap = std::unique_ptr<hwloc_bitmap_s, bitmap_deleter>;

}  // namespace

void progress_thread::start(std::function<bool()> polled, std::function<bool()> serve, std::function<void()> wake) {
    polled_ = std::move(polled);
    serve_ = std::move(serve);
    wake_ = std::move(wake);
    stop_.store(false);
    bound_.store(false);
    thread_ = std::thread([this] { run(); });
    // The binding is known before ccs_init returns, for ccs_info.
    while (!bound_.load(std::memory_order_acquire)) std::this_thread::yield();
}

void progress_thread::stop() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    if (wake_) wake_();
    thread_.join();
}

void progress_thread::run() {
    api_lock::mark_progress_thread();
    binding_ = bind_self();
    bound_.store(true, std::memory_order_release);
    // Each look that finds the application polling again doubles the wait
    // before the next (up to look_at_most): waking on its CPU costs the
    // application a context switch each time.
    auto wait = look_every;
    while (!stop_.load(std::memory_order_relaxed)) {
        if (polled_()) {
            std::this_thread::sleep_for(wait);
            wait = std::min(wait * 2, look_at_most);
            continue;
        }
        bool application_polls = false;
        {
            const api_lock::entry inside;
            if (stop_.load(std::memory_order_relaxed)) break;
            application_polls = serve_();
        }
        if (application_polls) {
            std::this_thread::sleep_for(wait);
            continue;
        }
        wait = look_every;
    }
}

// A PU the application does not use: where the process is bound (a
// launcher's --bind-to core), another PU of the cores it is bound to (a
// hyperthread sibling). PUs outside the binding may be other processes'
// of the node, and an unbound process gives no hint which PUs are free:
// the thread then runs where the scheduler puts it.
std::string progress_thread::bind_self() {
    hwloc_topology *raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) return "not bound: hwloc_topology_init failed";
    std::unique_ptr<hwloc_topology, topology_deleter> topo(raw);
    if (hwloc_topology_load(raw) != 0) return "not bound: hwloc_topology_load failed";
    bitmap process(hwloc_bitmap_alloc());
    if (!process || hwloc_get_cpubind(raw, process.get(), HWLOC_CPUBIND_PROCESS) != 0)
        return "not bound: the process's binding is unknown";
    const hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(raw);
    if (hwloc_bitmap_isincluded(allowed, process.get()))
        return "not bound: the application is not bound, so no PU is known to be free";
    // The cores the process is bound to, all their PUs.
    bitmap cores(hwloc_bitmap_alloc());
    int pu = -1;
    hwloc_bitmap_foreach_begin(pu, process.get()) {
        hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(raw, static_cast<unsigned>(pu));
        hwloc_obj_t core = obj ? hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_CORE, obj) : nullptr;
        if (core) hwloc_bitmap_or(cores.get(), cores.get(), core->cpuset);
    }
    hwloc_bitmap_foreach_end();
    bitmap choice(hwloc_bitmap_alloc());
    hwloc_bitmap_andnot(choice.get(), cores.get(), process.get());
    hwloc_bitmap_and(choice.get(), choice.get(), allowed);
    if (hwloc_bitmap_iszero(choice.get()))
        return "not bound: no PU of the application's cores is free (other processes of the node may use the rest)";
    hwloc_bitmap_singlify(choice.get());
    if (hwloc_set_cpubind(raw, choice.get(), HWLOC_CPUBIND_THREAD) != 0)
        return "not bound: hwloc_set_cpubind failed";
    const std::string where =
        "PU " + std::to_string(hwloc_bitmap_first(choice.get())) + ", a hyperthread of the application's core";
    log_message(log_level::info, "progress thread bound to " + where);
    return "bound to " + where;
}

}  // namespace ccs
