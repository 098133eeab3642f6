// What one run measured (in process or simulated), before formatting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/run_config.h"
#include "stats/histogram.h"
#include "stats/interval_stats.h"
#include "stats/run_counters.h"

namespace quanta {

struct RunResult : RunCounters {
  RunConfig config;                 // effective: defaults filled in (workers, rate)
  double offered_rps = 0;           // the schedule's rate
  double elapsed_s = 0;             // first arrival .. last completion
  double tsc_per_ns = 0;
  unsigned cpus = 0;                // CPUs the process could use (0: not a real run)
  uint64_t build_failures = 0;      // arrivals whose payload the app's make_request could not build
  std::string app_name;             // the app that served the run
  // The mean service time --load was converted with, and where it came from: "workload"
  // (nominal), "app" (declared by the app) or "measured" (a pilot run; see in_process_run.h).
  double mean_service_us = 0;
  std::string mean_service_source = "workload";
  // --quantum-us adaptive:MIN:MAX: each of the controller's decisions, in order.
  using QuantumDecision = AdaptiveQuantumStep;
  std::vector<QuantumDecision> quantum_series;
  uint64_t late_periods = 0;        // quanta run: period ends the controller woke up too late for
  // --interval-s: every request's sojourn by the interval it finished in, in order.
  std::vector<IntervalStats> intervals;
};

}  // namespace quanta
