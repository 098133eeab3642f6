// A worker: one pinned thread that admits requests from its ring into task slots and runs
// them under its local policy, a quantum at a time. Everything it needs is allocated at
// construction; its loop allocates nothing, takes no lock and makes no syscall (a sink's
// completion callback is the app's business).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/idle_backoff.h"
#include "core/parking_spot.h"
#include "core/stack_pool.h"
#include "core/task.h"
#include "policy/class_bandwidth.h"
#include "policy/local_policy.h"
#include "preempt/mechanism.h"
#include "preempt/quantum_runner.h"
#include "preempt/signal_preempt.h"
#include "quanta/quanta.h"
#include "runtime/central_slots.h"
#include "runtime/class_scheduler.h"
#include "runtime/quantum_lengths.h"
#include "runtime/request.h"
#include "runtime/spsc_ring.h"
#include "runtime/worker_counters.h"
#include "stats/request_recorder.h"
#include "stats/stall_log.h"

namespace quanta {

struct WorkerConfig {
  const quanta_app* app = nullptr;
  std::string local_policy = "ps";
  uint32_t task_slots = 64;        // requests admitted at once (one stack each)
  std::size_t stack_bytes = 64 * 1024;
  std::size_t ring_capacity = 4096;
  const QuantumLengths* quanta = nullptr;  // each request's quantum length (owned by the runtime)
  PreemptMechanism preempt = PreemptMechanism::kClock;
  uint64_t backstop_cycles = 0;    // hybrid: the signal comes this long into a quantum
  uint64_t overrun_cycles = UINT64_MAX;  // a quantum this long is counted as an overrun (the watchdog's mark)
  std::size_t class_count = 1;
  uint64_t stall_threshold_cycles = UINT64_MAX;  // an idle-loop gap above this is a host stall
  IdleMode idle = IdleMode::kSpin;                // what idle loops do (core/idle_backoff.h)
  double idle_spin_ns = IdleBackoff::kSpinBeforeYieldNs;  // ... spinning this long first
  // Centralized dispatch (central, jbsq:K, steal): the worker runs slots of this shared
  // table that the dispatcher hands it, one quantum each, and hands them back. Null: the
  // worker admits requests from its ring and keeps them until they finish (two-level).
  CentralSlots* central_slots = nullptr;
  uint32_t central_depth = 0;      // most slots the dispatcher hands this worker at once
  // --class-schedule (two-level only): a queue per class under local_policy, budgets in
  // cycles (policy/classed_policy.h). Empty: one queue for every class.
  std::vector<ClassParams> class_schedule;
  // Publish what the run's sampler reads as the run goes on (runtime/run_sampler.h): each
  // finished request's sojourn and the time spent in quanta.
  bool live_stats = false;
};

// What the dispatcher sees of one worker: the ring it feeds and the counter line it reads.
struct WorkerPort {
  SpscRing<Request*>* ring;
  const WorkerCounters* counters;
  uint32_t* flag = nullptr;  // the flag word the monitor writes (the worker thread's own)
  int tid = 0;                       // the worker's kernel thread id, for signals
  ParkingSpot* parking = nullptr;    // --idle block: wake the worker after pushing to its ring
};

// What a centralized dispatcher sees of one worker: where it sends slots to run, and
// where they come back after a quantum.
struct CentralPort {
  SpscRing<uint32_t>* inbox;
  SpscRing<SlotReturn>* outbox;
  ParkingSpot* parking = nullptr;    // --idle block: wake the worker after pushing to its inbox
};

struct WorkerTotals {
  uint64_t quanta = 0;             // quanta run, all requests
  uint64_t app_errors = 0;         // responses with a non-zero status
  uint64_t unbalanced_disables = 0;// handlers that returned with preemption still disabled
  uint64_t completed = 0;
  uint64_t sleeps = 0;             // --idle block: times it slept until work came
  SignalCounters signals;          // this worker thread's preemption-signal handler runs
  uint64_t migrations = 0;         // central: quanta of a task whose previous quantum ran elsewhere
  uint64_t overruns = 0;           // quanta that lasted overrun_cycles or more
};

class Worker {
 public:
  Worker(int index, const WorkerConfig& config);

  // The thread body. Returns once request_stop() was called and every admitted request
  // has finished (after the app's teardown_worker), or at once if setup_worker failed.
  void run();
  void request_stop() {
    stop_.store(true, std::memory_order_release);
    parking_.wake();
  }

  enum class State : int { kStarting, kReady, kSetupFailed };
  State state() const { return state_.load(std::memory_order_acquire); }

