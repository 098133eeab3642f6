#include "runtime/worker.h"

#include <unistd.h>

#include "core/idle_backoff.h"
#include "core/tsc.h"
#include "preempt/preempt_state.h"
#include "runtime/request_run.h"

namespace quanta {
namespace {
thread_local int t_worker_index = -1;

std::unique_ptr<LocalPolicy> local_policy_of(const WorkerConfig& config) {
  if (config.class_schedule.empty()) return make_local_policy(config.local_policy, config.task_slots);
  return std::make_unique<ClassedPolicy>(config.local_policy, config.task_slots, config.class_schedule);
}
}  // namespace

Worker::Worker(int index, const WorkerConfig& config)
    : index_(index),
      config_(config),
      ring_(config.ring_capacity),
      stacks_(config.task_slots, config.stack_bytes),
      policy_(local_policy_of(config)),
      slots_(config.task_slots),
      recorder_(config.class_count, 1.0 / tsc_per_ns()),
      stalls_(config.stall_threshold_cycles) {
  if (config.central_slots != nullptr) {
    inbox_ = std::make_unique<SpscRing<uint32_t>>(config.central_depth);
    outbox_ = std::make_unique<SpscRing<SlotReturn>>(config.central_depth);
  }
  if (!config.class_schedule.empty()) {
    classes_ = std::make_unique<ClassScheduler>(static_cast<ClassedPolicy&>(*policy_), config.class_schedule,
                                                config.task_slots, config.ring_capacity);
  }
  if (config.live_stats) {
    live_sojourns_ = std::make_unique<LiveHistogram>();
    recorder_.set_live(live_sojourns_.get());
  }
  free_slots_.reserve(config.task_slots);
  for (uint32_t i = config.task_slots; i-- > 0;) {
    slots_[i].worker = this;
    free_slots_.push_back(i);
  }
}

void Worker::task_body(Task& task) {
  auto& slot = *static_cast<Slot*>(task.user);
  call_handler(*slot.worker->config_.app, *slot.request);
}

void Worker::admit_arrivals() {
  Request* request = nullptr;
  if (classes_) {
    // BE requests that waited for a slot go first, in order, as far as BE may take slots;
    // then the ring, where a BE request that may not take a slot waits aside.
    while (!free_slots_.empty() && (request = classes_->next_deferred()) != nullptr) admit(request);
    while (!free_slots_.empty() && !classes_->backlog_full() && ring_.try_pop(request)) {
      if (classes_->must_wait(*request)) {
        classes_->defer(request);
      } else {
        admit(request);
      }
    }
    return;
  }
  while (!free_slots_.empty() && ring_.try_pop(request)) admit(request);
}

void Worker::admit(Request* request) {
  const uint32_t id = free_slots_.back();
  free_slots_.pop_back();
  Slot& slot = slots_[id];
  slot.request = request;
  slot.quanta = 0;
  slot.task.start(stacks_.acquire(), &Worker::task_body, &slot);
  if (classes_) classes_->admitting(id, request->class_index);
  policy_->admit(id);
  clock_stale_ = true;
}

uint64_t Worker::open_quantum(uint64_t now, const Request& request, uint64_t quantum_cycles) {
  if (++quantum_seq_ % (1ull << 32) == 0) ++quantum_seq_;  // the flag word's 0 means "no flag"
  counters_.quantum_seq.store(quantum_seq_, std::memory_order_relaxed);
  counters_.running_request_id.store(request.id, std::memory_order_relaxed);
  counters_.quantum_length_cycles.store(quantum_cycles, std::memory_order_relaxed);
  counters_.quantum_start_tsc.store(now, std::memory_order_release);
  PreemptState& state = preempt_state();
  state.signal_deadline_tsc = QuantumRunner::kNoDeadline;
  if (!preemptive_) return QuantumRunner::kNoDeadline;
  switch (config_.preempt) {
    case PreemptMechanism::kClock:
      return now + quantum_cycles;
    case PreemptMechanism::kFlag:
      state.flag_seq = static_cast<uint32_t>(quantum_seq_);
      return QuantumRunner::kNoDeadline;
    case PreemptMechanism::kSignal:
      state.signal_deadline_tsc = now + quantum_cycles;
      return QuantumRunner::kNoDeadline;
    case PreemptMechanism::kHybrid:
      state.signal_deadline_tsc = now + config_.backstop_cycles;
      return now + quantum_cycles;
    case PreemptMechanism::kNone:
      break;
  }
  return QuantumRunner::kNoDeadline;
}

void Worker::finish(Request& request, const Task& task, uint64_t finish_tsc) {
  PreemptState& preempt = preempt_state();
  if (preempt.disable_depth != 0) {
    // The handler left preemption disabled: count it and reset, so the next task starts clean.
    ++totals_.unbalanced_disables;
    preempt.disable_depth = 0;
  }
  if (request.status != 0) ++totals_.app_errors;
  ++totals_.completed;
  finish_request(request, task, finish_tsc, index_, recorder_, stall_watch_);
  clock_stale_ = true;
}

uint64_t Worker::quantum_start(uint64_t now) {
  if (!clock_stale_) return now;
  clock_stale_ = false;
  return read_tsc();
}

uint64_t Worker::idle_tick(uint64_t last) {
  // An idle iteration is a few instructions: a longer gap was the host's.
  const uint64_t now = read_tsc();
  stalls_.observe(last, now);
  return now;
}

template <typename HasWork>
uint64_t Worker::park(HasWork has_work) {
  parking_.announce();
  if (has_work() || stop_.load(std::memory_order_acquire)) {
    parking_.withdraw();
  } else {
    parking_.sleep();
    ++totals_.sleeps;
  }
  return read_tsc();
}

void Worker::note_quantum_end(bool done, uint64_t deadline, uint64_t start, uint64_t stop) {
  if (stop - start >= config_.overrun_cycles) ++totals_.overruns;
  if (config_.live_stats) {
    busy_ += stop - start;
    busy_cycles_.store(busy_, std::memory_order_relaxed);
  }
  // Clock probes sit a bounded distance apart, so a task preempted by one stops within
  // a few hundred ns of the deadline. Stopping much later means the CPU was away (or
  // the task had preemption disabled: docs/runtime.md says what that costs).
  if (done || config_.preempt != PreemptMechanism::kClock || deadline == QuantumRunner::kNoDeadline) return;
  stalls_.observe(deadline, stop);
}

void Worker::release_slot(uint32_t slot_id) {
  Slot& slot = slots_[slot_id];
  if (classes_) classes_->leaving(slot_id);
  stacks_.release(slot.task.stack);
  free_slots_.push_back(slot_id);
  current_quanta_ -= slot.quanta;
  counters_.current_quanta.store(current_quanta_, std::memory_order_relaxed);
  counters_.finished.store(++finished_, std::memory_order_release);
}

void Worker::run() {
  t_worker_index = index_;
  install_stack_overflow_reporter();
  if (config_.app->setup_worker != nullptr && config_.app->setup_worker(index_) != 0) {
    state_.store(State::kSetupFailed, std::memory_order_release);
    t_worker_index = -1;
    return;
  }
  preemptive_ = config_.preempt != PreemptMechanism::kNone && policy_->preemptive();
  // The monitor flags only quanta this worker opened, but a non-preemptive worker must
  // not see flags at all: they go to a word its probes never read. Published before
  // kReady: the runtime reads port() once every worker is ready.
  flag_word_ = preemptive_ && config_.preempt == PreemptMechanism::kFlag ? this_thread_flag_word() : &unread_flag_.word;
  tid_ = static_cast<int>(gettid());
  signal_counters() = {};
  preempt_state().stall_log = &stalls_;
  preempt_state().pc_samples = &counters_.samples;
  preempt_state().pc_sample = &counters_.sampled_pc;
  state_.store(State::kReady, std::memory_order_release);
  // `now` is carried from one quantum's stop to the next one's start (quantum_start()).
  if (config_.central_slots != nullptr) {
    run_central(read_tsc());
  } else {
    run_local(read_tsc());
  }
  preempt_state().stall_log = nullptr;
  preempt_state().pc_sample = nullptr;
  preempt_state().pc_samples = nullptr;
  totals_.signals = signal_counters();
  if (config_.app->teardown_worker != nullptr) config_.app->teardown_worker(index_);
  t_worker_index = -1;
}

void Worker::run_local(uint64_t now) {
  bool idle = true;
  IdleBackoff backoff(config_.idle, config_.idle_spin_ns);
  for (;;) {
    admit_arrivals();
    if (classes_) classes_->before_pick(now);
    const std::optional<TaskId> next = policy_->pick();
    if (!next) {
      idle = true;
      // Tasks of a capped class out of budget still wait: no sleeping on the ring, which
      // would not wake the worker when their next period comes.
      const bool held_back = classes_ && classes_->nothing_picked();
      if (stop_.load(std::memory_order_acquire) && free_slots_.size() == slots_.size()) {
        admit_arrivals();  // a request pushed just before the stop still counts
        if (free_slots_.size() == slots_.size()) break;
        now = idle_tick(now);
        continue;
      }
      if (backoff.pause(now) && !held_back) {
        // No task at all (pick() found none): the ring is the only way work comes.
        now = park([this] { return !ring_.looks_empty(); });
        backoff.busy();
        continue;
      }
      now = idle_tick(now);
      continue;
    }
    // Work after idling: one more clock read, so that a stall since the last idle
    // iteration is logged before the request it delayed finishes (and is judged).
    if (idle) now = idle_tick(now);
    idle = false;
    backoff.busy();
    Slot& slot = slots_[*next];
    uint64_t quantum_cycles = config_.quanta->of(*slot.request);
    // A class on its budget stops where the budget ends, whatever the quantum.
    if (classes_) quantum_cycles = classes_->picked(quantum_cycles);
    now = quantum_start(now);
    const uint64_t deadline = open_quantum(now, *slot.request, quantum_cycles);
    const uint64_t start = now;
    const bool done = runner_.resume(slot.task, now, deadline);
    counters_.quantum_start_tsc.store(0, std::memory_order_relaxed);  // no quantum open
    now = slot.task.last_stop_tsc;
    note_quantum_end(done, deadline, start, now);
    if (classes_) classes_->quantum_ended(start, now, done);
    ++slot.quanta;
    ++current_quanta_;
    ++totals_.quanta;
    if (done) {
      finish(*slot.request, slot.task, now);
      release_slot(*next);
    } else {
      counters_.current_quanta.store(current_quanta_, std::memory_order_relaxed);
      // Requests that arrived during the quantum queue up before the task that just used
      // it: under round robin they would otherwise wait one more quantum.
      admit_arrivals();
      policy_->requeue(*next, slot.task.attained_cycles);
    }
  }
}

void Worker::run_central(uint64_t now) {
  CentralSlots& slots = *config_.central_slots;
  bool idle = true;
  IdleBackoff backoff(config_.idle, config_.idle_spin_ns);
  for (;;) {
    uint32_t id = 0;
    if (!inbox_->try_pop(id)) {
      // The dispatcher stops workers only once every slot it handed out came back.
      if (stop_.load(std::memory_order_acquire)) break;
      idle = true;
      if (backoff.pause(now)) {
        now = park([this] { return !inbox_->looks_empty(); });
        backoff.busy();
        continue;
      }
      now = idle_tick(now);
      continue;
    }
    if (idle) now = idle_tick(now);  // as in run_local
    idle = false;
    backoff.busy();
    CentralSlot& slot = slots[id];
    if (slot.last_runner != -1 && slot.last_runner != index_) ++totals_.migrations;
    slot.last_runner = index_;
    now = quantum_start(now);
    const uint64_t deadline = open_quantum(now, *slot.request, config_.quanta->of(*slot.request));
    const uint64_t start = now;
    const bool done = runner_.resume(slot.task, now, deadline);
    counters_.quantum_start_tsc.store(0, std::memory_order_relaxed);  // no quantum open
    now = slot.task.last_stop_tsc;
    note_quantum_end(done, deadline, start, now);
    ++slot.quanta;
    ++totals_.quanta;
    if (done) {
      finish(*slot.request, slot.task, now);
      counters_.finished.store(++finished_, std::memory_order_release);
    }
    // The ring holds as many as the dispatcher may hand out, so this never waits long.
    while (!outbox_->try_push(SlotReturn{id, done ? 1u : 0u})) cpu_relax();
  }
}

}  // namespace quanta

extern "C" int quanta_worker_index(void) { return quanta::t_worker_index; }
