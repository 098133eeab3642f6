// The monitor of --preempt flag (Concord): it watches each worker's quantum start on the
// worker's counter line and, once a quantum has run its length, writes that worker's
// preemption flag line. The worker's flag probes see it on their next load and yield.
// Polled from the dispatcher's idle loop, so it costs no extra core.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/dispatcher.h"

namespace quanta {

class FlagMonitor {
 public:
  FlagMonitor(std::span<const WorkerPort> workers, uint64_t quantum_cycles);

  void poll(uint64_t now_tsc);

  uint64_t flags_written() const { return flags_written_; }

 private:
  std::span<const WorkerPort> workers_;
  uint64_t quantum_cycles_;
  std::vector<uint64_t> flagged_seq_;  // the last quantum flagged per worker: flag each once
  uint64_t flags_written_ = 0;
};

}  // namespace quanta
