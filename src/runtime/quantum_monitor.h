// The monitor that ends quanta from outside the worker: it watches each worker's quantum
// start on the worker's counter line and, once a quantum has run `after_cycles`, either
// writes the worker's preemption flag line (--preempt flag, Concord) or sends the worker
// thread the preemption signal (--preempt signal, and hybrid's backstop; LibPreemptible).
// Each quantum is acted on once. Polled from the dispatcher's idle loop, so it costs no
// extra core.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/worker.h"

namespace quanta {

class QuantumMonitor {
 public:
  enum class Action { kWriteFlag, kSignal };

  QuantumMonitor(std::span<const WorkerPort> workers, uint64_t after_cycles, Action action);

  void poll(uint64_t now_tsc);

  uint64_t actions() const { return actions_; }  // flags written or signals sent

 private:
  std::span<const WorkerPort> workers_;
  uint64_t after_cycles_;
  Action action_;
  std::vector<uint64_t> acted_seq_;  // the last quantum acted on, per worker
  uint64_t actions_ = 0;
  int pid_;
};

}  // namespace quanta
