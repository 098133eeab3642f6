#include "sim/engine.h"

#include <bit>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "policy/central_policy.h"
#include "stats/request_recorder.h"
#include "policy/dispatch_policy.h"
#include "policy/local_policy.h"
#include "sim/arrivals.h"
#include "sim/id_queue.h"
#include "policy/classed_policy.h"
#include "sim/quantum_controller.h"
#include "sim/quantum_timing.h"
#include "sim/stall_trace.h"
#include "sim/worker_heap.h"

namespace quanta {

double sim_offered_rate_rps(const RunConfig& config, const Workload& workload) {
  if (config.rate_rps) return *config.rate_rps;
  return config.load * config.workers / (workload.mean_us() * 1e-6);
}

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kForever = std::numeric_limits<double>::infinity();

struct Request {
  double arrival_ns;
  double busy_since_ns; // arrival of the request that began the busy period it is served in
  double remaining_ns;  // work left, probe overhead included
  double attained_ns;   // work done so far (what LAS orders by)
  uint32_t service_ns;  // nominal: the slowdown's denominator
  uint32_t class_index;
  uint32_t quanta;      // quanta run so far
  uint32_t slot;        // task slot in the server that holds it; kNone while in a ring
  bool measured;
};

// Task slots under one local policy, with the ring in front of them: a worker's in the
// two-level model, the single shared one in the centralized model. Requests wait in the
// ring until the worker's loop admits them between quanta, as in Worker::run().
struct Server {
  std::unique_ptr<LocalPolicy> policy;
  ClassedPolicy* classed = nullptr;    // --class-schedule: the policy, as its class-aware self
  std::vector<uint32_t> slot_request;  // slot -> request id
  std::vector<uint32_t> free_slots;
  IdQueue ring;
};

struct WorkerState {
  // What the worker's pending event is: the end of its quantum, the moment the monitor
  // must look at its quantum (flag, signal, hybrid), or the end of the dispatcher's
  // handling of its preempted task (central, steal: the worker waits for it).
  enum class Phase { kQuantum, kMonitor, kReturn };
  uint32_t server = 0;
  uint32_t request = kNone;  // running request
  double served_ns = 0;      // work the current quantum does
  double stop_ns = 0;        // when that work stops (a finishing request's finish time)
  bool finishes = false;     // the current quantum completes the request
  Phase phase = Phase::kQuantum;
  QuantumSpec spec;          // the current quantum, while the monitor has yet to look
  // --class-schedule: the running task's scheduling class and how long its budget lets it run.
  uint32_t running_class = 0;
  double quantum_cap_ns = kForever;
  bool throttled = false;    // idle with tasks of a capped class out of budget waiting
};

// Work the dispatcher has committed to that ends in an event: a quantum of the request it
// runs itself (--dispatcher-works), or a preempted JBSQ task it puts back in the central
// queue. They end in the order they were committed.
struct DispatcherJob {
  double end_ns;
  uint32_t request;
  bool own_quantum;
};

class Engine {
 public:
  Engine(const SimConfig& config, const Workload& workload, SimObserver* observer);
  SimResult run();

 private:
  using Kind = DispatchSpec::Kind;

  void on_arrival(uint32_t id, double now);
  void on_quantum_end(uint32_t w, double now);
  void after_quantum(uint32_t w, double now);
  void apply_quantum_end(uint32_t w, const QuantumEnd& end);
  void record_finish(uint32_t id, double now, bool touched);
  // The dispatcher's timeline: work of `length_ns` it can start at `t` at the earliest,
  // after what it committed before and after an arrival already waiting for it; returns
  // when it is done. The pending arrival is dispatched after it if it comes later.
  double dispatcher_do(double t, double length_ns);
  void reserve_pending_arrival();
  // When the monitor's poll comes for a quantum it may act on from `due_ns`: at once if
  // the dispatcher is idle (at its next loop iteration), or when its current work ends.
  double monitor_poll_at(double due_ns) const;
  void push_dispatcher_job(const DispatcherJob& job);
  void on_dispatcher_job(double now);
  void schedule_own_quantum(double now);
  void hand_out_central(uint32_t w, double now);
  bool dispatcher_takes(uint32_t id);
  bool central_slot_free(uint32_t id);
  void finish(uint32_t w, uint32_t id, double now);
  void admit(Server& server, uint32_t id);
  void admit_ring(Server& server);
  void assign(uint32_t w, uint32_t id);  // JBSQ: straight into a worker's bounded queue
  bool start_next(uint32_t w, double now);
  void start(uint32_t w, uint32_t id, double now);
  bool try_steal(uint32_t thief, double now);
  void steal_while_idle(double now);
  double jitter_ns();
  void check_model_ranges(const SimConfig& config);
  void check_run_size(double rate_rps) const;
  // Injected stalls (SimConfig::stalls): the simulated CPUs, and whether a stall touched
  // request `id` finishing on worker `w` at `now`.
  void make_stalled_cpus(const SimConfig& config);
  bool stall_touched(uint32_t w, const Request& r, double now);
  // The queue a request joins is shared by every worker (central, jbsq, steal) or is its
  // worker's own: the busy period, and the CPUs whose stalls can delay it, follow.
  bool shared_queue() const { return spec_.kind != Kind::kPerRequest; }

