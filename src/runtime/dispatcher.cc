#include "runtime/dispatcher.h"

#include <algorithm>

#include "core/idle_backoff.h"
#include "core/tsc.h"

namespace quanta {
namespace {
// While the dispatcher is behind (requests keep coming with no idle poll in between) it
// re-reads the workers' counter lines only every few requests: each read is a cache miss,
// and its own assignments keep the estimate current in between.
constexpr uint32_t kRefreshEveryWhenBusy = 8;
constexpr uint32_t kBatch = 32;
}  // namespace

void count_taken(DispatchTotals& totals, const Request& request, uint64_t now_tsc, uint64_t late_cycles) {
  ++totals.generated;
  if (now_tsc > request.arrival_tsc && now_tsc - request.arrival_tsc > late_cycles) ++totals.late_arrivals;
}

uint32_t poll_sources(std::span<Source* const> sources, uint64_t now_tsc, std::span<Request*> batch,
                      bool& exhausted) {
  exhausted = true;
  uint32_t n = 0;
  for (Source* source : sources) {
    if (!source->exhausted()) exhausted = false;
    n += source->poll(now_tsc, batch.data() + n, static_cast<uint32_t>(batch.size()) - n);
    if (n == batch.size()) break;
  }
  if (n > 0) exhausted = false;
  return n;
}

Dispatcher::Dispatcher(std::span<const WorkerPort> workers, DispatchPolicy& policy, FullRingAction on_full,
                       StallLog& stalls)
    : workers_(workers),
      policy_(policy),
      on_full_(on_full),
      loads_(workers.size()),
      assigned_(workers.size(), 0),
      stalls_(stalls) {}

void Dispatcher::refresh_loads() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& counters = *workers_[i].counters;
    const uint64_t finished = counters.finished.load(std::memory_order_acquire);
    loads_[i].outstanding = static_cast<uint32_t>(assigned_[i] - finished);
    loads_[i].current_quanta = counters.current_quanta.load(std::memory_order_relaxed);
  }
}

bool Dispatcher::dispatch(Request& request, DispatchTotals& totals) {
  const uint32_t chosen = policy_.choose(loads_);
  SpscRing<Request*>& ring = *workers_[chosen].ring;
  bool waited = false;
  if (!ring.try_push(&request)) {
    if (on_full_ == FullRingAction::kDrop) {
      ++totals.dropped;
      request.sink->reject(request, RejectReason::kRingFull);
      return false;
    }
    ++totals.full_ring_waits;
    while (!ring.try_push(&request)) {
      // The worker drains its ring only as its quanta end: keep ending them.
      watch_.poll(read_tsc());
      cpu_relax();
    }
    waited = true;
  }
  ++assigned_[chosen];
  ++loads_[chosen].outstanding;
  if (workers_[chosen].parking != nullptr && std::find(touched_.begin(), touched_.end(), chosen) == touched_.end()) {
    touched_.push_back(chosen);
  }
  ++totals.dispatched;
  return waited;
}

DispatchTotals Dispatcher::run(std::span<Source* const> sources) {
  DispatchTotals totals;
  const uint64_t late_cycles = ns_to_cycles(1000);
  Request* batch[kBatch];
  uint32_t since_refresh = kRefreshEveryWhenBusy;
  bool was_idle = true;
  IdleBackoff idle(idle_mode_, idle_spin_ns_);
  touched_.reserve(workers_.size());
  uint64_t last = read_tsc();
  for (;;) {
    const uint64_t now = read_tsc();
    // One iteration is a poll and at most a batch of dispatches: a longer gap since the
    // last one was the host's, unless the dispatcher waited on a full ring (below).
    stalls_.observe(last, now);
    last = now;
    // The monitor's duty (and the watchdog's) comes first, in every state (idle, busy, late): a quantum is
    // ended at most one iteration (a poll and a batch) after it is over.
    watch_.poll(now);
    bool exhausted = false;
    const uint32_t n = poll_sources(sources, now, batch, exhausted);
    for (uint32_t i = 0; i < n; ++i) {
      count_taken(totals, *batch[i], now, late_cycles);
      // After an idle spell the workers' lines are read afresh for every request, as the
      // policies assume; when busy, every few requests.
      if (was_idle || ++since_refresh >= kRefreshEveryWhenBusy) {
        refresh_loads();
        since_refresh = 0;
        was_idle = false;
      }
      if (dispatch(*batch[i], totals)) last = read_tsc();
    }
    if (!touched_.empty()) wake_touched();
    if (n > 0) admitted_.store(totals.generated - totals.dropped, std::memory_order_relaxed);
    if (n > 0) {
      idle.busy();
      continue;
    }
    if (exhausted) break;
    was_idle = true;
    if (idle.pause(now)) {
      sleep_or_yield(sources, last);
      idle.busy();  // after a sleep or a yield, spin a spell again first
    }
  }
  wait_for_completion();
  return totals;
}

void Dispatcher::wake_touched() {
  for (uint32_t w : touched_) workers_[w].parking->wake();
  touched_.clear();
}

bool Dispatcher::nothing_in_flight() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].counters->finished.load(std::memory_order_acquire) != assigned_[i]) return false;
  }
  return true;
}

void Dispatcher::sleep_or_yield(std::span<Source* const> sources, uint64_t& last) {
  // A monitor mechanism needs the dispatcher awake while any request runs; clock probes
  // do not, and sources whose completions need the dispatcher ring its doorbell.
  if (watch_.ends_quanta() && !nothing_in_flight()) {
    IdleBackoff::yield();
    return;
  }
  if (sleep_->sleep_or_yield(sources)) last = read_tsc();  // asleep by choice: not a host stall
}

void Dispatcher::wait_for_completion() {
  uint64_t last = read_tsc();
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    while (workers_[i].counters->finished.load(std::memory_order_acquire) < assigned_[i]) {
      const uint64_t now = read_tsc();
      stalls_.observe(last, now);
      last = now;
      watch_.poll(now);
      cpu_relax();
    }
  }
}

}  // namespace quanta
