// The two-level dispatcher: on its own pinned core it polls the sources and hands each
// request to a worker chosen by the dispatch policy; the worker keeps it until it
// finishes. It estimates each worker's queue as (requests it assigned) - (the worker's
// published finished count).
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "core/idle_backoff.h"
#include "policy/dispatch_policy.h"
#include "runtime/dispatcher_sleep.h"
#include "runtime/request.h"
#include "runtime/source.h"
#include "runtime/worker.h"
#include "runtime/worker_watch.h"
#include "stats/dispatch_totals.h"
#include "stats/stall_log.h"

namespace quanta {

// What the dispatcher does when the chosen worker's ring (or, centralized, every slot) is
// full: wait until there is room (the dispatcher stalls), or drop the request.
enum class FullRingAction { kWait, kDrop };

// A request taken from a source: counts it, and whether it came more than 1 µs late.
void count_taken(DispatchTotals& totals, const Request& request, uint64_t now_tsc, uint64_t late_cycles);

// Polls every source once into `batch`; returns how many requests it got. Sets
// `exhausted` when every source says it is (checked before polling, so a request a source
// makes on its last poll is never missed).
uint32_t poll_sources(std::span<Source* const> sources, uint64_t now_tsc, std::span<Request*> batch,
                      bool& exhausted);

class Dispatcher {
 public:
  // A gap between two of its loop's clock reads, with no wait of its own in between, goes
  // to `stalls` (its threshold decides what counts as a host stall). The log outlives the
  // dispatcher: the workers read it to judge the requests they finish.
  Dispatcher(std::span<const WorkerPort> workers, DispatchPolicy& policy, FullRingAction on_full, StallLog& stalls);

  // Dispatches until every source is exhausted, then waits until every dispatched request
  // finished.
  DispatchTotals run(std::span<Source* const> sources);

  // The monitor and the watchdog (either may be absent) look at the workers once per loop iteration
  // whatever it is doing (idle, dispatching a batch, late), and while it waits for room
  // in a full ring or for the last completions.
  void set_watch(WorkerWatch watch) { watch_ = watch; }
  // What idle iterations do (RuntimeConfig::idle). Block mode needs `sleep`, which must
  // outlive the dispatcher, and the workers' parking spots in their ports.
  void set_idle(IdleMode mode, double spin_ns, DispatcherSleep* sleep) {
    idle_mode_ = mode;
    idle_spin_ns_ = spin_ns;
    sleep_ = sleep;
  }
  const StallLog& stalls() const { return stalls_; }
  // Requests taken from the sources and not dropped, so far: any thread may read it (the
  // run's sampler counts the requests in the runtime with it).
  uint64_t admitted() const { return admitted_.load(std::memory_order_relaxed); }

 private:
  void refresh_loads();
  // Returns whether it had to wait for room in a ring (a gap the dispatcher explains).
  bool dispatch(Request& request, DispatchTotals& totals);
  void wait_for_completion();
  // Block mode: wakes the workers this batch pushed to.
  void wake_touched();
  // Every request handed out has finished (re-reads the workers' counters).
  bool nothing_in_flight();
  // Block mode, past the idle spell: sleep, or yield when that is not possible.
  void sleep_or_yield(std::span<Source* const> sources, uint64_t& last);

  std::span<const WorkerPort> workers_;
  DispatchPolicy& policy_;
  FullRingAction on_full_;
  std::vector<WorkerLoad> loads_;
  std::vector<uint64_t> assigned_;
  WorkerWatch watch_;
  IdleMode idle_mode_ = IdleMode::kSpin;
  double idle_spin_ns_ = IdleBackoff::kSpinBeforeYieldNs;
  DispatcherSleep* sleep_ = nullptr;
  std::vector<uint32_t> touched_;  // block mode: workers pushed to in this batch
  StallLog& stalls_;
  std::atomic<uint64_t> admitted_{0};  // published after each batch
};

}  // namespace quanta