  bool idle(uint32_t w) const { return (idle_bits_[w >> 6] >> (w & 63)) & 1; }
  // The per-worker count of quanta MSQ reads: kept where requests stay on one worker.
  bool tracks_worker_quanta() const { return spec_.kind != Kind::kCentral && spec_.kind != Kind::kJbsq; }
  void set_idle(uint32_t w) {
    if (!idle(w)) ++idle_count_;
    idle_bits_[w >> 6] |= uint64_t{1} << (w & 63);
  }
  void set_busy(uint32_t w) {
    if (idle(w)) --idle_count_;
    idle_bits_[w >> 6] &= ~(uint64_t{1} << (w & 63));
  }
  uint32_t first_idle() const {
    for (std::size_t i = 0; i < idle_bits_.size(); ++i) {
      if (idle_bits_[i]) return static_cast<uint32_t>(i * 64 + std::countr_zero(idle_bits_[i]));
    }
    return kNone;
  }
  uint32_t new_request() {
    if (!free_ids_.empty()) {
      const uint32_t id = free_ids_.back();
      free_ids_.pop_back();
      return id;
    }
    requests_.emplace_back();
    return static_cast<uint32_t>(requests_.size() - 1);
  }

  RunConfig cfg_;
  std::optional<uint64_t> jobs_;
  SimOverheads overheads_;
  const Workload& workload_;
  SimObserver* observer_;
  DispatchSpec spec_;
  uint32_t workers_count_;
  double quantum_ns_;                    // the next quanta's length (moved by the controller)
  std::optional<QuantumController> controller_;  // --quantum-us adaptive:MIN:MAX
  std::vector<RunResult::QuantumDecision> quantum_series_;
  double interval_ns_ = 0;               // --interval-s
  std::vector<Histogram> intervals_;     // sojourns by the interval they finished in
  double probe_factor_;
  bool preemptive_ = true;
  PreemptMechanism mechanism_;
  MechanismCosts costs_;
  double backstop_ns_;
  uint32_t dispatcher_slot_;             // the heap entry of the dispatcher's jobs

  std::vector<Server> servers_;
  std::vector<WorkerState> workers_;
  std::vector<WorkerLoad> loads_;        // what the dispatch policies see
  std::vector<uint32_t> waiting_;        // steal: scratch for the victim choice
  std::vector<uint64_t> idle_bits_;
  uint32_t idle_count_ = 0;
  WorkerHeap heap_;
  std::unique_ptr<DispatchPolicy> per_request_;
  JbsqPolicy jbsq_;
  StealPolicy steal_;
  IdQueue central_;                      // JBSQ's central queue
  Rng jitter_rng_;

