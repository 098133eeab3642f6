// The runtime as one object: a dispatcher thread and pinned workers, the sources they
// serve, and what they measured. Both the public C API (include/quanta/runtime.h) and
// `quanta run` build one of these; they differ only in their sources (the API's
// submissions, or the in-process generator).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/adaptive_quantum.h"
#include "quanta/quanta.h"
#include "runtime/dispatcher.h"
#include "runtime/quantum_watchdog.h"
#include "runtime/source.h"
#include "stats/interval_stats.h"
#include "stats/run_counters.h"
#include "stats/stall_log.h"

namespace quanta {

struct RuntimeConfig {
  unsigned workers = 0;              // 0: one per allowed CPU after the dispatcher's
  int dispatcher_cpu = -1;           // -1: the first allowed CPU
  std::vector<int> worker_cpus;      // empty: the allowed CPUs after the dispatcher's
  double quantum_us = 2.0;
  std::string local_policy = "ps";
  std::string dispatch_policy = "jsq-msq";
  std::string preempt = "clock";     // clock | flag | signal | hybrid | none
  double backstop_us = 100;          // hybrid: signal a task still running after this
  bool dispatcher_works = false;     // central/jbsq: the dispatcher runs requests when workers are full
  // No worker threads: the dispatcher runs every request itself between polls of its
  // sources, one quantum at a time, in the order of its central queue's policy. One CPU
  // (a server like memcached -t 1). Needs central dispatch and clock probes (or none).
  bool dispatcher_only = false;
  unsigned task_slots = 64;          // per worker
  unsigned stack_kib = 64;
  unsigned ring_capacity = 4096;     // per worker
  FullRingAction on_full = FullRingAction::kWait;
  std::size_t class_count = 1;
  uint64_t seed = 1;                 // random dispatch policies
  double stall_threshold_us = 20;    // a gap a runtime thread's loop cannot explain counts as a host stall
  // More workers than free CPUs (they then share CPUs with each other and the dispatcher):
  // for correctness tests of multi-worker behaviour on small machines, not for measurement.
  bool oversubscribe = false;
  // What idle loops do: spin, yield the CPU, or sleep until there is work (--idle).
  IdleMode idle = IdleMode::kSpin;
  double idle_spin_us = 20;          // yield/block: how long an idle spell spins first
  // A class's own quantum length (us), by class index; 0 or absent: quantum_us.
  std::vector<double> class_quantum_us;
  // Latency-critical and best-effort classes per worker ("lc,be:30/100[:cap][:pN]", us;
  // policy/classed_policy.h's parse_class_schedule). Empty: none. Two-level dispatch only.
  std::string class_schedule;
  // The watchdog (runtime/quantum_watchdog.h). A quantum of a preemptive run that has
  // gone on this many quanta is reported (0: never): to on_overrun (if set, on the
  // dispatcher's thread) and in the result.
  double overrun_report_quanta = 10000;
  // A quantum that has gone on this long ends the run (0: never): on_stuck gets the
  // message and the counts so far; without one, the message goes to stderr and the
  // process exits with status 1 (a worker stuck in a loop cannot be joined).
  double watchdog_ms = 0;
  // LibPreemptible's adaptive controller (policy/adaptive_quantum.h): a thread off the
  // hot path moves the runtime's quantum every period, starting from quantum_us (clamped
  // to [min, max]); runtime/run_sampler.h says what it sees. Not with dispatcher_only.
  std::optional<AdaptiveQuantumParams> adaptive_quantum;
  // > 0: the sojourns of the requests finished in each interval of this length (s).
  double interval_s = 0;
  std::function<void(const OverrunReport&)> on_overrun;
  std::function<void(const std::string&)> on_stuck;
};

// What a run measured, summed over the workers and the dispatcher.
struct RuntimeResult : RunCounters {
  unsigned workers = 0;
  uint64_t start_tsc = 0;           // the dispatcher's first poll
  uint64_t end_tsc = 0;             // every request finished
  // With adaptive_quantum: every decision in order, and the period ends the controller
  // woke up too late to decide at (it decided once, at the last one passed).
  std::vector<AdaptiveQuantumStep> quantum_series;
  uint64_t late_periods = 0;
  // With interval_s: the sojourns of the requests finished in each interval, in order.
  std::vector<IntervalStats> intervals;
};

// The number of workers a config gets here (resolves 0), or throws std::invalid_argument
// naming --workers when the machine has too few CPUs.
unsigned resolve_workers(const RuntimeConfig& config);

// One thread's stall log as a report shows it (ns).
StallSummary summarize_stalls(const std::string& thread, int cpu, const StallLog& log);

class Runtime {
 public:
  // Checks the configuration (std::invalid_argument naming the option) and allocates
  // every worker's rings, slots and stacks (std::runtime_error if memory cannot be had).
  Runtime(const RuntimeConfig& config, const quanta_app& app);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Before start(): a source the dispatcher polls. Not owned.
  void add_source(Source& source);

  // Calls the app's setup(config), starts the workers (each runs setup_worker) and then
  // the dispatcher. Throws std::runtime_error if the app's setup fails or a thread cannot
  // start (nothing is left running then).
  void start(const std::string& app_config);

  // Waits until every source is exhausted and every request finished, stops the workers
  // (teardown_worker on each), calls the app's teardown and returns what was measured.
  // Sources that end by themselves (a schedule) are waited for; close them first to stop
  // early (stop()).
  RuntimeResult finish();
  // Closes every source, then finish().
  RuntimeResult stop();

  bool running() const { return started_ && !finished_; }
  // The runtime's quantum from now on, for requests without one of their own or their
  // class's (any thread, while running; every runner takes it at its next quantum).
  // Throws std::invalid_argument out of 0.001..1e9 us, std::logic_error under the
  // adaptive controller.
  void set_quantum_us(double quantum_us);
  unsigned workers() const { return workers_; }
  // The runtime's quantum now (us): the controller's latest, or the last set_quantum_us.
  double quantum_us() const;

 private:
  struct Parts;
  void stop_workers();
  // The thread behind adaptive_quantum and interval_s (runtime/run_sampler.h).
  void start_sampler();
  // The watchdog: whether this run reports overruns, whether it has one at all, and its
  // configuration (valid after the constructor).
  bool overruns_reported() const;
  uint64_t overrun_mark_cycles() const;
  bool watchdog_wanted() const;
  WatchdogConfig watchdog_config() const;

  RuntimeConfig config_;
  const quanta_app& app_;
  unsigned workers_;
  std::unique_ptr<Parts> parts_;
  std::vector<Source*> sources_;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace quanta
