/* Deliberately broken plugins, one per failure the loader must explain.
 * Built several times with BROKEN_<KIND> defined (see CMakeLists.txt). */
#include <ccs/plugin/ccs_plugin_v1.h>

#include <stddef.h>

__attribute__((unused)) static ccs_plugin_status_t query_ok(const ccs_plugin_services_v1_t *services, ccs_plugin_attr_v1_t *attr) {
    (void)services;
    attr->caps = CCS_PLUGIN_CAP_AM | CCS_PLUGIN_CAP_AM_ORDERED;
    attr->scope = CCS_PLUGIN_SCOPE_NODE;
    attr->priority = 1;
    attr->am_max_packet = 4096;
    return CCS_PLUGIN_OK;
}

__attribute__((unused)) static ccs_plugin_status_t init_no_device(const ccs_plugin_services_v1_t *services,
                                          const ccs_plugin_job_v1_t *job, void **state) {
    (void)job;
    (void)state;
    services->log(services->core, CCS_PLUGIN_LOG_INFO, "no device here (deliberately)");
    return CCS_PLUGIN_ERR_NO_DEVICE;
}

#if defined(BROKEN_NO_SYMBOL)
CCS_PLUGIN_EXPORT int not_a_ccs_plugin = 1;
#elif defined(BROKEN_ABI)
CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {
    .struct_size = sizeof(ccs_plugin_v1_t), .abi_version = 7, .name = "badabi", .query = query_ok};
#elif defined(BROKEN_TINY_TABLE)
CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {.struct_size = 8, .abi_version = 1, .name = "tiny"};
#elif defined(BROKEN_INIT)
CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {.struct_size = sizeof(ccs_plugin_v1_t),
                                                         .abi_version = CCS_PLUGIN_ABI_VERSION_1,
                                                         .name = "initfail",
                                                         .query = query_ok,
                                                         .init = init_no_device};
#elif defined(BROKEN_NO_QUERY)
CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {
    .struct_size = sizeof(ccs_plugin_v1_t), .abi_version = CCS_PLUGIN_ABI_VERSION_1, .name = "noquery"};
#elif defined(BROKEN_NAME)
CCS_PLUGIN_EXPORT const ccs_plugin_v1_t ccs_plugin_v1 = {.struct_size = sizeof(ccs_plugin_v1_t),
                                                         .abi_version = CCS_PLUGIN_ABI_VERSION_1,
                                                         .name = "somethingelse",
                                                         .query = query_ok};
#else
#error "define one BROKEN_* kind"
#endif