  std::vector<Request> requests_;
  std::vector<uint32_t> free_ids_;
  // The dispatcher: the next arrival (read ahead), when it is free of the work committed
  // before that arrival and after it, the jobs that end in events, its own request.
  bool have_next_ = false;
  Arrival next_{};
  double due_ns_ = 0;                    // when the pending arrival is dispatched
  double free_before_pending_ns_ = 0;
  double dispatcher_free_ns_ = 0;
  std::deque<DispatcherJob> dispatcher_jobs_;
  uint32_t own_ = kNone;                 // --dispatcher-works: the request the dispatcher runs
  bool own_running_ = false;
  double own_work_ns_ = 0;
  bool own_finishes_ = false;
  uint64_t monitor_actions_ = 0;
  uint64_t signals_received_ = 0;
  uint64_t signal_switches_ = 0;
  uint64_t requeued_ = 0;
  uint64_t dispatcher_requests_ = 0;
  std::shared_ptr<const StallTrace> stall_trace_;
  StallWindow stall_window_;
  std::vector<std::unique_ptr<StalledCpu>> cpus_;  // with stalls: the dispatcher's, then each worker's
  std::vector<StallWatch> watches_;     // per worker: the CPUs whose stalls can delay its requests
  std::vector<double> worker_busy_since_ns_;
  double system_busy_since_ns_ = 0;
  RequestRecorder recorder_;
  DispatchTotals totals_;
  uint64_t completed_ = 0;
  uint64_t quanta_ = 0;
  ClassUsageSet class_usage_;           // --class-schedule: per scheduled class, as the runtime reports it
  uint64_t in_system_ = 0;
  uint64_t peak_in_system_ = 0;
  uint64_t events_ = 0;
  double last_finish_ns_ = 0;
};

Engine::Engine(const SimConfig& config, const Workload& workload, SimObserver* observer)
    : cfg_(config.run),
      jobs_(config.jobs),
      overheads_(config.overheads),
      workload_(workload),
      observer_(observer),
      spec_(parse_dispatch_spec(config.run.dispatch_policy)),
      workers_count_(config.run.workers),
      quantum_ns_(config.run.quantum_us * 1000.0),
      probe_factor_(1.0 + config.overheads.probe_overhead_pct / 100.0),
      mechanism_(parse_preempt_mechanism(config.run.preempt)),
      costs_{config.overheads.preempt_overhead_ns, config.overheads.flag_notification_ns,
             config.overheads.signal_latency_ns, config.overheads.signal_cpu_ns},
      backstop_ns_(config.run.backstop_us * 1000.0),
      dispatcher_slot_(config.run.workers),
      heap_(config.run.workers + 1),
      jbsq_(spec_.depth),
      steal_(config.run.seed),
      jitter_rng_(config.run.seed ^ 0x6a09e667f3bcc909ull),
      stall_trace_(config.stalls),
      stall_window_(config.stall_window),
      recorder_(workload.classes().size(), 1.0) {
  if (workers_count_ == 0) throw std::invalid_argument("the simulator needs --workers of at least 1");
  check_model_ranges(config);
  interval_ns_ = config.run.interval_s * 1e9;
  if (config.run.adaptive_quantum) {
    const AdaptiveQuantumParams& a = *config.run.adaptive_quantum;
    if (!(a.period_s > 0) || !std::isfinite(a.period_s)) throw std::invalid_argument("the adaptive quantum's period must be above 0");
    controller_.emplace(a, config.run.quantum_us, workers_count_);
    quantum_ns_ = std::clamp(config.run.quantum_us, a.min_us, a.max_us) * 1000.0;
  }
  const uint32_t w = workers_count_;
  uint32_t slots = cfg_.task_slots ? cfg_.task_slots : 1;
  if (spec_.kind == Kind::kJbsq) slots = std::min(slots, spec_.depth);
  // The centralized model holds every worker's slots in one policy.
  const uint32_t server_count = spec_.kind == Kind::kCentral ? 1 : w;
  const uint32_t server_slots = spec_.kind == Kind::kCentral ? slots * w : slots;
  servers_.resize(server_count);
  if (!cfg_.class_schedule.empty() && spec_.kind != Kind::kPerRequest) {
    throw std::invalid_argument("--class-schedule: needs a two-level --dispatch (jsq-msq, jsq, random, po2): each "
                                "worker schedules its own classes");
  }
  for (Server& s : servers_) {
    if (!cfg_.class_schedule.empty()) {
      // Budgets in simulated ns: the schedule's runtimes and periods are in us.
      auto classed = std::make_unique<ClassedPolicy>(cfg_.local_policy, server_slots,
                                                     parse_class_schedule(cfg_.class_schedule, 1000.0));
      s.classed = classed.get();
      class_usage_.assign(classed->class_count(), ClassUsage{});
      s.policy = std::move(classed);
    } else {
      s.policy = make_local_policy(cfg_.local_policy, server_slots);
    }
    s.slot_request.assign(server_slots, kNone);
    for (uint32_t i = server_slots; i-- > 0;) s.free_slots.push_back(i);
  }
  preemptive_ = cfg_.preempt != "none" && servers_.front().policy->preemptive();
  if (spec_.kind == Kind::kPerRequest) per_request_ = make_dispatch_policy(spec_.name, cfg_.seed);
  if (spec_.kind == Kind::kSteal) per_request_ = make_dispatch_policy("random", cfg_.seed);
  workers_.resize(w);
  for (uint32_t i = 0; i < w; ++i) workers_[i].server = spec_.kind == Kind::kCentral ? 0 : i;
  loads_.resize(w);
  waiting_.resize(w);
  idle_bits_.assign((w + 63) / 64, 0);
  for (uint32_t i = 0; i < w; ++i) set_idle(i);
  worker_busy_since_ns_.assign(w, 0);
  make_stalled_cpus(config);
}

void Engine::make_stalled_cpus(const SimConfig& config) {
  if (!stall_trace_) return;
  if (stall_trace_->cpus.empty()) throw std::invalid_argument("--stalls: the trace has no CPUs");
  const double threshold_ns = config.run.stall_threshold_us * 1000.0;
  for (uint32_t i = 0; i <= workers_count_; ++i) {
    cpus_.push_back(std::make_unique<StalledCpu>(stall_trace_->cpus[i % stall_trace_->cpus.size()],
                                                 stall_trace_->period_ns, threshold_ns));
  }
  watches_.resize(workers_count_);
  for (uint32_t w = 0; w < workers_count_; ++w) {
    watches_[w].watch(&cpus_[0]->log());
    if (shared_queue()) {
      for (uint32_t v = 0; v < workers_count_; ++v) watches_[w].watch(&cpus_[1 + v]->log());
    } else {
      watches_[w].watch(&cpus_[1 + w]->log());
    }
  }
}

bool Engine::stall_touched(uint32_t w, const Request& r, double now) {
  if (cpus_.empty()) return false;
  // A runtime thread logs a stall when it ends; the ones that ended by now are known.
  for (const auto& cpu : cpus_) cpu->log_until(now);
  const auto ticks = [](double ns) { return static_cast<uint64_t>(std::llround(ns)); };
  switch (stall_window_) {
    case StallWindow::kDrain:
      return watches_[w].touched(ticks(r.arrival_ns), ticks(now));
    case StallWindow::kLifetime:
      return watches_[w].touched(ticks(r.arrival_ns), ticks(now), 0.0);
    case StallWindow::kBusyPeriod:
      return watches_[w].touched(ticks(std::min(r.busy_since_ns, r.arrival_ns)), ticks(now), 0.0);
  }
  return false;
}

void Engine::check_model_ranges(const SimConfig& config) {
  // Values a real machine cannot have would make the model run for ever (a quantum of
  // femtoseconds, work made infinite) or overflow the statistics: refuse them by name.
  auto within = [](const char* option, double value, double low, double high) {
    if (!(value >= low && value <= high)) {
      char text[160];
      std::snprintf(text, sizeof text, "%s: must be from %g to %g for the simulator, not %g", option, low, high, value);
      throw std::invalid_argument(text);
    }
  };
  within("--quantum-us", config.run.quantum_us, 1e-3, 1e9);
  within("--interval-s", config.run.interval_s, 0, 1e9);
  within("--probe-overhead-pct", config.overheads.probe_overhead_pct, 0, 1000);
  within("--preempt-overhead-ns", config.overheads.preempt_overhead_ns, 0, 1e9);
  within("--dispatch-ns", config.overheads.dispatch_ns, 0, 1e9);
  within("--quantum-jitter-ns", config.overheads.quantum_jitter_ns, 0, 1e9);
  within("--request-overhead-ns", config.overheads.request_overhead_ns, 0, 1e9);
  within("--flag-notification-ns", config.overheads.flag_notification_ns, 0, 1e9);
  within("--signal-latency-ns", config.overheads.signal_latency_ns, 0, 1e9);
  within("--signal-cpu-ns", config.overheads.signal_cpu_ns, 0, 1e9);
  within("--monitor-poll-ns", config.overheads.monitor_poll_ns, 0, 1e9);
  within("--requeue-ns", config.overheads.requeue_ns, 0, 1e9);
  within("--backstop-us", config.run.backstop_us, 1e-3, 1e9);
  const Kind kind = spec_.kind;
  if (config.run.dispatcher_works) {
    if (kind != Kind::kCentral && kind != Kind::kJbsq) {
      throw std::invalid_argument("--dispatcher-works: needs --dispatch central or jbsq:K, not " +
                                  config.run.dispatch_policy);
    }
    // flag: the workers' quanta end by the monitor's flag, the dispatcher's own by the clock
    // (the runtime runs the handler's clock twin there); schedule_own_quantum models the
    // latter whatever the mechanism, and monitor_poll_at holds the monitor back meanwhile.
    if (mechanism_ != PreemptMechanism::kClock && mechanism_ != PreemptMechanism::kHybrid &&
        mechanism_ != PreemptMechanism::kFlag) {
      throw std::invalid_argument("--dispatcher-works: needs --preempt clock, hybrid or flag (the dispatcher stops its "
                                  "own request with clock probes), not " + config.run.preempt);
    }
  }
  if (config.stalls) {
    // Replayed stalls are charged on the clock path only: refuse the rest by name rather
    // than run a model that leaves them out.
    if (mechanism_ != PreemptMechanism::kClock && mechanism_ != PreemptMechanism::kNone) {
      throw std::invalid_argument("--stalls: the simulator replays stalls with --preempt clock or none only, not " +
                                  config.run.preempt);
    }
    if (config.run.dispatcher_works) throw std::invalid_argument("--stalls: not modelled with --dispatcher-works");
    if (config.overheads.requeue_ns > 0) throw std::invalid_argument("--stalls: not modelled with --requeue-ns");
  }
}

void Engine::check_run_size(double rate_rps) const {
  // About ten million requests a second simulate here: past this many a run takes hours.
  constexpr double kMostArrivals = 1e10;
  if (jobs_) {
    if (static_cast<double>(*jobs_) > kMostArrivals) {
      throw std::invalid_argument("--jobs: the simulator takes at most 1e10 requests in one run");
    }
    // Simulated time is whole ns in 64 bits; stay far inside it (1e9 s is 1e18 ns).
    const double span_s = static_cast<double>(*jobs_) / rate_rps;
    if (!(span_s <= 1e9)) {
      char text[240];
      std::snprintf(text, sizeof text,
                    "--jobs: %.3g arrivals at %.3g requests/s span %.3g s of simulated time, more than the 1e9 s "
                    "the simulator's clock holds (a larger --load or --rate-rps, or fewer --jobs)",
                    static_cast<double>(*jobs_), rate_rps, span_s);
      throw std::invalid_argument(text);
    }
    return;
  }
  const double arrivals = rate_rps * cfg_.duration_s;
  if (!(arrivals <= kMostArrivals)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "--duration-s: %g s at %.3g requests/s is %.3g arrivals; the simulator takes at most 1e10 in one "
                  "run (a shorter --duration-s, or --jobs)",
                  cfg_.duration_s, rate_rps, arrivals);
    throw std::invalid_argument(text);
  }
}