  // Valid once state() is kReady (the thread id is known then).
  WorkerPort port() { return {&ring_, &counters_, flag_word_, tid_, parking()}; }
  // Valid with WorkerConfig::central_slots.
  CentralPort central_port() { return {inbox_.get(), outbox_.get(), parking()}; }
  const WorkerCounters& counters() const { return counters_; }
  const RequestRecorder& recorded() const { return recorder_; }
  const WorkerTotals& totals() const { return totals_; }
  // --class-schedule: what each class used (empty without a schedule). After run().
  ClassUsageSet class_usage(double ns_per_cycle) const {
    return classes_ ? classes_->usage(ns_per_cycle) : ClassUsageSet{};
  }
  // Valid after run() returned.
  const StallLog& stalls() const { return stalls_; }
  // The stall logs that decide whether a request this worker finishes was touched by a
  // stall (its own, the dispatcher's, ...). Set before run().
  void watch_stalls(StallWatch watch) { stall_watch_ = std::move(watch); }
  int index() const { return index_; }
  // With WorkerConfig::live_stats (else null): read by another thread while it runs.
  const LiveHistogram* live_sojourns() const { return live_sojourns_.get(); }
  const std::atomic<uint64_t>& busy_cycles() const { return busy_cycles_; }

 private:
  struct Slot {
    Task task;
    Request* request = nullptr;
    uint32_t quanta = 0;
    Worker* worker = nullptr;
  };

  static void task_body(Task& task);
  // The scheduler loops: two-level (own ring and slots, local policy) and centralized
  // (slots handed over by the dispatcher, one quantum at a time).
  void run_local(uint64_t now);
  void run_central(uint64_t now);
  void admit_arrivals();
  // Into a free slot (there is one), under the local policy.
  void admit(Request* request);
  // A request's handler returned: counters, statistics, then its sink.
  void finish(Request& request, const Task& task, uint64_t finish_tsc);
  // Opens a quantum of `quantum_cycles` for the monitor to see; returns the deadline for
  // the clock probes.
  uint64_t open_quantum(uint64_t now, const Request& request, uint64_t quantum_cycles);
  // When the next quantum starts, given `now`, the last clock read (the previous quantum's
  // stop, or an idle iteration's). One clock read per quantum on the plain preempt and
  // resume path: `now` itself. After the worker admitted or finished a request since,
  // a fresh read: that work (a task's stack and context; the request's statistics and
  // sink) is the worker's, and counted from `now` it would shorten the next task's
  // quantum, add to its CPU time and bring the monitor's backstop closer. Cheap in a
  // plain build, it takes tens of us under ThreadSanitizer (a fiber per task), where the
  // monitor signalled quanta whose task had not even started.
  uint64_t quantum_start(uint64_t now);
  void release_slot(uint32_t slot_id);
  // A quantum that just ended: past the overrun mark it is counted (the watchdog may not
  // have seen it run), and one a clock probe ended far past its deadline was a host stall.
  void note_quantum_end(bool done, uint64_t deadline, uint64_t start, uint64_t stop);
  // The clock read of an idle loop iteration, noting a host stall since `last`.
  uint64_t idle_tick(uint64_t last);
  // Block mode, past the idle spell: sleeps until the dispatcher pushes work or the
  // runtime stops, unless `has_work` (checked after announcing the sleep) says there is
  // some. Returns the clock after it (the sleep is not a host stall).
  template <typename HasWork>
  uint64_t park(HasWork has_work);
  ParkingSpot* parking() { return config_.idle == IdleMode::kBlock ? &parking_ : nullptr; }

  int index_;
  WorkerConfig config_;
  SpscRing<Request*> ring_;
  std::unique_ptr<SpscRing<uint32_t>> inbox_;     // central only
  std::unique_ptr<SpscRing<SlotReturn>> outbox_;  // central only
  WorkerCounters counters_;
  // Where the monitor's flags land: the worker thread's quanta_preempt_flag once it runs
  // preemptible flag-probed tasks, else `unread_flag_`, which no probe reads (declared
  // first: the pointer's initializer takes its address).
  PreemptFlagLine unread_flag_;
  uint32_t* flag_word_ = &unread_flag_.word;
  uint64_t quantum_seq_ = 0;
  bool preemptive_ = false;            // the mechanism can end quanta and the policy allows it
  bool clock_stale_ = false;           // admitted or finished a request since the last clock read
  int tid_ = 0;
  StackPool stacks_;
  std::unique_ptr<LocalPolicy> policy_;
  std::unique_ptr<ClassScheduler> classes_;  // --class-schedule: over policy_, a ClassedPolicy
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;   // capacity reserved: never allocates
  QuantumRunner runner_;
  RequestRecorder recorder_;
  StallLog stalls_;
  StallWatch stall_watch_;
  WorkerTotals totals_;
  uint64_t finished_ = 0;              // mirrors of what the counter line publishes
  uint64_t current_quanta_ = 0;
  std::unique_ptr<LiveHistogram> live_sojourns_;  // live_stats only
  uint64_t busy_ = 0;                  // mirror of busy_cycles_
  std::atomic<bool> stop_{false};
  std::atomic<State> state_{State::kStarting};
  alignas(kCacheLine) ParkingSpot parking_;  // written by the dispatcher only to wake it
  // Cycles spent in quanta, ever (live_stats): only this worker writes it.
  alignas(kCacheLine) std::atomic<uint64_t> busy_cycles_{0};
};

}  // namespace quanta
