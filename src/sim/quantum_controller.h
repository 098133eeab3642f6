// The simulator's side of --quantum-us adaptive:MIN:MAX: it gathers what LibPreemptible's
// controller looks at over each update period (offered work, sojourns, the queue at the
// period's end) and asks the policy (policy/adaptive_quantum.h) for the next quantum.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "experiment/run_result.h"
#include "policy/adaptive_quantum.h"
#include "stats/histogram.h"

namespace quanta {

class QuantumController {
 public:
  QuantumController(const AdaptiveQuantumParams& params, double first_quantum_us, uint32_t workers);

  // When the next decision is due (simulated ns).
  double next_decision_ns() const { return next_ns_; }
  void on_arrival(double service_ns) { offered_ns_ += service_ns; }
  void on_finish(double sojourn_ns) { sojourns_ns_.record(static_cast<uint64_t>(std::llround(sojourn_ns))); }
  // Decides at next_decision_ns() with `waiting` requests queued behind the running ones;
  // returns the quantum from now on (us) and appends the decision to `series`.
  double decide(uint64_t waiting, std::vector<RunResult::QuantumDecision>& series);

 private:
  AdaptiveQuantumParams params_;
  double quantum_us_;
  uint32_t workers_;
  double period_ns_;
  double next_ns_;
  double offered_ns_ = 0;             // service that arrived this period
  Histogram sojourns_ns_;             // of requests that finished this period
};

}  // namespace quanta
