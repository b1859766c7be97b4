// The UCX plugin's exported table.
#include "ucx_plugin.hpp"

#include "common/plugin_table.hpp"

extern "C" CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = ccs::plugin::make_table<ccs::ucx::ucx_plugin>();
