// The dispatcher: replays the precomputed arrival schedule in real time on its own pinned
// core and hands each request to a worker chosen by the dispatch policy. It estimates each
// worker's queue as (requests it assigned) - (the worker's published finished count).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "experiment/run_result.h"
#include "io/schedule.h"
#include "policy/dispatch_policy.h"
#include "runtime/request.h"
#include "runtime/spsc_ring.h"
#include "runtime/worker_counters.h"

namespace quanta {

enum class FullRingAction { kWait, kDrop };

struct DispatchPlan {
  std::span<const Arrival> schedule;
  uint64_t start_tsc = 0;
  uint64_t measure_from_ns = 0;  // arrivals before this are warm-up: not in the statistics
  FullRingAction on_full = FullRingAction::kWait;
  uint64_t (*payload_of)(const Arrival&) = nullptr;  // what the handler receives
};

// The message for one arrival of the plan: `id` counts requests from 0, `due_tsc` is the
// intended arrival on the cycle counter (latency counts from it).
RequestMsg request_msg_for(const DispatchPlan& plan, const Arrival& arrival, uint64_t id, uint64_t due_tsc);
// The intended arrival of `arrival` on the cycle counter.
inline uint64_t due_tsc_of(const DispatchPlan& plan, const Arrival& arrival, double cycles_per_ns) {
  return plan.start_tsc + static_cast<uint64_t>(static_cast<double>(arrival.arrival_ns) * cycles_per_ns);
}

// What the dispatcher sees of one worker: the ring it feeds and the counter line it reads.
struct WorkerPort {
  SpscRing<RequestMsg>* ring;
  const WorkerCounters* counters;
  PreemptFlagLine* flag = nullptr;  // written when the dispatcher is also the monitor
  int tid = 0;                       // the worker's kernel thread id, for signals
};

class QuantumMonitor;

class Dispatcher {
 public:
  Dispatcher(std::span<const WorkerPort> workers, DispatchPolicy& policy);

  // Dispatches the whole schedule, then waits until every dispatched request finished.
  DispatchTotals run(const DispatchPlan& plan);

  // With a monitor, the dispatcher ends the workers' quanta in its idle time (while it
  // waits for the next arrival or for the last completions).
  void set_monitor(QuantumMonitor* monitor) { monitor_ = monitor; }

 private:
  void refresh_loads();
  void wait_for_completion() const;

  std::span<const WorkerPort> workers_;
  DispatchPolicy& policy_;
  std::vector<WorkerLoad> loads_;
  std::vector<uint64_t> assigned_;
  QuantumMonitor* monitor_ = nullptr;
};

}  // namespace quanta
