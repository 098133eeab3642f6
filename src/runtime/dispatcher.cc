#include "runtime/dispatcher.h"

#include "core/tsc.h"
#include "runtime/quantum_monitor.h"

namespace quanta {
namespace {
// While the dispatcher is behind schedule it re-reads the workers' counter lines only
// every few requests: each read is a cache miss, and its own assignments keep the
// estimate current in between.
constexpr uint32_t kRefreshEveryWhenLate = 8;
}  // namespace

RequestMsg request_msg_for(const DispatchPlan& plan, const Arrival& arrival, uint64_t id, uint64_t due_tsc) {
  return RequestMsg{id,
                    due_tsc,
                    arrival.service_ns,
                    static_cast<uint16_t>(arrival.class_index),
                    static_cast<uint16_t>(arrival.arrival_ns >= plan.measure_from_ns ? kRequestMeasured : 0),
                    plan.payload_of ? plan.payload_of(arrival) : 0};
}

Dispatcher::Dispatcher(std::span<const WorkerPort> workers, DispatchPolicy& policy)
    : workers_(workers), policy_(policy), loads_(workers.size()), assigned_(workers.size(), 0) {}

void Dispatcher::refresh_loads() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& counters = *workers_[i].counters;
    const uint64_t finished = counters.finished.load(std::memory_order_acquire);
    loads_[i].outstanding = static_cast<uint32_t>(assigned_[i] - finished);
    loads_[i].current_quanta = counters.current_quanta.load(std::memory_order_relaxed);
  }
}

DispatchTotals Dispatcher::run(const DispatchPlan& plan) {
  DispatchTotals totals;
  const double cycles_per_ns = tsc_per_ns();
  const uint64_t late_cycles = ns_to_cycles(1000);
  uint32_t since_refresh = kRefreshEveryWhenLate;
  for (const Arrival& arrival : plan.schedule) {
    const uint64_t due_tsc = due_tsc_of(plan, arrival, cycles_per_ns);
    uint64_t now = read_tsc();
    const bool on_time = now < due_tsc;
    while (now < due_tsc) {
      if (monitor_) monitor_->poll(now);
      cpu_relax();
      now = read_tsc();
    }
    if (now - due_tsc > late_cycles) ++totals.late_arrivals;
    if (on_time || ++since_refresh >= kRefreshEveryWhenLate) {
      refresh_loads();
      since_refresh = 0;
    }
    ++totals.generated;
    const uint32_t chosen = policy_.choose(loads_);
    const RequestMsg msg = request_msg_for(plan, arrival, totals.generated - 1, due_tsc);
    SpscRing<RequestMsg>& ring = *workers_[chosen].ring;
    if (!ring.try_push(msg)) {
      if (plan.on_full == FullRingAction::kDrop) {
        ++totals.dropped;
        continue;
      }
      ++totals.full_ring_waits;
      while (!ring.try_push(msg)) cpu_relax();
    }
    ++assigned_[chosen];
    ++loads_[chosen].outstanding;
    ++totals.dispatched;
  }
  wait_for_completion();
  return totals;
}

void Dispatcher::wait_for_completion() const {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    while (workers_[i].counters->finished.load(std::memory_order_acquire) < assigned_[i]) {
      if (monitor_) monitor_->poll(read_tsc());
      cpu_relax();
    }
  }
}

}  // namespace quanta
