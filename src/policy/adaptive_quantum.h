// LibPreemptible's adaptive time-quantum controller (Algorithm 1 of the paper in
// ../shared/papers/001_*): once per update period it looks at the offered load, the queue
// length and the shape of recent latencies, and moves the quantum down under high load, a
// long queue or a heavy tail, and up under low load, within [min, max].
//
// Where it differs from the paper, and why:
// - The paper's listing clamps with min{TQ - k, Tmin} and max{TQ + k, Tmax}, which would
//   pin the quantum to the bounds at every step; the text says the quantum shrinks under
//   load and grows when idle, so this clamps the other way: max{TQ - k, min}, min{TQ + k, max}.
// - The tail index is fitted from the two latencies the controller is given (median and
//   p99) as a Pareto tail: x99 / x50 = 50^(1/alpha), so alpha = ln 50 / ln(x99 / x50);
//   alpha < 2 is a heavy tail (infinite variance), as in the paper's reference.
// - The paper updates every 10 s on runs of minutes; runs here last seconds, so the
//   period is an option (0.1 s by default) and so are the steps.
// Pure decision code: no clocks, no threads; the caller measures and applies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace quanta {

struct AdaptiveQuantumParams {
  double min_us = 3;
  double max_us = 50;
  double high_load = 0.9;          // L_high, as a share of the load the workers can carry
  double low_load = 0.1;           // L_low
  double step_down_load_us = 0;    // k1 (0: a quarter of max - min)
  double step_down_tail_us = 0;    // k2 (0: a quarter of max - min)
  double step_up_us = 0;           // k3 (0: an eighth of max - min: slower up than down)
  double queue_threshold = 8;      // Q_threshold, requests waiting per worker
  double heavy_tail_alpha = 2;     // a fitted tail index below this is a heavy tail
  double period_s = 0.1;           // how often the controller decides

  // The steps with their defaults filled in.
  double k1() const { return step_down_load_us > 0 ? step_down_load_us : (max_us - min_us) / 4; }
  double k2() const { return step_down_tail_us > 0 ? step_down_tail_us : (max_us - min_us) / 4; }
  double k3() const { return step_up_us > 0 ? step_up_us : (max_us - min_us) / 8; }
};

// "adaptive:MIN:MAX" (us), optionally ":KEY=VALUE,..." for the hyperparameters (period_s,
// high, low, k1, k2, k3, queue, alpha). Throws std::invalid_argument naming what is wrong.
AdaptiveQuantumParams parse_adaptive_quantum(std::string_view spec);
bool is_adaptive_quantum_spec(std::string_view spec);

// What the controller sees at a decision: the offered load over the last period (a share
// of capacity), requests waiting per worker, and the period's latency median and p99.
struct AdaptiveQuantumInputs {
  double load = 0;
  double queue_per_worker = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// A decision and why it was taken (for the run's time series).
struct AdaptiveQuantumDecision {
  double quantum_us = 0;
  double tail_index = 0;    // fitted alpha; +inf when the latencies give no tail to fit
  bool high_load = false;   // rule 1: down by k1
  bool long_queue = false;  // rule 2, first half: down by k2
  bool heavy_tail = false;  // rule 2, second half
  bool low_load = false;    // rule 3: up by k3
};

// One decision as a run's time series shows it: when, from what, and what it chose.
struct AdaptiveQuantumStep {
  double at_s = 0;                 // the end of the period it looked at, from the run's start
  AdaptiveQuantumInputs inputs;    // what it saw over that period
  AdaptiveQuantumDecision decision;
};

// The Pareto tail index through (p50, p99); +inf when p99 <= p50 or either is not positive.
double pareto_tail_index(double p50_us, double p99_us);

AdaptiveQuantumDecision decide_quantum(const AdaptiveQuantumParams& params, double current_us,
                                       const AdaptiveQuantumInputs& inputs);

}  // namespace quanta
