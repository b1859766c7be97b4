// A full memory barrier on every running thread of the process, for locks
// with one side that enters often and one that enters rarely: the frequent
// side marks itself with a plain store, and the rare side, between its own
// mark and its look at the others, makes every thread pass a barrier.
#pragma once

namespace ccs::membarrier {

// Whether the kernel offers it (registered for this process on the first
// ask). Always false under ThreadSanitizer, which does not know what it
// orders: callers then use ordinary fences.
bool available();
// The barrier; only where available().
void all_threads();

}  // namespace ccs::membarrier
