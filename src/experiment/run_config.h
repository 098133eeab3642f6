// Everything one in-process run needs, with the command line's defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/idle_mode.h"
#include "policy/adaptive_quantum.h"

namespace quanta {

struct RunConfig {
  std::string workload = "extreme-bimodal";
  double load = 0.5;                   // fraction of the workers' capacity (used when no rate)
  std::optional<double> rate_rps;      // exact offered rate, overrides load
  // How the rate moves over the run, as multiples of the load or rate (io/rate_profile.h).
  std::string rate_profile = "constant";
  // --workload-shift "SPEC@T_S,...": the service times change mid-run (Workload::shifting).
  std::string workload_shift;
  // --class-schedule "lc,be:30/100[:cap]": LC/BE classes with runtime/period budgets (us)
  // per worker, by class index (policy/classed_policy.h; the simulator so far).
  std::string class_schedule;
  double interval_s = 0;               // --interval-s: latency per interval of this length (0: none)
  unsigned workers = 0;                // 0: max_workers()
  double quantum_us = 2.0;             // with adaptive_quantum: the first quantum
  // --quantum-us adaptive:MIN:MAX: LibPreemptible's controller moves the quantum (in the
  // simulator, and in the runtime on a thread of its own: runtime/run_sampler.h).
  std::optional<AdaptiveQuantumParams> adaptive_quantum;
  std::string local_policy = "ps";
  std::string dispatch_policy = "jsq-msq";
  std::string preempt = "clock";       // clock | flag | signal | hybrid | none
  double backstop_us = 100;            // hybrid: signal a task still running after this
  double duration_s = 5.0;
  double warmup_frac = 0.1;
  uint64_t seed = 1;
  unsigned task_slots = 64;            // per worker
  unsigned stack_kib = 64;
  unsigned ring_capacity = 4096;       // per worker
  std::string on_full = "wait";        // wait | drop
  bool dispatcher_works = false;       // central/jbsq: the dispatcher runs requests when workers are full
  bool dispatcher_only = false;        // quanta serve: no workers, the dispatcher runs every request
  // More workers than free CPUs (they then share CPUs with each other and the dispatcher):
  // for correctness tests of multi-worker behaviour on small machines, not for measurement.
  bool oversubscribe = false;
  IdleMode idle = IdleMode::kSpin;     // --idle
  double idle_spin_us = 20;            // --idle-spin-us
  double overrun_report_quanta = 10000;// --overrun-report-quanta: the watchdog reports longer quanta (0: never)
  double watchdog_ms = 0;              // --watchdog-ms: a quantum this long ends the run (0: never)
  double stall_threshold_us = 20;      // a gap a runtime thread's loop cannot explain counts as a host stall
  // The app: a shared object (--app; empty: the built-in spin app) and its configuration.
  std::string app_path;
  std::string app_config;
  // The app's mean service time, measured once for a run whose app declares none (0: not
  // measured yet; --load then measures it, see in_process_run.h).
  double measured_mean_service_us = 0;
  unsigned max_payload_bytes = 1024;   // request payload buffer (what make_request may write)
  unsigned max_response_bytes = 1024;  // response buffer
};

}  // namespace quanta
