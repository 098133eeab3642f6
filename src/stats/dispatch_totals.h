// What the dispatcher counts about the requests it took from the sources, in every runtime
// (and the simulator): how many, how many were dropped, how often it stalled or was late.
#pragma once

#include <cstdint>

namespace quanta {

struct DispatchTotals {
  uint64_t generated = 0;        // requests taken from the sources
  uint64_t dispatched = 0;       // ... handed to a worker (or a queue, or run by the dispatcher)
  uint64_t dropped = 0;          // ring full (or no slot) with --on-full drop
  uint64_t full_ring_waits = 0;  // ring full (or no slot) with --on-full wait: the dispatcher stalled
  uint64_t late_arrivals = 0;    // requests dispatched more than 1 µs after they arrived
};

}  // namespace quanta
