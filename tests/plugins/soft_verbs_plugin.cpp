// libccs_plugin_softverbs.so: the verbs plugin's own code on the software
// fabric of tests/unit/verbs, inside one process, so that a job of one
// rank drives it through the real core where no RDMA device exists:
// wire-up, registrations from the core's cache, local memory the cache
// lends, network atomics on the process's own memory through its
// connection to itself, sleeping, finalize. The plugin cannot tell: only
// its verbs_ops differ from libccs_plugin_verbs.so's (which also installs
// the memory hooks, tested on their own).
#include "soft_fabric.hpp"
#include "verbs_plugin.hpp"

#include "common/plugin_table.hpp"

namespace {

using ccs::verbs::testing::soft_fabric;
using ccs::verbs::testing::soft_host;

soft_host &the_host() {
    static soft_fabric fabric;
    static soft_host &host = fabric.add_host();
    return host;
}

class soft_verbs final : public ccs::verbs::verbs_plugin {
public:
    static constexpr const char *name = "softverbs";
    static ccs_plugin_status_t query(const ccs::plugin::core_services &core, const config &cfg,
                                     ccs_plugin_attr_v1_t &attr) {
        return query_on(the_host(), core, cfg, attr);
    }
    soft_verbs(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
        : verbs_plugin(services, job, cfg, the_host()) {}
};

}  // namespace

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = ccs::plugin::make_table<soft_verbs>();