double Engine::jitter_ns() {
  if (overheads_.quantum_jitter_ns <= 0) return 0;
  const double u1 = jitter_rng_.unit_open_zero();
  const double u2 = jitter_rng_.unit_open_zero();
  return overheads_.quantum_jitter_ns * std::fabs(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
}

void Engine::admit(Server& server, uint32_t id) {
  const uint32_t slot = server.free_slots.back();
  server.free_slots.pop_back();
  server.slot_request[slot] = id;
  requests_[id].slot = slot;
  if (server.classed) server.classed->set_class(slot, requests_[id].class_index);
  server.policy->admit(slot);
}

void Engine::admit_ring(Server& server) {
  while (!server.ring.empty() && !server.free_slots.empty()) admit(server, server.ring.pop());
}

void Engine::assign(uint32_t w, uint32_t id) {
  ++loads_[w].outstanding;
  admit(servers_[w], id);
}

void Engine::start(uint32_t w, uint32_t id, double now) {
  Request& r = requests_[id];
  WorkerState& ws = workers_[w];
  ws.request = id;
  set_busy(w);
  if (!cpus_.empty()) {
    // The worker's CPU may be taken away before or during the quantum (clock only).
    const double quantum = preemptive_ ? std::min(quantum_ns_, ws.quantum_cap_ns) + jitter_ns() : kForever;
    const StalledCpu::Stint stint = cpus_[1 + w]->run(now, r.remaining_ns, quantum);
    ws.served_ns = stint.work_ns;
    ws.finishes = stint.finished;
    ws.stop_ns = stint.end_ns;
    ws.phase = WorkerState::Phase::kQuantum;
    heap_.set(w, stint.end_ns + (stint.finished ? 0 : overheads_.preempt_overhead_ns));
    return;
  }
  QuantumSpec& spec = ws.spec;
  spec.mechanism = preemptive_ ? mechanism_ : PreemptMechanism::kNone;
  spec.start_ns = now;
  spec.remaining_ns = r.remaining_ns;
  spec.quantum_ns = preemptive_ ? std::min(quantum_ns_, ws.quantum_cap_ns) : kForever;
  // A signal stops the task wherever it is; the other mechanisms wait for a probe.
  spec.probe_jitter_ns = preemptive_ && mechanism_ != PreemptMechanism::kSignal ? jitter_ns() : 0;
  spec.backstop_ns = backstop_ns_;
  const QuantumStart begun = begin_quantum(spec, costs_);
  if (begun.monitor_due_ns != QuantumStart::kNever) {
    ws.phase = WorkerState::Phase::kMonitor;
    heap_.set(w, begun.monitor_due_ns);
    return;
  }
  apply_quantum_end(w, begun.end);
}

void Engine::apply_quantum_end(uint32_t w, const QuantumEnd& end) {
  WorkerState& ws = workers_[w];
  ws.served_ns = end.work_ns;
  ws.finishes = end.finished;
  ws.stop_ns = end.stop_ns;
  ws.phase = WorkerState::Phase::kQuantum;
  monitor_actions_ += end.monitor_acted;
  signals_received_ += end.signal_received;
  signal_switches_ += end.signal_switched;
  heap_.set(w, end.free_ns);
}

double Engine::monitor_poll_at(double due_ns) const {
  // The monitor polls first thing in each iteration of the dispatcher's loop; an iteration
  // that dispatches, requeues or runs a quantum of the dispatcher's own request holds the
  // poll back until it is over.
  const bool arrival_waiting = have_next_ && static_cast<double>(next_.arrival_ns) <= due_ns;
  const double busy_until = arrival_waiting ? dispatcher_free_ns_ : free_before_pending_ns_;
  if (busy_until > due_ns) return busy_until;
  const double period = overheads_.monitor_poll_ns;
  return period > 0 ? std::ceil(due_ns / period) * period : due_ns;
}

void Engine::reserve_pending_arrival() {
  if (!have_next_) {
    dispatcher_free_ns_ = free_before_pending_ns_;
    return;
  }
  // The dispatcher serves requests one at a time: with a cost per request, a burst queues
  // in front of it (and behind its other work).
  double from = std::max(static_cast<double>(next_.arrival_ns), free_before_pending_ns_);
  if (!cpus_.empty()) from = cpus_[0]->available_at(from);  // the dispatcher's CPU taken away
  due_ns_ = from + overheads_.dispatch_ns;
  dispatcher_free_ns_ = due_ns_;
}

double Engine::dispatcher_do(double t, double length_ns) {
  const bool arrival_first =
      have_next_ && static_cast<double>(next_.arrival_ns) <= std::max(t, free_before_pending_ns_);
  if (arrival_first) {
    // Arrivals come first in the dispatcher's loop: this work waits for the pending one.
    dispatcher_free_ns_ = std::max(t, dispatcher_free_ns_) + length_ns;
    return dispatcher_free_ns_;
  }
  free_before_pending_ns_ = std::max(t, free_before_pending_ns_) + length_ns;
  const double end = free_before_pending_ns_;
  reserve_pending_arrival();
  return end;
}

void Engine::push_dispatcher_job(const DispatcherJob& job) {
  dispatcher_jobs_.push_back(job);
  heap_.set(dispatcher_slot_, dispatcher_jobs_.front().end_ns);
}

void Engine::schedule_own_quantum(double now) {
  if (own_ == kNone || own_running_) return;
  // The dispatcher ends its own quanta with clock probes, whatever the workers' mechanism
  // and local policy: it must get back to its arrivals after one quantum.
  const Request& r = requests_[own_];
  const double budget = quantum_ns_ + jitter_ns();
  own_finishes_ = r.remaining_ns <= budget;
  own_work_ns_ = own_finishes_ ? r.remaining_ns : budget;
  const double length = own_work_ns_ + (own_finishes_ ? 0 : overheads_.preempt_overhead_ns);
  own_running_ = true;
  push_dispatcher_job({dispatcher_do(now, length), own_, true});
}

bool Engine::central_slot_free(uint32_t id) {
  // The runtime's central dispatcher holds every request in one of task_slots x workers
  // slots (CentralSlots): with none free it drops the arrival (--on-full drop) or holds
  // it, and its sources, until one frees (counted in full_ring_waits; the model lets the
  // queue grow instead, as it does with full rings).
  if (in_system_ <= static_cast<uint64_t>(cfg_.task_slots) * workers_count_) return true;
  if (cfg_.on_full == "drop") {
    ++totals_.dropped;
    --in_system_;
    free_ids_.push_back(id);
    return false;
  }
  ++totals_.full_ring_waits;
  return true;
}

bool Engine::dispatcher_takes(uint32_t id) {
  // --dispatcher-works, as CentralDispatcher::admit: an arrival that finds every worker
  // full, while the dispatcher has no request of its own, becomes the dispatcher's.
  if (!cfg_.dispatcher_works || own_ != kNone) return false;
  const bool all_full = spec_.kind == Kind::kCentral ? idle_count_ == 0 : !jbsq_.choose(loads_).has_value();
  if (!all_full) return false;
  own_ = id;
  return true;
}

bool Engine::start_next(uint32_t w, double now) {
  Server& s = servers_[workers_[w].server];
  if (s.classed) s.classed->set_now(static_cast<uint64_t>(std::llround(now)));
  const std::optional<TaskId> slot = s.policy->pick();
  if (!slot) {
    // Tasks still waiting: capped classes out of budget (one spell per idle stretch).
    if (s.classed && s.classed->waiting() > 0 && !workers_[w].throttled) {
      workers_[w].throttled = true;
      for (uint32_t c = 0; c < s.classed->class_count(); ++c) {
        if (s.classed->waiting_in(c) > 0) ++class_usage_[c].throttled_spells;
      }
    }
    set_idle(w);
    heap_.erase(w);
    return false;
  }
  workers_[w].throttled = false;
  if (s.classed) {
    const uint64_t allowance = s.classed->allowance();
    workers_[w].running_class = *s.classed->picked_class();
    workers_[w].quantum_cap_ns = allowance == ClassBandwidth::kUnlimited ? kForever : static_cast<double>(allowance);
  }
  start(w, s.slot_request[*slot], now);
  return true;
}

void Engine::on_arrival(uint32_t id, double now) {
  if (controller_) controller_->on_arrival(static_cast<double>(requests_[id].service_ns));
  ++in_system_;
  if (in_system_ > peak_in_system_) peak_in_system_ = in_system_;
  Request& arriving = requests_[id];
  if (in_system_ == 1) system_busy_since_ns_ = arriving.arrival_ns;
  arriving.busy_since_ns = system_busy_since_ns_;
  switch (spec_.kind) {
    case Kind::kPerRequest:
    case Kind::kSteal: {
      const uint32_t w = per_request_->choose(loads_);
      Server& s = servers_[w];
      if (s.ring.size() >= cfg_.ring_capacity) {
        // The real dispatcher drops or stalls; the model drops or counts the stall (the
        // ring grows instead of delaying later arrivals: see docs/sim.md).
        if (cfg_.on_full == "drop") {
          ++totals_.dropped;
          --in_system_;
          free_ids_.push_back(id);
          return;
        }
        ++totals_.full_ring_waits;
      }
      ++totals_.dispatched;
      if (!shared_queue()) {
        // Its worker's own queue: a request that finds it empty begins its busy period.
        if (loads_[w].outstanding == 0) worker_busy_since_ns_[w] = arriving.arrival_ns;
        arriving.busy_since_ns = worker_busy_since_ns_[w];
      }
      ++loads_[w].outstanding;
      s.ring.push(id);
      if (idle(w)) {
        admit_ring(s);
        start_next(w, now);
      } else if (spec_.kind == Kind::kSteal && idle_count_ > 0) {
        steal_while_idle(now);
      }
      return;
    }
    case Kind::kCentral: {
      if (!central_slot_free(id)) return;
      ++totals_.dispatched;
      if (dispatcher_takes(id)) return;
      Server& s = servers_[0];
      s.ring.push(id);
      if (idle_count_ > 0) {
        admit_ring(s);
        start_next(first_idle(), now);
      }
      return;
    }
    case Kind::kJbsq: {
      if (!central_slot_free(id)) return;
      ++totals_.dispatched;
      if (dispatcher_takes(id)) return;
      if (const std::optional<uint32_t> w = jbsq_.choose(loads_)) {
        assign(*w, id);
        if (idle(*w)) start_next(*w, now);
      } else {
        central_.push(id);
      }
      return;
    }
  }
}

void Engine::record_finish(uint32_t id, double now, bool touched) {
  Request& r = requests_[id];
  // Simulated ns are the tick; the sojourn is rounded once, as a whole.
  recorder_.record({0, static_cast<uint64_t>(std::llround(now - r.arrival_ns)),
                    static_cast<uint64_t>(std::llround(r.service_ns * probe_factor_)), r.service_ns, r.class_index,
                    r.quanta - 1, r.measured, touched});
  if (observer_) observer_->on_finish({r.arrival_ns, now, r.service_ns, r.class_index, r.measured});
  if (controller_) controller_->on_finish(now - r.arrival_ns);
  if (interval_ns_ > 0) {
    const auto index = static_cast<std::size_t>(now / interval_ns_);
    if (index >= intervals_.size()) intervals_.resize(index + 1);
    intervals_[index].record(static_cast<uint64_t>(std::llround(now - r.arrival_ns)));
  }
  ++completed_;
  --in_system_;
  last_finish_ns_ = std::max(last_finish_ns_, now);
  free_ids_.push_back(id);
}

void Engine::finish(uint32_t w, uint32_t id, double now) {
  Request& r = requests_[id];
  const bool touched = stall_touched(w, r, now);
  Server& s = servers_[workers_[w].server];
  s.free_slots.push_back(r.slot);
  if (spec_.kind != Kind::kCentral) --loads_[w].outstanding;
  if (tracks_worker_quanta()) loads_[w].current_quanta -= r.quanta;
  record_finish(id, now, touched);
}

void Engine::on_quantum_end(uint32_t w, double now) {
  WorkerState& ws = workers_[w];
  if (ws.phase == WorkerState::Phase::kMonitor) {
    // The monitor's turn: its poll decides when (and how) the quantum ends.
    apply_quantum_end(w, after_monitor(ws.spec, costs_, monitor_poll_at(now)));
    return;
  }
  if (ws.phase == WorkerState::Phase::kReturn) {
    // The dispatcher has put the preempted task back in its queue and hands out again.
    ws.phase = WorkerState::Phase::kQuantum;
    after_quantum(w, now);
    return;
  }
  const uint32_t id = ws.request;
  Request& r = requests_[id];
  r.remaining_ns -= ws.served_ns;
  r.attained_ns += ws.served_ns;
  if (Server& s = servers_[ws.server]; s.classed) {
    s.classed->charge(ws.running_class, static_cast<uint64_t>(std::llround(ws.served_ns)),
                      static_cast<uint64_t>(std::llround(now)));
    ClassUsage& u = class_usage_[ws.running_class];
    ++u.quanta;
    u.cpu_ns += ws.served_ns;
    if (!ws.finishes && ws.quantum_cap_ns < quantum_ns_) ++u.budget_ended_quanta;
  }
  ++r.quanta;
  ++quanta_;
  // The worker's counter of serviced quanta, as Worker::run() keeps it (MSQ reads it).
  if (tracks_worker_quanta()) ++loads_[w].current_quanta;
  if (!ws.finishes && shared_queue()) {
    // The runtime's central dispatcher takes every preempted quantum back (central,
    // jbsq:K, steal). Under central and steal a worker holds one slot, so it waits for the
    // dispatcher to requeue it and hand out the next; under jbsq:K the task travels back
    // while the worker goes on with the other slots it holds (below).
    ++requeued_;
    if (overheads_.requeue_ns > 0 && spec_.kind != Kind::kJbsq) {
      ws.phase = WorkerState::Phase::kReturn;
      heap_.set(w, dispatcher_do(now, overheads_.requeue_ns));
      return;
    }
  }
  after_quantum(w, now);
}

void Engine::after_quantum(uint32_t w, double now) {
  WorkerState& ws = workers_[w];
  const uint32_t id = ws.request;
  Request& r = requests_[id];
  Server& s = servers_[ws.server];
  const bool jbsq_round_trip = spec_.kind == Kind::kJbsq && overheads_.requeue_ns > 0;
  if (!ws.finishes && !jbsq_round_trip && s.ring.empty() && s.policy->waiting() == 0 && central_.empty()) {
    // A preempted task alone on its server: requeue-then-pick would hand it straight back,
    // and nothing else can change at this instant. Skip the round trip (the common case
    // of a long request running alone; same schedule, fewer calls).
    start(w, id, now);
    return;
  }
  ws.request = kNone;
  if (ws.finishes) {
    finish(w, id, ws.stop_ns);
  } else if (spec_.kind == Kind::kJbsq) {
    // Concord, and the runtime's jbsq:K: a preempted request leaves its worker and goes to
    // the back of the central queue, behind the arrivals that came meanwhile (and, with a
    // requeue cost, once the dispatcher has taken it back).
    s.free_slots.push_back(r.slot);
    --loads_[w].outstanding;
    if (jbsq_round_trip) {
      push_dispatcher_job({dispatcher_do(now, overheads_.requeue_ns), id, false});
    } else {
      central_.push(id);
    }
  } else {
    // As Worker::run(): requests that arrived during the quantum queue up before the task
    // that used it.
    admit_ring(s);
    s.policy->requeue(r.slot, static_cast<uint64_t>(r.attained_ns));
  }
  if (spec_.kind == Kind::kJbsq) {
    hand_out_central(w, now);
  } else {
    admit_ring(s);
  }
  const bool busy = start_next(w, now);
  if (spec_.kind == Kind::kSteal && idle_count_ > 0) {
    if (!busy) try_steal(w, now);
    steal_while_idle(now);
  }
}

void Engine::hand_out_central(uint32_t w, double now) {
  // A slot freed: the dispatcher moves the central queue's head to a worker with room
  // (worker `w` picks its next task itself, after this).
  while (!central_.empty()) {
    const std::optional<uint32_t> v = jbsq_.choose(loads_);
    if (!v) break;
    assign(*v, central_.pop());
    if (*v != w && idle(*v)) start_next(*v, now);
  }
}

void Engine::on_dispatcher_job(double now) {
  const DispatcherJob job = dispatcher_jobs_.front();
  dispatcher_jobs_.pop_front();
  if (dispatcher_jobs_.empty()) {
    heap_.erase(dispatcher_slot_);
  } else {
    heap_.set(dispatcher_slot_, dispatcher_jobs_.front().end_ns);
  }
  if (!job.own_quantum) {
    // A preempted JBSQ task is back in the central queue.
    central_.push(job.request);
    hand_out_central(kNone, now);
    return;
  }
  Request& r = requests_[job.request];
  r.remaining_ns -= own_work_ns_;
  r.attained_ns += own_work_ns_;
  ++r.quanta;
  ++quanta_;
  own_running_ = false;
  if (own_finishes_) {
    ++dispatcher_requests_;
    own_ = kNone;
    record_finish(job.request, now, false);
    return;
  }
  schedule_own_quantum(now);
}

bool Engine::try_steal(uint32_t thief, double now) {
  // Every request in the system is running on a busy worker or waiting somewhere: when none
  // waits, skip the scan over the workers.
  if (in_system_ <= workers_count_ - idle_count_) return false;
  for (uint32_t i = 0; i < workers_count_; ++i) {
    waiting_[i] = static_cast<uint32_t>(servers_[i].ring.size() + servers_[i].policy->waiting());
  }
  const std::optional<uint32_t> victim = steal_.victim(waiting_, thief);
  if (!victim) return false;
  Server& vs = servers_[*victim];
  uint32_t id;
  if (!vs.ring.empty()) {
    id = vs.ring.pop();
  } else {
    const TaskId slot = *vs.policy->pick();  // the task the victim would run next
    id = vs.slot_request[slot];
    vs.free_slots.push_back(slot);
  }
  const uint32_t quanta = requests_[id].quanta;
  --loads_[*victim].outstanding;
  loads_[*victim].current_quanta -= quanta;
  ++loads_[thief].outstanding;
  loads_[thief].current_quanta += quanta;
  admit(servers_[thief], id);
  return start_next(thief, now);
}

void Engine::steal_while_idle(double now) {
  // Idle workers poll for work all the time; in the model they steal at the events that
  // can create stealable work (an arrival, a preemption).
  while (idle_count_ > 0) {
    if (!try_steal(first_idle(), now)) return;
  }
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

SimResult Engine::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_s();
  const double rate = sim_offered_rate_rps(cfg_, workload_);
  if (!(rate > 0) || !std::isfinite(rate)) throw std::invalid_argument("the offered rate must be above 0");
  check_run_size(rate);
  if (interval_ns_ > 0) {
    // One latency histogram per interval: keep them to a number a report can hold.
    const double end_s = jobs_ ? static_cast<double>(*jobs_) / rate : cfg_.duration_s;
    if (end_s / cfg_.interval_s > 10'000) {
      char text[128];
      std::snprintf(text, sizeof text, "--interval-s: %g s makes over 10000 intervals of a %g s run; take a longer one",
                    cfg_.interval_s, end_s);
      throw std::invalid_argument(text);
    }
  }
  const RateProfile profile = RateProfile::parse(cfg_.rate_profile);
  PoissonArrivals arrivals(workload_, rate, cfg_.seed, &profile);
  const bool by_jobs = jobs_.has_value();
  const uint64_t job_limit = by_jobs ? *jobs_ : std::numeric_limits<uint64_t>::max();
  const double end_ns = by_jobs ? kForever : cfg_.duration_s * 1e9;
  const double measure_from_ns = cfg_.warmup_frac * cfg_.duration_s * 1e9;
  const auto measure_from_index = static_cast<uint64_t>(cfg_.warmup_frac * static_cast<double>(job_limit));

  double last_arrival_ns = 0;
  // Reads the next arrival ahead and reserves the dispatcher's time for it.
  auto fetch = [&]() -> bool {
    free_before_pending_ns_ = dispatcher_free_ns_;
    have_next_ = false;
    if (totals_.generated < job_limit) {
      next_ = arrivals.next();
      have_next_ = arrivals.exact_ns() < end_ns;
    }
    if (have_next_) {
      ++totals_.generated;
      last_arrival_ns = static_cast<double>(next_.arrival_ns);
    }
    reserve_pending_arrival();
    return have_next_;
  };

  fetch();
  for (;;) {
    const bool arrival_next = have_next_ && (heap_.empty() || due_ns_ <= heap_.top_time());
    if (controller_) {
      // The controller's decisions fall between events: each sees the period up to it.
      const double next_event = arrival_next ? due_ns_ : !heap_.empty() ? heap_.top_time() : kForever;
      while (next_event != kForever && controller_->next_decision_ns() <= next_event) {
        const uint64_t running = workers_count_ - idle_count_;
        quantum_ns_ = controller_->decide(in_system_ > running ? in_system_ - running : 0, quantum_series_) * 1000.0;
      }
    }
    if (arrival_next) {
      const uint32_t id = new_request();
      Request& r = requests_[id];
      r.arrival_ns = static_cast<double>(next_.arrival_ns);
      r.service_ns = next_.service_ns;
      // The worker's own per-request work (admit, start the task, finish it) runs as part of
      // the request's first and last quanta; it is not service, so not in the slowdown.
      r.remaining_ns = static_cast<double>(next_.service_ns) * probe_factor_ + overheads_.request_overhead_ns;
      r.attained_ns = 0;
      r.class_index = next_.class_index;
      r.quanta = 0;
      r.slot = kNone;
      r.measured = by_jobs ? totals_.generated - 1 >= measure_from_index : r.arrival_ns >= measure_from_ns;
      const double now = due_ns_;
      if (now - r.arrival_ns > 1000.0) ++totals_.late_arrivals;
      on_arrival(id, now);
      ++events_;
      fetch();
      // With nothing else to do, the dispatcher runs a quantum of its own request.
      schedule_own_quantum(now);
    } else if (!heap_.empty()) {
      const uint32_t w = heap_.top();
      if (w == dispatcher_slot_) {
        on_dispatcher_job(heap_.top_time());
      } else {
        on_quantum_end(w, heap_.top_time());
      }
      ++events_;
    } else {
      break;
    }
  }

  SimResult result;
  RunResult& out = result.run;
  out.config = cfg_;
  out.offered_rps = rate;
  out.config.rate_rps = rate;
  if (by_jobs) out.config.duration_s = last_arrival_ns * 1e-9;
  out.elapsed_s = last_finish_ns_ * 1e-9;
  out.dispatch = totals_;
  out.completed = completed_;
  out.quanta = quanta_;
  out.class_usage = class_usage_;
  out.monitor_actions = monitor_actions_;
  out.signals_received = signals_received_;
  out.signal_switches = signal_switches_;
  out.requeued = requeued_;
  out.dispatcher_requests = dispatcher_requests_;
  out.quantum_series = std::move(quantum_series_);
  out.intervals.reserve(intervals_.size());
  for (const Histogram& h : intervals_) {
    const bool any = h.count() > 0;
    out.intervals.push_back({h.count(), any ? h.value_at_percentile(50) / 1e3 : 0.0,
                             any ? h.value_at_percentile(99) / 1e3 : 0.0, any ? h.value_at_percentile(99.9) / 1e3 : 0.0});
  }
  // The untouched subset is made from every request's statistics: before they move out.
  out.untouched = recorder_.untouched();
  out.classes = std::move(recorder_.classes());
  out.stall_threshold_us = cfg_.stall_threshold_us;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    cpus_[i]->log_until(last_finish_ns_);
    const StallLog& log = cpus_[i]->log();
    out.stalls.push_back({i == 0 ? "dispatcher" : "worker " + std::to_string(i - 1), -1, log.count(),
                          static_cast<double>(log.total_cycles()), static_cast<double>(log.largest_cycles())});
  }
  result.sim.events = events_;
  result.sim.peak_in_system = peak_in_system_;
  result.sim.cpu_s = thread_cpu_s() - cpu_start;
  result.sim.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace

SimResult simulate(const SimConfig& config, const Workload& workload, SimObserver* observer) {
  Engine engine(config, workload, observer);
  return engine.run();
}

}  // namespace quanta
