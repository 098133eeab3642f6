#include "policy/adaptive_quantum.h"

#include "policy/finite_number.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace quanta {
namespace {

constexpr std::string_view kPrefix = "adaptive:";

double parse_us(std::string_view text, std::string_view spec, const char* which) {
  const std::optional<double> number = parse_finite_number(text);
  if (!number) {
    throw std::invalid_argument("bad quantum '" + std::string(spec) + "': " + which + " '" + std::string(text) +
                                "' is not a number (adaptive:MIN:MAX, in us)");
  }
  const double v = *number;
  if (v < 1e-3 || v > 1e6) {
    throw std::invalid_argument("bad quantum '" + std::string(spec) + "': " + which +
                                " must be from 0.001 to 1000000 us");
  }
  return v;
}

// "period_s=0.05,high=0.8,...": the hyperparameters after MIN:MAX.
void set_hyperparameters(AdaptiveQuantumParams& p, std::string_view list, std::string_view spec) {
  struct Key {
    const char* name;
    double AdaptiveQuantumParams::*field;
    double low, high;
  };
  static const Key keys[] = {
      {"period_s", &AdaptiveQuantumParams::period_s, 1e-6, 1e6},
      {"high", &AdaptiveQuantumParams::high_load, 0, 100},
      {"low", &AdaptiveQuantumParams::low_load, 0, 100},
      {"k1", &AdaptiveQuantumParams::step_down_load_us, 1e-3, 1e6},
      {"k2", &AdaptiveQuantumParams::step_down_tail_us, 1e-3, 1e6},
      {"k3", &AdaptiveQuantumParams::step_up_us, 1e-3, 1e6},
      {"queue", &AdaptiveQuantumParams::queue_threshold, 0, 1e9},
      {"alpha", &AdaptiveQuantumParams::heavy_tail_alpha, 0, 100},
  };
  const std::string whole(spec);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    const std::size_t eq = item.find('=');
    const std::string name(item.substr(0, eq));
    const Key* key = nullptr;
    for (const Key& k : keys) {
      if (name == k.name) key = &k;
    }
    if (eq == std::string_view::npos || key == nullptr) {
      throw std::invalid_argument("bad quantum '" + whole + "': '" + std::string(item) +
                                  "' is not KEY=VALUE with KEY one of period_s, high, low, k1, k2, k3, queue, alpha");
    }
    const std::optional<double> v = parse_finite_number(item.substr(eq + 1));
    if (!v || *v < key->low || *v > key->high) {
      char range[64];
      std::snprintf(range, sizeof range, "from %g to %g", key->low, key->high);
      throw std::invalid_argument("bad quantum '" + whole + "': " + name + " must be a number " + range);
    }
    p.*(key->field) = *v;
  }
  if (p.low_load >= p.high_load) throw std::invalid_argument("bad quantum '" + whole + "': low must be below high");
}

}  // namespace

bool is_adaptive_quantum_spec(std::string_view spec) { return spec.substr(0, kPrefix.size()) == kPrefix; }

AdaptiveQuantumParams parse_adaptive_quantum(std::string_view spec) {
  if (!is_adaptive_quantum_spec(spec)) {
    throw std::invalid_argument("bad quantum '" + std::string(spec) + "': expected adaptive:MIN:MAX (us)");
  }
  const std::string_view rest = spec.substr(kPrefix.size());
  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("bad quantum '" + std::string(spec) + "': expected adaptive:MIN:MAX (us)");
  }
  AdaptiveQuantumParams p;
  p.min_us = parse_us(rest.substr(0, colon), spec, "MIN");
  std::string_view after = rest.substr(colon + 1);
  const std::size_t more = after.find(':');
  p.max_us = parse_us(after.substr(0, more), spec, "MAX");
  if (more != std::string_view::npos) set_hyperparameters(p, after.substr(more + 1), spec);
  if (p.min_us >= p.max_us) {
    throw std::invalid_argument("bad quantum '" + std::string(spec) + "': MIN must be below MAX");
  }
  return p;
}

double pareto_tail_index(double p50_us, double p99_us) {
  if (!(p50_us > 0) || !(p99_us > p50_us)) return std::numeric_limits<double>::infinity();
  // P(X > x) = (m / x)^alpha puts the median at m 2^(1/alpha) and p99 at m 100^(1/alpha).
  return std::log(50.0) / std::log(p99_us / p50_us);
}

AdaptiveQuantumDecision decide_quantum(const AdaptiveQuantumParams& params, double current_us,
                                       const AdaptiveQuantumInputs& in) {
  AdaptiveQuantumDecision d;
  double tq = std::clamp(current_us, params.min_us, params.max_us);
  d.tail_index = pareto_tail_index(in.p50_us, in.p99_us);
  if (in.load > params.high_load) {
    d.high_load = true;
    tq = std::max(tq - params.k1(), params.min_us);
  }
  d.long_queue = in.queue_per_worker > params.queue_threshold;
  d.heavy_tail = d.tail_index < params.heavy_tail_alpha;
  if (d.long_queue || d.heavy_tail) tq = std::max(tq - params.k2(), params.min_us);
  if (in.load < params.low_load) {
    d.low_load = true;
    tq = std::min(tq + params.k3(), params.max_us);
  }
  d.quantum_us = tq;
  return d;
}

}  // namespace quanta
