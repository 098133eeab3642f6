// A small thread that watches a running runtime from off the hot path: at the end of
// every period of LibPreemptible's controller (--quantum-us adaptive:MIN:MAX) it gives
// the policy (policy/adaptive_quantum.h) what the period held and sets the quantum it
// decides; at the end of every --interval-s interval it keeps the sojourns of the
// requests finished in it. It reads what the runtime's threads publish without locks
// (stats/live_histogram.h, counters each thread alone writes) and differences readings,
// so the workers and the dispatcher do nothing for it but count. It sleeps in between: a
// wake-up every period, some microseconds of a CPU the runtime's threads share.
//
// Its inputs, where the simulator's controller (sim/quantum_controller.h) has exact ones:
// - load: the share of the workers' time spent in quanta over the period (busy time),
//   not the service that arrived: the runtime does not know a request's service time in
//   general. Under overload it is near 1 (the simulator's offered load goes above 1).
// - requests waiting per worker: (requests in the runtime - workers) / workers, at the
//   period's end, with those in the runtime counted as admitted by the dispatcher minus
//   finished.
// - p50 and p99: the sojourns of the requests that finished in the period (1/128
//   precision).
// A wake-up that comes late past a boundary still decides once, for the last boundary
// passed, from what happened since the last decision; the boundaries it skipped are
// counted (late_periods).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "policy/adaptive_quantum.h"
#include "runtime/quantum_lengths.h"
#include "stats/interval_stats.h"
#include "stats/live_histogram.h"

namespace quanta {

struct RunSamplerConfig {
  std::optional<AdaptiveQuantumParams> adaptive;  // run the controller (its period_s)
  double first_quantum_us = 2;                    // the controller's quantum before its first decision
  double interval_s = 0;                          // > 0: sojourns per interval of this length
  unsigned workers = 1;
};

// What the sampler reads; every pointer outlives it.
struct RunSamplerInputs {
  std::vector<const LiveHistogram*> sojourns;           // every thread that finishes requests
  std::vector<const std::atomic<uint64_t>*> busy_cycles;  // each worker's time in quanta
  std::function<uint64_t()> in_runtime;                 // requests admitted and not finished, now
};

class RunSampler {
 public:
  RunSampler(const RunSamplerConfig& config, RunSamplerInputs inputs, QuantumLengths& quanta);
  ~RunSampler();
  RunSampler(const RunSampler&) = delete;
  RunSampler& operator=(const RunSampler&) = delete;

  // Starts the thread; the run's time zero is now.
  void start();
  // After every request finished: takes the last, partial interval and joins the thread.
  void stop();

  // Valid after stop().
  const std::vector<AdaptiveQuantumStep>& decisions() const { return decisions_; }
  const std::vector<IntervalStats>& intervals() const { return intervals_; }
  uint64_t late_periods() const { return late_periods_; }

 private:
  void run();
  // The counts of every sojourn histogram now, summed.
  std::vector<uint64_t> read_sojourns() const;
  uint64_t read_busy_cycles() const;
  void decide(uint64_t now_tsc, double at_s);
  void close_interval(std::size_t index);

  RunSamplerConfig config_;
  RunSamplerInputs inputs_;
  QuantumLengths& quanta_;
  uint64_t start_tsc_ = 0;
  // The controller's state: its quantum and the readings at its last decision.
  double quantum_us_ = 0;
  uint64_t last_decision_tsc_ = 0;
  uint64_t last_busy_cycles_ = 0;
  std::vector<uint64_t> last_period_counts_;
  std::vector<uint64_t> last_interval_counts_;
  std::vector<AdaptiveQuantumStep> decisions_;
  std::vector<IntervalStats> intervals_;
  uint64_t late_periods_ = 0;
  std::mutex mutex_;  // only for the sleep: the thread and stop() touch it
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace quanta
