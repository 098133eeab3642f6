// How long a request's quanta are: its own length if its source gave one (LibPreemptible's
// per-request deadline), else its class's, else the runtime's, which may change while the
// runtime runs (set by the program, or by an adaptive controller). Read by every runner at
// each quantum's start, one relaxed load: a change reaches every worker within a quantum.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "runtime/request.h"
#include "runtime/spsc_ring.h"

namespace quanta {

class QuantumLengths {
 public:
  // `class_cycles`: one per class, 0 for the classes that use the runtime's length.
  QuantumLengths(uint64_t runtime_cycles, std::vector<uint64_t> class_cycles)
      : runtime_cycles_(runtime_cycles), class_cycles_(std::move(class_cycles)) {}

  uint64_t of(const Request& request) const {
    if (request.quantum_cycles != 0) return request.quantum_cycles;
    if (request.class_index < class_cycles_.size() && class_cycles_[request.class_index] != 0) {
      return class_cycles_[request.class_index];
    }
    return runtime_cycles();
  }
  uint64_t runtime_cycles() const { return runtime_cycles_.load(std::memory_order_relaxed); }
  void set_runtime_cycles(uint64_t cycles) { runtime_cycles_.store(cycles, std::memory_order_relaxed); }

 private:
  alignas(kCacheLine) std::atomic<uint64_t> runtime_cycles_;  // read by every runner, written rarely
  std::vector<uint64_t> class_cycles_;
};

}  // namespace quanta
