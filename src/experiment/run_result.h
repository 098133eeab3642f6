// What one run measured (in process or simulated), before formatting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/run_config.h"
#include "stats/class_stats.h"
#include "stats/dispatch_totals.h"

namespace quanta {

struct RunResult {
  RunConfig config;                 // effective: defaults filled in (workers, rate)
  double offered_rps = 0;           // the schedule's rate
  double elapsed_s = 0;             // first arrival .. last completion
  double tsc_per_ns = 0;
  DispatchTotals dispatch;
  uint64_t completed = 0;
  uint64_t quanta = 0;
  uint64_t app_errors = 0;
  uint64_t unbalanced_disables = 0;
  uint64_t monitor_actions = 0;     // flags written or signals sent by the monitor
  uint64_t signals_received = 0;    // preemption-signal handler runs on the workers
  uint64_t signal_switches = 0;     // ... that switched away from the task
  uint64_t signals_deferred = 0;    // ... that left a pending preemption (unsafe code)
  // Centralized dispatch (central, jbsq:K) only.
  uint64_t migrations = 0;          // quanta of a task whose previous quantum ran on another worker
  uint64_t requeued = 0;            // preempted quanta sent back to the central queue
  uint32_t max_outstanding = 0;     // most requests a worker held at once (JBSQ's bound K)
  uint64_t dispatcher_requests = 0; // requests the dispatcher ran itself (--dispatcher-works)
  uint64_t steals = 0;              // steal: requests an idle worker took from another's queue
  uint64_t build_failures = 0;      // arrivals whose payload the app's make_request could not build
  std::string app_name;             // the app that served the run
  // The mean service time --load was converted with, and where it came from: "workload"
  // (nominal), "app" (declared by the app) or "measured" (a pilot run; see in_process_run.h).
  double mean_service_us = 0;
  std::string mean_service_source = "workload";
  ClassStatsSet classes;            // measured requests only (after warm-up)
};

}  // namespace quanta
