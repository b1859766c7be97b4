// UCX's callbacks into the plugin. They only record what happened; the
// plugin acts on it at the end of progress(), outside UCX.
#pragma once

#include "ucx_plugin.hpp"

namespace ccs::ucx {

struct callbacks {
    static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t status);
    static ucs_status_t am_arrived(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                   const ucp_am_recv_param_t *param);
    static void rendezvous_received(void *request, ucs_status_t status, size_t length, void *user_data);
    static void placement_received(void *request, ucs_status_t status, size_t length, void *user_data);
    static void send_done(void *request, ucs_status_t status, void *user_data);
    static void nocopy_send_done(void *request, ucs_status_t status, void *user_data);
    static void rma_piece_done(void *request, ucs_status_t status, void *user_data);
    static void compare_and_swap_done(void *request, ucs_status_t status, void *user_data);
};

// The AM id every CCS packet travels under.
constexpr uint16_t am_id = 0;
// No-copy sends are for packets at least this large (ccs_plugin_attr_v1_t
// am_nocopy_min): below it a copy costs less than the bookkeeping.
constexpr size_t nocopy_min = 64u << 10;

}  // namespace ccs::ucx
