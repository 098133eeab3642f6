#include "sim/quantum_controller.h"

#include <algorithm>
#include <cmath>

namespace quanta {

QuantumController::QuantumController(const AdaptiveQuantumParams& params, double first_quantum_us, uint32_t workers)
    : params_(params),
      quantum_us_(std::clamp(first_quantum_us, params.min_us, params.max_us)),
      workers_(workers),
      period_ns_(params.period_s * 1e9),
      next_ns_(params.period_s * 1e9) {}

double QuantumController::decide(uint64_t waiting, std::vector<RunResult::QuantumDecision>& series) {
  AdaptiveQuantumInputs in;
  in.load = offered_ns_ / (static_cast<double>(workers_) * period_ns_);
  in.queue_per_worker = static_cast<double>(waiting) / static_cast<double>(workers_);
  in.p50_us = static_cast<double>(sojourns_ns_.value_at_percentile(50)) / 1e3;
  in.p99_us = static_cast<double>(sojourns_ns_.value_at_percentile(99)) / 1e3;
  const AdaptiveQuantumDecision d = decide_quantum(params_, quantum_us_, in);
  series.push_back({next_ns_ * 1e-9, in, d});
  quantum_us_ = d.quantum_us;
  offered_ns_ = 0;
  sojourns_ns_.clear();
  next_ns_ += period_ns_;
  return quantum_us_;
}

}  // namespace quanta
