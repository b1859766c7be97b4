// ARMCI mutexes: MCS queue locks over CCS atomics, so that waiters are
// served in the order they came, each waits on a word of its own memory,
// and the holder never has to make progress for others to queue.
//
// Each process hosts its own mutexes' tails (0, or the last process in
// line plus one) and keeps its place in every mutex's line: its successor
// plus one in the low 31 bits, the top bit set when the lock is handed to
// it. Both live in one collective allocation per process.
#pragma once

#include "state.hpp"

namespace ccs::armci {
// At finalize: forgets the mutexes; their words go with the other
// allocations (allocation_table::clear), after finalize's barrier.
void forget_mutexes();
}  // namespace ccs::armci
