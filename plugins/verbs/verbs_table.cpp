// The verbs plugin's exported table.
#include "verbs_plugin.hpp"

#include "common/plugin_table.hpp"

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = ccs::plugin::make_table<ccs::verbs::verbs_plugin>();
