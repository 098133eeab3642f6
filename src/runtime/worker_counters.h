// The cache line a worker publishes its progress on. Only the worker writes it; the
// dispatcher reads it to estimate queue lengths (assigned - finished) and, for MSQ
// tie-breaking, how many quanta the worker's current jobs have been serviced.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/spsc_ring.h"

namespace quanta {

struct alignas(kCacheLine) WorkerCounters {
  std::atomic<uint64_t> finished{0};          // requests completed, ever
  std::atomic<uint64_t> current_quanta{0};    // quanta serviced by the unfinished requests
  std::atomic<uint64_t> quantum_start_tsc{0}; // when the running quantum began (for monitors)
};
static_assert(sizeof(WorkerCounters) == kCacheLine);

}  // namespace quanta
