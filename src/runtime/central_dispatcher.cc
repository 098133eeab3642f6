#include "runtime/central_dispatcher.h"

#include <algorithm>

#include "core/idle_backoff.h"
#include "core/tsc.h"
#include "preempt/preempt_state.h"
#include "runtime/request_run.h"

namespace quanta {

CentralDispatcher::CentralDispatcher(std::span<const CentralPort> workers, CentralSlots& slots, CentralQueues queues,
                                     uint32_t depth, bool dispatcher_works, const QuantumLengths& quanta,
                                     std::size_t class_count, FullRingAction on_full, uint64_t seed,
                                     StallLog& stalls)
    : workers_(workers),
      slots_(slots),
      queues_(std::move(queues)),
      jbsq_(depth),
      steal_(seed),
      placement_(seed ^ 0x5851f42d4c957f2dull),
      waiting_(workers.size()),
      dispatcher_works_(dispatcher_works),
      quanta_(quanta),
      loads_(workers.size()),
      own_recorder_(class_count, 1.0 / tsc_per_ns()),
      on_full_(on_full),
      stalls_(stalls) {}

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
  if (workers_[worker].parking != nullptr) workers_[worker].parking->wake();
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

bool CentralDispatcher::run_own_work(uint64_t now) {
  if (!workers_.empty()) return run_own_quantum(now);
  // The only runner: quanta back to back for up to one quantum's time before the sources
  // are polled again. A poll costs a system call or two (epoll, recvmmsg); polling after
  // every 1 us request would spend more on polls than on requests, while an arrival still
  // waits at most about a quantum (plus the quantum under way) to be seen.
  const uint64_t until = now + quanta_.runtime_cycles();
  bool ran = false;
  while (run_own_quantum(now)) {
    ran = true;
    now = read_tsc();
    if (now >= until) break;
  }
  return ran;
}

bool CentralDispatcher::run_own_quantum(uint64_t now) {
  // With no workers the dispatcher is the only runner: it takes the central queue's next
  // request for every quantum and puts an unfinished one back, so that its requests share
  // it as the queue's policy says (ps: round robin), as one worker would share its CPU.
  const bool only_runner = workers_.empty();
  if (!own_ && only_runner && queues_.queues[0]->waiting() > 0) {
    own_ = *queues_.queues[0]->pick();
    slots_[*own_].last_runner = kDispatcherRunner;
  }
  if (!own_) return false;
  CentralSlot& slot = slots_[*own_];
  // Always a clock deadline, whatever the workers' mechanism and policy: the dispatcher
  // must get back to arrivals after one quantum. Under flag the request runs the
  // handler's clock twin (CentralSlots::run_on_dispatcher), which checks this deadline.
  const bool done = runner_.resume(slot.task, now, now + quanta_.of(*slot.request));
  ++slot.quanta;
  ++totals_.dispatcher_quanta;
  if (!done) {
    if (only_runner) {
      ++totals_.requeued;
      queues_.queues[0]->requeue(*own_, slot.task.attained_cycles);
      own_.reset();
    }
    return true;
  }
  preempt_state().disable_depth = 0;  // a handler that left preemption disabled
  if (slot.request->status != 0) ++totals_.dispatcher_app_errors;
  ++totals_.dispatcher_requests;
  own_finished_.store(totals_.dispatcher_requests, std::memory_order_relaxed);
  finish_request(*slot.request, slot.task, slot.task.last_stop_tsc, -1, own_recorder_, stall_watch_);
  slots_.release(*own_);
  --in_flight_;
  own_.reset();
  return true;
}

bool CentralDispatcher::admit(Request& request, DispatchTotals& totals) {
  const std::optional<uint32_t> id = slots_.acquire(request);
  if (!id) {
    if (on_full_ == FullRingAction::kDrop) {
      ++totals.dropped;
      request.sink->reject(request, RejectReason::kNoSlot);
      return true;
    }
    pending_ = &request;
    return false;
  }
  ++totals.dispatched;
  ++in_flight_;
  // With no workers every request queues: run_own_quantum takes them in the policy's order.
  if (dispatcher_works_ && !workers_.empty() && !own_ && all_workers_full()) {
    // Not started yet: it runs the dispatcher's handler (the clock twin under flag).
    slots_.run_on_dispatcher(*id);
    own_ = *id;
  } else if (queues_.per_worker()) {
    queues_.queues[placement_.below(static_cast<uint32_t>(workers_.size()))]->admit(*id);
  } else {
    queues_.queues[0]->admit(*id);
  }
  return true;
}

DispatchTotals CentralDispatcher::run(std::span<Source* const> sources) {
  DispatchTotals totals;
  IdleBackoff idle(idle_mode_, idle_spin_ns_);
  const uint64_t late_cycles = ns_to_cycles(1000);
  constexpr uint32_t kBatch = 32;
  Request* batch[kBatch];
  bool exhausted = false;
  uint64_t last = read_tsc();
  for (;;) {
    const uint64_t now = read_tsc();
    // An iteration is short but for a quantum of its own request (below): a longer gap
    // since the last one was the host's.
    stalls_.observe(last, now);
    last = now;
    // The monitor's duty in every state (busy, waiting for a slot, idle): a quantum is
    // ended at most one iteration after it is over (one quantum when the dispatcher runs
    // a request of its own).
    watch_.poll(now);
    // Arrivals first: under round robin they queue ahead of the tasks preempted meanwhile.
    // A request waiting for a slot holds the sources back, as a full ring would.
    if (pending_ != nullptr) {
      Request& waiting = *pending_;
      pending_ = nullptr;
      admit(waiting, totals);  // held again if there is still no slot: the same wait goes on
    }
    if (pending_ == nullptr) {
      // No more than the free slots, so only the last request taken can find none.
      const uint32_t room = slots_.capacity() - slots_.in_use();
      const uint32_t n = poll_sources(sources, now, std::span(batch, std::max(1u, std::min(kBatch, room))), exhausted);
      for (uint32_t i = 0; i < n; ++i) {
        count_taken(totals, *batch[i], now, late_cycles);
        if (!admit(*batch[i], totals)) ++totals.full_ring_waits;  // once per request that has to wait
      }
      if (n > 0) admitted_.store(totals.generated - totals.dropped, std::memory_order_relaxed);
    }
    const bool returned = drain_returns();
    const bool handed = hand_out();
    if (exhausted && pending_ == nullptr && in_flight_ == 0) break;
    if (returned || handed) {
      idle.busy();
      continue;
    }
    // Idle: nothing due, nothing came back, nothing to hand out.
    if (run_own_work(now)) {
      idle.busy();
      last = read_tsc();
    } else if (idle.pause(now)) {
      // Block mode: sleep only with nothing in the runtime (no slot handed out, queued,
      // or run here): returns come back through rings that nobody rings a bell for.
      if (in_flight_ == 0 && pending_ == nullptr) {
        if (sleep_->sleep_or_yield(sources)) last = read_tsc();  // asleep by choice: not a host stall
      } else {
        IdleBackoff::yield();
      }
      idle.busy();
    }
  }
  return totals;
}

}  // namespace quanta
