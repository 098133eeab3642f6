// What one simulated run needs beyond a RunConfig: how many requests, and the overheads of
// the real machine that the model charges (measured by `quanta calibrate`, or given).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "experiment/run_config.h"
#include "experiment/run_result.h"
#include "sim/stall_trace.h"

namespace quanta {

struct SimOverheads {
  double preempt_overhead_ns = 0;  // worker time lost per preemption (save, pick, resume)
  double probe_overhead_pct = 0;   // instrumented code runs this much slower (every request)
  double dispatch_ns = 0;          // the dispatcher's time per request: it serves them one by one
  double quantum_jitter_ns = 0;    // sigma of a one-sided normal added to each quantum
  double request_overhead_ns = 0;  // worker time per request outside the handler (admit, task start, finish)
  // The preemption mechanisms' own costs (docs/sim.md, "Preemption mechanisms").
  double flag_notification_ns = 0; // flag: the monitor's write -> the task has stopped at a probe
  double signal_latency_ns = 0;    // signal, hybrid: the monitor's tgkill -> the task switched out
  double signal_cpu_ns = 0;        // worker CPU per signal: kernel entry and exit, handler, sigreturn
  double monitor_poll_ns = 0;      // an idle dispatcher's loop period: how often the monitor looks
  // The dispatcher's time per preempted quantum that goes back to a central queue
  // (central, jbsq:K, steal); a central worker waits for it before its next quantum.
  double requeue_ns = 0;
};

// Which requests a stall touched, for the study of the rule (experiments/stall_rule.py):
// the runtime's (a stall, or the drain as long again after it, during the request's life),
// a stall during its life only, or a stall during the busy period it was served in.
enum class StallWindow { kDrain, kLifetime, kBusyPeriod };

struct SimConfig {
  RunConfig run;                   // workers must be >= 1
  std::optional<uint64_t> jobs;    // a fixed number of arrivals instead of run.duration_s
  SimOverheads overheads;
  // Host stalls to replay (null: none). Simulated CPU i (the dispatcher, then each worker)
  // gets recorded CPU i modulo the recording's CPUs, as the runtime places its threads.
  std::shared_ptr<const StallTrace> stalls;
  StallWindow stall_window = StallWindow::kDrain;
};

struct SimStats {
  uint64_t events = 0;             // arrivals + quantum ends processed
  double wall_s = 0;               // wall-clock time of the simulation itself
  double cpu_s = 0;                // CPU time of the simulating thread (robust to a busy machine)
  uint64_t peak_in_system = 0;     // most requests present at once
};

struct SimResult {
  RunResult run;                   // the same fields `quanta run` fills (tsc_per_ns stays 0)
  SimStats sim;
};

// Sees every completed request, in completion order; tests use it for batch means.
struct FinishedRequest {
  double arrival_ns;
  double finish_ns;
  uint32_t service_ns;             // nominal, as in the schedule
  uint32_t class_index;
  bool measured;                   // after the warm-up
};

class SimObserver {
 public:
  virtual ~SimObserver() = default;
  virtual void on_finish(const FinishedRequest& request) = 0;
};

}  // namespace quanta
