// armci_msg_snd / rcv: tagged messages as CCS active messages, kept in
// arrival order until a receive matches them (by source and tag, as MPI
// matches).
#pragma once

#include "state.hpp"

namespace ccs::armci {
inline constexpr uint16_t message_handler_id = 1;
void on_message(const ccs_am_message_t *message, void *arg);
void forget_messages();
}  // namespace ccs::armci
