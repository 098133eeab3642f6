#include "sim/quantum_controller.h"

#include <algorithm>
#include <cmath>

namespace quanta {
namespace {

// The p-th percentile (0..100) of `values` by the nearest rank; reorders them.
double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  const std::size_t index = std::min(values.size() - 1, rank > 0 ? rank - 1 : 0);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return values[index];
}

}  // namespace

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
  in.p50_us = percentile(sojourns_us_, 50);
  in.p99_us = percentile(sojourns_us_, 99);
  const AdaptiveQuantumDecision d = decide_quantum(params_, quantum_us_, in);
  series.push_back({next_ns_ * 1e-9, in, d});
  quantum_us_ = d.quantum_us;
  offered_ns_ = 0;
  sojourns_us_.clear();
  next_ns_ += period_ns_;
  return quantum_us_;
}

}  // namespace quanta
