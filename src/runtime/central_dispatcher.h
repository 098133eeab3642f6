// The centralized dispatcher (--dispatch central and jbsq:K; Shinjuku's single queue,
// Concord's JBSQ). Every request waits in one queue at the dispatcher, ordered by the
// local policy's pure code (ps: round robin, las, fcfs), and the dispatcher hands the head
// to a worker with fewer than K slots outstanding (JbsqPolicy); central is K = 1, an idle
// worker takes the head. A worker runs a slot for one quantum and hands it back; a
// preempted task rejoins the queue behind the requests that arrived meanwhile and may
// resume on any worker.
//
// --dispatch steal (ZygOS/Caladan-like) uses the same machinery with one queue per worker:
// an arrival joins a random worker's queue, a preempted task its last worker's queue, and
// a worker whose queue is empty is handed the head of the queue with most waiting
// (StealPolicy). The dispatcher takes that decision for the idle worker, since it holds
// every queue: no worker ever touches another's queue, and nothing needs a lock.
//
// With `dispatcher_works`, a request that arrives while every worker is full and the
// dispatcher has no request of its own is started by the dispatcher itself, which runs it
// a quantum at a time (clock probes stop it: under --preempt flag those of the handler's
// clock twin, which CentralSlots hands such a request) whenever it has nothing else to do,
// until it finishes (Concord's work-conserving dispatcher). Concord takes the oldest request not yet
// started; this one takes the arriving request, which needs no search of the queue. While
// the dispatcher runs its quantum, arrivals, returns and the flag monitor wait up to one
// quantum.
//
// With no workers at all (RuntimeConfig::dispatcher_only) the dispatcher is the only
// runner: every request waits in the central queue, and between polls of its sources the
// dispatcher runs the queue's requests a quantum at a time, for up to one quantum's time
// in all, queueing each unfinished one again, as a worker shares its CPU among its tasks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/task.h"
#include "policy/central_policy.h"
#include "policy/local_policy.h"
#include "policy/rng.h"
#include "preempt/quantum_runner.h"
#include "runtime/central_slots.h"
#include "runtime/dispatcher.h"
#include "runtime/source.h"
#include "runtime/worker.h"
#include "runtime/worker_watch.h"
#include "stats/dispatch_totals.h"
#include "stats/request_recorder.h"
#include "stats/stall_log.h"

namespace quanta {

struct CentralTotals {
  uint32_t max_outstanding = 0;     // most slots any worker held at once (never above K)
  uint64_t requeued = 0;            // quanta that ended in a preemption and went back in the queue
  uint64_t dispatcher_requests = 0; // requests the dispatcher started and finished itself
  uint64_t dispatcher_quanta = 0;
  uint64_t dispatcher_app_errors = 0;
  uint64_t steals = 0;              // steal: requests handed to a worker from another's queue
};

// Where waiting requests queue: one shared queue (central, jbsq:K) or one per worker
// (steal), each ordered by a local policy.
struct CentralQueues {
  std::vector<std::unique_ptr<LocalPolicy>> queues;  // 1, or one per worker
  bool per_worker() const { return queues.size() > 1; }
};

class CentralDispatcher {
 public:
  // `queues`: one queue (central, jbsq:K with `depth` K) or one per worker (steal, depth 1;
  // `seed` drives the random placement). Gaps in its loop go to `stalls`, as in Dispatcher.
  CentralDispatcher(std::span<const CentralPort> workers, CentralSlots& slots, CentralQueues queues, uint32_t depth,
                    bool dispatcher_works, const QuantumLengths& quanta, std::size_t class_count, FullRingAction on_full,
                    uint64_t seed, StallLog& stalls);

  // Dispatches until every source is exhausted and every request finished.
  DispatchTotals run(std::span<Source* const> sources);
  void set_watch(WorkerWatch watch) { watch_ = watch; }
  // What idle iterations do (RuntimeConfig::idle); block mode needs `sleep`.
  void set_idle(IdleMode mode, double spin_ns, DispatcherSleep* sleep) {
    idle_mode_ = mode;
    idle_spin_ns_ = spin_ns;
    sleep_ = sleep;
  }

  const CentralTotals& totals() const { return totals_; }
  // Gaps in its loop that its own work does not explain (stats/stall_log.h).
  const StallLog& stalls() const { return stalls_; }
  // The logs that decide whether a request the dispatcher finishes itself was touched.
  void watch_stalls(StallWatch watch) { stall_watch_ = std::move(watch); }
  // Statistics of the requests the dispatcher ran itself.
  const RequestRecorder& own_recorded() const { return own_recorder_; }
  // For the run's sampler (runtime/run_sampler.h), read by any thread: requests taken from
  // the sources and not dropped, and requests the dispatcher finished itself, so far; and
  // (set before run()) where the sojourns of its own requests are counted as they finish.
  uint64_t admitted() const { return admitted_.load(std::memory_order_relaxed); }
  uint64_t own_finished() const { return own_finished_.load(std::memory_order_relaxed); }
  void set_live_sojourns(LiveHistogram* live) { own_recorder_.set_live(live); }

 private:
  // Each returns whether it did anything.
  bool drain_returns();
  bool hand_out();
  bool hand_out_shared();
  bool hand_out_stealing();
  void give(uint32_t worker, uint32_t slot);
  std::size_t waiting() const;
  bool run_own_quantum(uint64_t now);
  // What the dispatcher runs itself between polls: one quantum of its own request, or with
  // no workers, its queue's requests for up to one quantum's time.
  bool run_own_work(uint64_t now);
  // A request taken from a source: into a slot and a queue, or dropped, or held in
  // pending_ until a slot frees up. Returns false when it had to be held.
  bool admit(Request& request, DispatchTotals& totals);
  bool all_workers_full() const;

  std::span<const CentralPort> workers_;
  CentralSlots& slots_;
  CentralQueues queues_;
  JbsqPolicy jbsq_;
  StealPolicy steal_;
  Rng placement_;
  std::vector<uint32_t> waiting_;   // steal: per-worker queue lengths, for the victim choice
  bool dispatcher_works_;
  const QuantumLengths& quanta_;
  std::vector<WorkerLoad> loads_;   // outstanding = handed out and not yet back
  uint32_t in_flight_ = 0;          // slots in use
  std::optional<uint32_t> own_;     // the request the dispatcher is running itself
  QuantumRunner runner_;
  RequestRecorder own_recorder_;
  FullRingAction on_full_;
  Request* pending_ = nullptr;      // taken from a source, waiting for a free slot
  StallLog& stalls_;
  StallWatch stall_watch_;
  CentralTotals totals_;
  WorkerWatch watch_;
  IdleMode idle_mode_ = IdleMode::kSpin;
  double idle_spin_ns_ = IdleBackoff::kSpinBeforeYieldNs;
  DispatcherSleep* sleep_ = nullptr;
  std::atomic<uint64_t> admitted_{0};      // published after each batch
  std::atomic<uint64_t> own_finished_{0};  // = totals_.dispatcher_requests
};

}  // namespace quanta
