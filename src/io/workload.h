// Service-time distributions by name or by spec, and the request classes they define.
// Names follow the papers (DESIGN.md): extreme-bimodal, high-bimodal, exp1, fixed1, tpcc.
// Specs: fixed:X, exp:MEAN, bimodal:P:A:B (P percent of A, the rest B), lognormal:MEAN:SIGMA;
// every time in µs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/rng.h"

namespace quanta {

struct ServiceClass {
  std::string key;      // the class's service time in µs as text ("0.5", "500"), or the spec for a continuous one
  std::string label;    // "short", "long", "all", or the key for classes in between
  double service_us;    // the class's service time (the mean, for a continuous distribution)
  double probability;
};

struct ServiceSample {
  uint32_t class_index;
  double service_ns;
};

class Workload {
 public:
  enum class Shape { kDiscrete, kExponential, kLognormal };

  // Throws std::invalid_argument with a message that names what is wrong in `spec`.
  static Workload parse(std::string_view spec);
  static const std::vector<std::string>& names();

  ServiceSample sample(Rng& rng) const;
  double mean_us() const { return mean_us_; }
  const std::vector<ServiceClass>& classes() const { return classes_; }
  const std::string& spec() const { return spec_; }
  Shape shape() const { return shape_; }

 private:
  static Workload discrete(std::string spec, std::vector<std::pair<double, double>> probability_and_us);
  static Workload continuous(std::string spec, Shape shape, double mean_us, double sigma);

  std::string spec_;
  Shape shape_ = Shape::kDiscrete;
  std::vector<ServiceClass> classes_;
  std::vector<double> cumulative_;  // discrete: running sum of probabilities
  double mean_us_ = 0;
  double sigma_ = 0;                // lognormal shape
  double log_mu_ = 0;               // lognormal location
};

}  // namespace quanta
