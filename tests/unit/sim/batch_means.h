// Batch means: the standard error of a simulation estimate whose samples are correlated
// (consecutive sojourns in a queue are). The run's samples, in completion order, are cut
// into B equal batches; batches much longer than the queue's relaxation time are nearly
// independent, so the spread of their means gives the estimate's standard error.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "sim/sim_config.h"

namespace quanta::testing {

struct Estimate {
  double value;  // mean of the batch statistics
  double se;     // their standard deviation / sqrt(B)
};

// Applies `stat` to each of `batches` consecutive batches of `samples`.
inline Estimate batch_estimate(const std::vector<double>& samples, int batches,
                               const std::function<double(std::vector<double>&)>& stat) {
  const std::size_t size = samples.size() / static_cast<std::size_t>(batches);
  std::vector<double> values;
  for (int b = 0; b < batches; ++b) {
    std::vector<double> batch(samples.begin() + static_cast<std::ptrdiff_t>(b * size),
                              samples.begin() + static_cast<std::ptrdiff_t>((b + 1) * size));
    values.push_back(stat(batch));
  }
  double mean = 0;
  for (double v : values) mean += v;
  mean /= batches;
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  var /= batches - 1;
  return {mean, std::sqrt(var / batches)};
}

inline double mean_of(std::vector<double>& xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

inline double quantile_of(std::vector<double>& xs, double q) {
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(xs.size()))) - 1;
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
  return xs[k];
}

// Collects the sojourn and the wait (sojourn - service) of measured requests, in µs.
class Collector : public SimObserver {
 public:
  void on_finish(const FinishedRequest& r) override {
    if (!r.measured) return;
    const double sojourn_us = (r.finish_ns - r.arrival_ns) * 1e-3;
    sojourn.push_back(sojourn_us);
    wait.push_back(sojourn_us - r.service_ns * 1e-3);
  }
  std::vector<double> sojourn;
  std::vector<double> wait;
};

}  // namespace quanta::testing
