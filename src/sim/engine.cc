#include "sim/engine.h"

#include <bit>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
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
  std::vector<uint32_t> slot_request;  // slot -> request id
  std::vector<uint32_t> free_slots;
  IdQueue ring;
};

struct WorkerState {
  uint32_t server = 0;
  uint32_t request = kNone;  // running request
  double served_ns = 0;      // work the current quantum does
  bool finishes = false;     // the current quantum completes the request
};

class Engine {
 public:
  Engine(const SimConfig& config, const Workload& workload, SimObserver* observer);
  SimResult run();

 private:
  using Kind = DispatchSpec::Kind;

  void on_arrival(uint32_t id, double now);
  void on_quantum_end(uint32_t w, double now);
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
  double quantum_ns_;
  double probe_factor_;
  bool preemptive_ = true;

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
      heap_(config.run.workers),
      jbsq_(spec_.depth),
      steal_(config.run.seed),
      jitter_rng_(config.run.seed ^ 0x6a09e667f3bcc909ull),
      stall_trace_(config.stalls),
      stall_window_(config.stall_window),
      recorder_(workload.classes().size(), 1.0) {
  if (workers_count_ == 0) throw std::invalid_argument("the simulator needs --workers of at least 1");
  check_model_ranges(config);
  const uint32_t w = workers_count_;
  uint32_t slots = cfg_.task_slots ? cfg_.task_slots : 1;
  if (spec_.kind == Kind::kJbsq) slots = std::min(slots, spec_.depth);
  // The centralized model holds every worker's slots in one policy.
  const uint32_t server_count = spec_.kind == Kind::kCentral ? 1 : w;
  const uint32_t server_slots = spec_.kind == Kind::kCentral ? slots * w : slots;
  servers_.resize(server_count);
  for (Server& s : servers_) {
    s.policy = make_local_policy(cfg_.local_policy, server_slots);
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
  within("--probe-overhead-pct", config.overheads.probe_overhead_pct, 0, 1000);
  within("--preempt-overhead-ns", config.overheads.preempt_overhead_ns, 0, 1e9);
  within("--dispatch-ns", config.overheads.dispatch_ns, 0, 1e9);
  within("--quantum-jitter-ns", config.overheads.quantum_jitter_ns, 0, 1e9);
  within("--request-overhead-ns", config.overheads.request_overhead_ns, 0, 1e9);
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
  const double quantum = preemptive_ ? quantum_ns_ + jitter_ns() : kForever;
  double end;
  if (!cpus_.empty()) {
    // The worker's CPU may be taken away before or during the quantum.
    const StalledCpu::Stint stint = cpus_[1 + w]->run(now, r.remaining_ns, quantum);
    ws.served_ns = stint.work_ns;
    ws.finishes = stint.finished;
    end = stint.end_ns + (stint.finished ? 0 : overheads_.preempt_overhead_ns);
  } else if (r.remaining_ns <= quantum) {
    ws.served_ns = r.remaining_ns;
    ws.finishes = true;
    end = now + r.remaining_ns;
  } else {
    ws.served_ns = quantum;
    ws.finishes = false;
    end = now + quantum + overheads_.preempt_overhead_ns;
  }
  set_busy(w);
  heap_.set(w, end);
}

bool Engine::start_next(uint32_t w, double now) {
  Server& s = servers_[workers_[w].server];
  const std::optional<TaskId> slot = s.policy->pick();
  if (!slot) {
    set_idle(w);
    heap_.erase(w);
    return false;
  }
  start(w, s.slot_request[*slot], now);
  return true;
}

void Engine::on_arrival(uint32_t id, double now) {
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
      ++totals_.dispatched;
      Server& s = servers_[0];
      s.ring.push(id);
      if (idle_count_ > 0) {
        admit_ring(s);
        start_next(first_idle(), now);
      }
      return;
    }
    case Kind::kJbsq: {
      ++totals_.dispatched;
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

void Engine::finish(uint32_t w, uint32_t id, double now) {
  Request& r = requests_[id];
  // Simulated ns are the tick; the sojourn is rounded once, as a whole.
  recorder_.record({0, static_cast<uint64_t>(std::llround(now - r.arrival_ns)),
                    static_cast<uint64_t>(std::llround(r.service_ns * probe_factor_)), r.service_ns, r.class_index,
                    r.quanta - 1, r.measured, stall_touched(w, r, now)});
  if (observer_) observer_->on_finish({r.arrival_ns, now, r.service_ns, r.class_index, r.measured});
  Server& s = servers_[workers_[w].server];
  s.free_slots.push_back(r.slot);
  if (spec_.kind != Kind::kCentral) --loads_[w].outstanding;
  if (tracks_worker_quanta()) loads_[w].current_quanta -= r.quanta;
  ++completed_;
  --in_system_;
  last_finish_ns_ = now;
  free_ids_.push_back(id);
}

void Engine::on_quantum_end(uint32_t w, double now) {
  WorkerState& ws = workers_[w];
  const uint32_t id = ws.request;
  Request& r = requests_[id];
  r.remaining_ns -= ws.served_ns;
  r.attained_ns += ws.served_ns;
  ++r.quanta;
  ++quanta_;
  // The worker's counter of serviced quanta, as Worker::run() keeps it (MSQ reads it).
  if (tracks_worker_quanta()) ++loads_[w].current_quanta;
  Server& s = servers_[ws.server];
  if (!ws.finishes && s.ring.empty() && s.policy->waiting() == 0 && central_.empty()) {
    // A preempted task alone on its server: requeue-then-pick would hand it straight back,
    // and nothing else can change at this instant. Skip the round trip (the common case
    // of a long request running alone; same schedule, fewer calls).
    start(w, id, now);
    return;
  }
  ws.request = kNone;
  if (ws.finishes) {
    finish(w, id, now);
  } else if (spec_.kind == Kind::kJbsq) {
    // Concord, and the runtime's jbsq:K: a preempted request leaves its worker and goes to
    // the back of the central queue, behind the arrivals that came meanwhile.
    s.free_slots.push_back(r.slot);
    --loads_[w].outstanding;
    central_.push(id);
  } else {
    // As Worker::run(): requests that arrived during the quantum queue up before the task
    // that used it.
    admit_ring(s);
    s.policy->requeue(r.slot, static_cast<uint64_t>(r.attained_ns));
  }
  if (spec_.kind == Kind::kJbsq) {
    // A slot freed: the dispatcher moves the central queue's head to a worker with room.
    while (!central_.empty()) {
      const std::optional<uint32_t> v = jbsq_.choose(loads_);
      if (!v) break;
      assign(*v, central_.pop());
      if (*v != w && idle(*v)) start_next(*v, now);
    }
  } else {
    admit_ring(s);
  }
  const bool busy = start_next(w, now);
  if (spec_.kind == Kind::kSteal && idle_count_ > 0) {
    if (!busy) try_steal(w, now);
    steal_while_idle(now);
  }
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
  PoissonArrivals arrivals(workload_, rate, cfg_.seed);
  const bool by_jobs = jobs_.has_value();
  const uint64_t job_limit = by_jobs ? *jobs_ : std::numeric_limits<uint64_t>::max();
  const double end_ns = by_jobs ? kForever : cfg_.duration_s * 1e9;
  const double measure_from_ns = cfg_.warmup_frac * cfg_.duration_s * 1e9;
  const auto measure_from_index = static_cast<uint64_t>(cfg_.warmup_frac * static_cast<double>(job_limit));

  double dispatcher_free_ns = 0;
  double last_arrival_ns = 0;
  Arrival next{};
  double due_ns = 0;
  auto fetch = [&]() -> bool {
    if (totals_.generated >= job_limit) return false;
    next = arrivals.next();
    if (arrivals.exact_ns() >= end_ns) return false;
    ++totals_.generated;
    const auto arrival = static_cast<double>(next.arrival_ns);
    last_arrival_ns = arrival;
    // The dispatcher serves requests one at a time: with a cost per request, a burst queues
    // in front of it.
    due_ns = arrival;
    if (overheads_.dispatch_ns > 0 || !cpus_.empty()) {
      double from = std::max(arrival, dispatcher_free_ns);
      if (!cpus_.empty()) from = cpus_[0]->available_at(from);  // the dispatcher's CPU taken away
      due_ns = from + overheads_.dispatch_ns;
      dispatcher_free_ns = due_ns;
      if (due_ns - arrival > 1000.0) ++totals_.late_arrivals;
    }
    return true;
  };

  bool have = fetch();
  for (;;) {
    if (have && (heap_.empty() || due_ns <= heap_.top_time())) {
      const uint32_t id = new_request();
      Request& r = requests_[id];
      r.arrival_ns = static_cast<double>(next.arrival_ns);
      r.service_ns = next.service_ns;
      // The worker's own per-request work (admit, start the task, finish it) runs as part of
      // the request's first and last quanta; it is not service, so not in the slowdown.
      r.remaining_ns = static_cast<double>(next.service_ns) * probe_factor_ + overheads_.request_overhead_ns;
      r.attained_ns = 0;
      r.class_index = next.class_index;
      r.quanta = 0;
      r.slot = kNone;
      r.measured = by_jobs ? totals_.generated - 1 >= measure_from_index : r.arrival_ns >= measure_from_ns;
      on_arrival(id, due_ns);
      ++events_;
      have = fetch();
    } else if (!heap_.empty()) {
      on_quantum_end(heap_.top(), heap_.top_time());
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
  out.classes = std::move(recorder_.classes());
  out.untouched = std::move(recorder_.untouched());
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
