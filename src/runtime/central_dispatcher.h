// The centralized dispatcher (--dispatch central and jbsq:K; Shinjuku's single queue,
// Concord's JBSQ). Every request waits in one queue at the dispatcher, ordered by the
// local policy's pure code (ps: round robin, las, fcfs), and the dispatcher hands the head
// to a worker with fewer than K slots outstanding (JbsqPolicy); central is K = 1, an idle
// worker takes the head. A worker runs a slot for one quantum and hands it back; a
// preempted task rejoins the queue behind the requests that arrived meanwhile and may
// resume on any worker.
//
// With `dispatcher_works`, a request that arrives while every worker is full and the
// dispatcher has no request of its own is started by the dispatcher itself, which runs it
// a quantum at a time (clock probes stop it) whenever it has nothing else to do, until it
// finishes (Concord's work-conserving dispatcher). Concord takes the oldest request not yet
// started; this one takes the arriving request, which needs no search of the queue. While
// the dispatcher runs its quantum, arrivals, returns and the flag monitor wait up to one
// quantum.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/task.h"
#include "experiment/run_result.h"
#include "policy/central_policy.h"
#include "policy/local_policy.h"
#include "runtime/central_slots.h"
#include "runtime/dispatcher.h"
#include "runtime/worker.h"
#include "stats/class_stats.h"

namespace quanta {

class QuantumMonitor;

struct CentralTotals {
  uint32_t max_outstanding = 0;     // most slots any worker held at once (never above K)
  uint64_t requeued = 0;            // quanta that ended in a preemption and went back in the queue
  uint64_t dispatcher_requests = 0; // requests the dispatcher started and finished itself
  uint64_t dispatcher_quanta = 0;
  uint64_t dispatcher_app_errors = 0;
};

class CentralDispatcher {
 public:
  CentralDispatcher(std::span<const CentralPort> workers, CentralSlots& slots, LocalPolicy& queue, uint32_t depth,
                    bool dispatcher_works, uint64_t quantum_cycles, std::size_t class_count);

  // Dispatches the whole schedule, then waits until every request finished.
  DispatchTotals run(const DispatchPlan& plan);
  void set_monitor(QuantumMonitor* monitor) { monitor_ = monitor; }

  const CentralTotals& totals() const { return totals_; }
  // Statistics of the requests the dispatcher ran itself.
  const ClassStatsSet& own_stats() const { return own_stats_; }

 private:
  // Each returns whether it did anything.
  bool drain_returns();
  bool hand_out();
  bool run_own_quantum(uint64_t now);
  bool all_workers_full() const;

  std::span<const CentralPort> workers_;
  CentralSlots& slots_;
  LocalPolicy& queue_;
  JbsqPolicy jbsq_;
  bool dispatcher_works_;
  uint64_t quantum_cycles_;
  std::vector<WorkerLoad> loads_;   // outstanding = handed out and not yet back
  uint32_t in_flight_ = 0;          // slots in use
  std::optional<uint32_t> own_;     // the request the dispatcher is running itself
  TaskRunner runner_;
  ClassStatsSet own_stats_;
  double ns_per_cycle_;
  CentralTotals totals_;
  QuantumMonitor* monitor_ = nullptr;
};

}  // namespace quanta
