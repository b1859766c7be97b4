// The verbs plugin's exported table: the plugin on libibverbs, with the
// memory hooks that keep the core's registrations off unmapped memory.
#include "verbs_plugin.hpp"
#include "verbs_unmap_watch.hpp"

#include "common/plugin_table.hpp"

namespace ccs::verbs {
namespace {

class verbs_with_hooks final : public verbs_plugin {
public:
    verbs_with_hooks(const ccs_plugin_services_v1_t &services, const ccs_plugin_job_v1_t &job, const config &cfg)
        : verbs_plugin(services, job, cfg), watch_(plugin::core_services(services, name)) {}

    ccs_plugin_status_t init() {
        const ccs_plugin_status_t st = verbs_plugin::init();
        if (st != CCS_PLUGIN_OK) return st;
        std::string why;
        if (!watch_.start(why)) {
            plugin::core_services(raw_services(), name).log(CCS_PLUGIN_LOG_ERROR, why);
            return CCS_PLUGIN_ERR_SYSTEM;
        }
        return CCS_PLUGIN_OK;
    }

private:
    unmap_watch watch_;
};

}  // namespace
}  // namespace ccs::verbs

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 =
    ccs::plugin::make_table<ccs::verbs::verbs_with_hooks>();
