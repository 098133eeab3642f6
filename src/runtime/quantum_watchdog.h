// The watchdog: a quantum that runs far past its length never reached a preemption point
// (code without probes, a loop the pass could not bound, preemption left disabled) or the
// host took the worker's CPU away. Polled from the dispatcher's loop like the monitor, it
// reports each such quantum once (worker, request, time so far, and where the task was,
// sampled with a signal as Seastar's stall detector does), and ends a run whose quantum
// has gone on for --watchdog-ms instead of letting it hang.
//
// The sample: the dispatcher notes the worker's sample count, sends it a sample request
// (preempt/signal_preempt.h) and reads the address on a later poll, once the count moved.
// Under --preempt signal and hybrid a deferred preemption notes the address too.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/worker.h"
#include "stats/overrun_report.h"

namespace quanta {

// "request 17 on worker 0 ran 20.0 ms in one quantum, at libx.so (spin+0x12): ...".
std::string describe_overrun(const OverrunReport& report);

struct WatchdogConfig {
  uint64_t report_after_cycles = 0; // 0: no overrun reports
  uint64_t stop_after_cycles = 0;   // 0: never ends a run
  bool sample_pc = false;           // the preemption-signal handler is installed: ask where tasks are
  std::function<void(const OverrunReport&)> on_overrun;  // the dispatcher's thread; may be empty
  // Called once per stuck quantum with the whole message; the owner ends the run (the
  // command line exits), or returns and the run goes on.
  std::function<void(const std::string&)> on_stuck;
};

class QuantumWatchdog {
 public:
  static constexpr std::size_t kReportsKept = 16;

  QuantumWatchdog(std::span<const WorkerPort> workers, WatchdogConfig config);

  // Cheap when nothing is due: one compare until the next look at the workers.
  void poll(uint64_t now_tsc) {
    if (now_tsc >= next_look_tsc_) look(now_tsc);
  }

  uint64_t overruns() const { return overruns_; }  // reported live (the workers count every one)
  const std::vector<OverrunReport>& reports() const { return reports_; }  // the first kReportsKept

 private:
  struct Watched {
    uint64_t asked_seq = 0;     // the quantum a sample was asked for
    uint64_t asked_tsc = 0;
    uint64_t samples_before = 0;// the worker's sample count when it was asked
    uint64_t asked_request = 0; // ... the quantum's request and how long it had run then
    uint64_t asked_elapsed = 0;
    uint64_t reported_seq = 0;  // the quantum last reported
    uint64_t stuck_seq = 0;     // the quantum last declared stuck
  };
  void look(uint64_t now_tsc);
  void report(std::size_t worker, uint64_t request_id, uint64_t elapsed_cycles);
  std::string stuck_message(std::size_t worker, uint64_t request_id, uint64_t elapsed_cycles) const;
  // Where worker `worker`'s task was at its last fresh sample (pc 0: none since asked).
  OverrunReport located(std::size_t worker) const;

  std::span<const WorkerPort> workers_;
  WatchdogConfig config_;
  uint64_t look_gap_cycles_;
  uint64_t sample_wait_cycles_;     // how long a sample may take before the report goes without one
  uint64_t next_look_tsc_ = 0;
  std::vector<Watched> watched_;
  std::vector<OverrunReport> reports_;
  uint64_t overruns_ = 0;
  int pid_;
};

}  // namespace quanta
