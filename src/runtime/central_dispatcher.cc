#include "runtime/central_dispatcher.h"

#include "core/tsc.h"
#include "preempt/preempt_state.h"
#include "runtime/quantum_monitor.h"

namespace quanta {

CentralDispatcher::CentralDispatcher(std::span<const CentralPort> workers, CentralSlots& slots, CentralQueues queues,
                                     uint32_t depth, bool dispatcher_works, uint64_t quantum_cycles,
                                     std::size_t class_count, uint64_t seed)
    : workers_(workers),
      slots_(slots),
      queues_(std::move(queues)),
      jbsq_(depth),
      steal_(seed),
      placement_(seed ^ 0x5851f42d4c957f2dull),
      waiting_(workers.size()),
      dispatcher_works_(dispatcher_works),
      quantum_cycles_(quantum_cycles),
      loads_(workers.size()),
      own_stats_(class_count),
      ns_per_cycle_(1.0 / tsc_per_ns()) {}

bool CentralDispatcher::all_workers_full() const { return !jbsq_.choose(loads_).has_value(); }

bool CentralDispatcher::drain_returns() {
  bool any = false;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    SlotReturn back{};
    while (workers_[w].outbox->try_pop(back)) {
      any = true;
      --loads_[w].outstanding;
      if (back.finished) {
        slots_.release(back.slot);
        --in_flight_;
      } else {
        ++totals_.requeued;
        // Per-worker queues: back to the queue of the worker it ran on.
        LocalPolicy& queue = *queues_.queues[queues_.per_worker() ? w : 0];
        queue.requeue(back.slot, slots_[back.slot].task.attained_cycles);
      }
    }
  }
  return any;
}

std::size_t CentralDispatcher::waiting() const {
  std::size_t n = 0;
  for (const auto& queue : queues_.queues) n += queue->waiting();
  return n;
}

void CentralDispatcher::give(uint32_t worker, uint32_t slot) {
  // The inbox holds K, and at most K are outstanding: the push cannot fail.
  workers_[worker].inbox->try_push(slot);
  const uint32_t held = ++loads_[worker].outstanding;
  if (held > totals_.max_outstanding) totals_.max_outstanding = held;
}

bool CentralDispatcher::hand_out() { return queues_.per_worker() ? hand_out_stealing() : hand_out_shared(); }

bool CentralDispatcher::hand_out_shared() {
  LocalPolicy& queue = *queues_.queues[0];
  bool any = false;
  while (queue.waiting() > 0) {
    const std::optional<uint32_t> w = jbsq_.choose(loads_);
    if (!w) break;
    give(*w, *queue.pick());
    any = true;
  }
  return any;
}

bool CentralDispatcher::hand_out_stealing() {
  bool any = false;
  for (uint32_t w = 0; w < workers_.size(); ++w) {
    if (loads_[w].outstanding >= jbsq_.depth()) continue;
    LocalPolicy& own = *queues_.queues[w];
    if (own.waiting() > 0) {
      give(w, *own.pick());
      any = true;
      continue;
    }
    for (uint32_t v = 0; v < workers_.size(); ++v) waiting_[v] = static_cast<uint32_t>(queues_.queues[v]->waiting());
    const std::optional<uint32_t> victim = steal_.victim(waiting_, w);
    if (!victim) continue;
    give(w, *queues_.queues[*victim]->pick());
    ++totals_.steals;
    any = true;
  }
  return any;
}

bool CentralDispatcher::run_own_quantum(uint64_t now) {
  if (!own_) return false;
  CentralSlot& slot = slots_[*own_];
  // Always a clock deadline, whatever the workers' mechanism and policy: the dispatcher
  // must get back to arrivals after one quantum.
  const bool done = runner_.resume(slot.task, now, now + quantum_cycles_);
  ++slot.quanta;
  ++totals_.dispatcher_quanta;
  if (!done) return true;
  const RequestMsg& msg = slot.msg;
  if (msg.flags & kRequestMeasured) {
    const auto sojourn_ns =
        static_cast<uint64_t>(static_cast<double>(slot.task.last_stop_tsc - msg.arrival_tsc) * ns_per_cycle_);
    own_stats_[msg.class_index].record(sojourn_ns, msg.service_ns, slot.task.yields);
  }
  if (slot.response.status != 0) ++totals_.dispatcher_app_errors;
  preempt_state().disable_depth = 0;  // a handler that left preemption disabled
  ++totals_.dispatcher_requests;
  slots_.release(*own_);
  --in_flight_;
  own_.reset();
  return true;
}

DispatchTotals CentralDispatcher::run(const DispatchPlan& plan) {
  DispatchTotals totals;
  const double cycles_per_ns = tsc_per_ns();
  const uint64_t late_cycles = ns_to_cycles(1000);
  std::size_t next = 0;
  bool next_waits = false;  // the next arrival is due but no slot is free (counted once)
  for (;;) {
    uint64_t now = read_tsc();
    // Arrivals first: under round robin they queue ahead of the tasks preempted meanwhile.
    while (next < plan.schedule.size()) {
      const Arrival& arrival = plan.schedule[next];
      const uint64_t due = due_tsc_of(plan, arrival, cycles_per_ns);
      if (now < due) break;
      const RequestMsg msg = request_msg_for(plan, arrival, next, due);
      const std::optional<uint32_t> id = slots_.acquire(msg);
      if (!id) {
        if (plan.on_full == FullRingAction::kDrop) {
          ++totals.generated;
          ++totals.dropped;
          ++next;
          continue;
        }
        if (!next_waits) ++totals.full_ring_waits;
        next_waits = true;
        break;
      }
      next_waits = false;
      if (now - due > late_cycles) ++totals.late_arrivals;
      ++totals.generated;
      ++totals.dispatched;
      ++next;
      ++in_flight_;
      if (dispatcher_works_ && !own_ && all_workers_full()) {
        slots_[*id].last_runner = kDispatcherRunner;
        own_ = *id;
      } else if (queues_.per_worker()) {
        queues_.queues[placement_.below(static_cast<uint32_t>(workers_.size()))]->admit(*id);
      } else {
        queues_.queues[0]->admit(*id);
      }
    }
    const bool returned = drain_returns();
    const bool handed = hand_out();
    if (next == plan.schedule.size() && in_flight_ == 0) break;
    if (returned || handed) continue;
    // Idle: nothing due, nothing came back, nothing to hand out.
    if (monitor_) monitor_->poll(now);
    if (!run_own_quantum(now)) cpu_relax();
  }
  return totals;
}

}  // namespace quanta
