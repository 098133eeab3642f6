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
  // The running quantum, for a monitor that ends quanta (--preempt flag): its sequence
  // number and start. quantum_start_tsc is 0 while the worker runs no task.
  std::atomic<uint64_t> quantum_seq{0};
  std::atomic<uint64_t> quantum_start_tsc{0};
  std::atomic<uint64_t> running_request_id{0};  // the request of that quantum (the watchdog's report)
  std::atomic<uint64_t> quantum_length_cycles{0};  // ... and its length (requests and classes differ)
  // Written by this worker's preemption-signal handler: where the running task was when
  // the watchdog asked, or when a signal had to be deferred (preempt/signal_preempt.h).
  // `samples` counts the notes, so a reader can tell a fresh one from the last.
  std::atomic<uintptr_t> sampled_pc{0};
  std::atomic<uint64_t> samples{0};
};
static_assert(sizeof(WorkerCounters) == kCacheLine);

// The cache line a monitor writes to end a worker's quantum (Concord's preemption flag).
// The flag probes of the worker's tasks read `word` through quanta_flag_word; the monitor
// stores the sequence number of the quantum it wants ended, so a late store that lands
// after that quantum is over is recognised as stale (the worker clears the word at the
// start of every quantum).
struct alignas(kCacheLine) PreemptFlagLine {
  uint32_t word = 0;  // written with __atomic_store_n, read by volatile loads
};
static_assert(sizeof(PreemptFlagLine) == kCacheLine);

}  // namespace quanta
