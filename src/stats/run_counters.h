// The counts every run of the runtime ends with, summed over its workers and its
// dispatcher: what the runtime reports (RuntimeResult) and what a run's report carries
// (RunResult) share this one definition.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stats/class_stats.h"
#include "stats/class_usage.h"
#include "stats/dispatch_totals.h"
#include "stats/overrun_report.h"
#include "stats/request_recorder.h"
#include "stats/stall_log.h"

namespace quanta {

struct RunCounters {
  DispatchTotals dispatch;
  ClassStatsSet classes;            // measured requests only (after the warm-up)
  ClassStatsSet untouched;          // ... of those, the ones no host stall touched
  uint64_t completed = 0;
  uint64_t quanta = 0;
  uint64_t app_errors = 0;
  uint64_t unbalanced_disables = 0; // handlers that returned with preemption still disabled
  uint64_t monitor_actions = 0;     // flags written or signals sent by the monitor
  uint64_t monitor_retries = 0;     // ... of those, repeats for a quantum still running
  uint64_t signals_received = 0;    // preemption-signal handler runs on the workers
  uint64_t signal_switches = 0;     // ... that switched away from the task
  uint64_t signals_deferred = 0;    // ... that left a pending preemption (unsafe code)
  // The code objects the first deferred signals of each worker landed in, with how many.
  std::map<std::string, uint64_t> deferred_signal_objects;
  uint64_t dispatcher_sleeps = 0;   // --idle block: times the dispatcher slept in epoll_wait
  uint64_t worker_sleeps = 0;       // ... and the workers on their futex
  // Centralized dispatch (central, jbsq:K, steal) only.
  uint64_t migrations = 0;          // quanta of a task whose previous quantum ran on another worker
  uint64_t requeued = 0;            // preempted quanta sent back to the central queue
  uint32_t max_outstanding = 0;     // most requests a worker held at once (JBSQ's bound K)
  uint64_t dispatcher_requests = 0; // requests the dispatcher ran itself (--dispatcher-works)
  uint64_t steals = 0;              // steal: requests an idle worker took from another's queue
  // The watchdog: quanta that ran past --overrun-report-quanta, and the first few of them.
  uint64_t overruns = 0;
  std::vector<OverrunReport> overrun_reports;
  // Host stalls each runtime thread noticed (stall_log.h), and the gap that counts as one.
  std::vector<StallSummary> stalls;
  double stall_threshold_us = 0;
  // --class-schedule: each scheduled class's share of the workers (empty without one).
  ClassUsageSet class_usage;

  // Adds what one finishing thread recorded.
  void add_recorded(const RequestRecorder& recorder) {
    merge_into(classes, recorder.classes());
    merge_into(untouched, recorder.untouched());
  }
};

}  // namespace quanta
