// The monitor that ends quanta from outside the worker: it watches each worker's quantum
// start on the worker's counter line and, once a quantum has run `after_cycles`, either
// writes the worker's preemption flag line (--preempt flag, Concord) or sends the worker
// thread the preemption signal (--preempt signal, and hybrid's backstop; LibPreemptible).
// Polled from the dispatcher's loop, so it costs no extra core.
//
// A quantum still open after the monitor acted is acted on again, at doubling intervals:
// the first action can be lost (a signal that lands after the quantum's start was
// published but before the worker entered the task is stale to the handler; a flag
// written before the worker armed its sequence number is cleared as stale by the probe),
// and code without probes defers every signal (each retry is counted, and the handler
// notes where the task was). Doubling keeps a task that never reaches a probe from costing
// more than a handful of signals.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/worker.h"

namespace quanta {

class QuantumMonitor {
 public:
  enum class Action { kWriteFlag, kSignal };

  // `after_cycles` 0: each quantum's own length, as the worker publishes it.
  QuantumMonitor(std::span<const WorkerPort> workers, uint64_t after_cycles, Action action);

  void poll(uint64_t now_tsc);

  uint64_t actions() const { return actions_; }  // flags written or signals sent, retries included
  uint64_t retries() const { return retries_; }  // ... of those, repeats for a quantum still open

 private:
  struct Watched {
    uint64_t acted_seq = 0;    // the last quantum acted on
    uint64_t next_try_tsc = 0; // when to act on it again if it is still open
    uint64_t retry_gap = 0;    // cycles until the next retry after that (doubles)
  };
  void act(std::size_t worker, uint64_t seq);

  std::span<const WorkerPort> workers_;
  uint64_t after_cycles_;
  Action action_;
  std::vector<Watched> watched_;
  uint64_t actions_ = 0;
  uint64_t retries_ = 0;
  int pid_;
};

}  // namespace quanta
