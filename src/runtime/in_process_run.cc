#include "runtime/in_process_run.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "core/tsc.h"
#include "policy/central_policy.h"
#include "runtime/central_dispatcher.h"
#include "runtime/cpu_layout.h"
#include "runtime/dispatcher.h"
#include "runtime/quantum_monitor.h"
#include "preempt/signal_preempt.h"
#include "runtime/worker.h"

namespace quanta {

double offered_rate_rps(const RunConfig& config, const Workload& workload, unsigned workers) {
  if (config.rate_rps) return *config.rate_rps;
  return config.load * workers / (workload.mean_us() * 1e-6);
}

namespace {

// The synthetic app (and any app that wants it) receives the service time in cycles.
uint64_t service_cycles_payload(const Arrival& arrival) { return ns_to_cycles(arrival.service_ns); }

// Who ends quanta from outside the worker, if anyone: the dispatcher writes flags
// (flag), or signals the worker after the quantum (signal) or after the backstop (hybrid).
std::unique_ptr<QuantumMonitor> make_monitor(std::span<const WorkerPort> ports, const WorkerConfig& config) {
  switch (config.preempt) {
    case PreemptMechanism::kFlag:
      return std::make_unique<QuantumMonitor>(ports, config.quantum_cycles, QuantumMonitor::Action::kWriteFlag);
    case PreemptMechanism::kSignal:
      return std::make_unique<QuantumMonitor>(ports, config.quantum_cycles, QuantumMonitor::Action::kSignal);
    case PreemptMechanism::kHybrid:
      return std::make_unique<QuantumMonitor>(ports, config.backstop_cycles, QuantumMonitor::Action::kSignal);
    case PreemptMechanism::kClock:
    case PreemptMechanism::kNone:
      break;
  }
  return nullptr;
}

DispatchPlan make_plan(const RunConfig& config, std::span<const Arrival> schedule) {
  DispatchPlan plan;
  plan.schedule = schedule;
  plan.measure_from_ns = static_cast<uint64_t>(config.warmup_frac * config.duration_s * 1e9);
  plan.on_full = config.on_full == "drop" ? FullRingAction::kDrop : FullRingAction::kWait;
  plan.payload_of = &service_cycles_payload;
  return plan;
}

// Runs either dispatcher over the schedule with the mechanism's monitor, if any; fills in
// the monitor's actions and the elapsed time.
template <typename AnyDispatcher>
DispatchTotals drive(AnyDispatcher& dispatcher, std::span<const WorkerPort> ports, const WorkerConfig& worker_config,
                     const RunConfig& config, std::span<const Arrival> schedule, RunResult& result) {
  std::unique_ptr<QuantumMonitor> monitor = make_monitor(ports, worker_config);
  dispatcher.set_monitor(monitor.get());
  DispatchPlan plan = make_plan(config, schedule);
  plan.start_tsc = read_tsc();
  const DispatchTotals totals = dispatcher.run(plan);
  if (monitor) result.monitor_actions = monitor->actions();
  result.elapsed_s = cycles_to_ns(read_tsc() - plan.start_tsc) * 1e-9;
  return totals;
}

// Two-level: the dispatch policy picks a worker per request; workers keep their tasks.
DispatchTotals dispatch_two_level(const RunConfig& config, std::span<const Arrival> schedule,
                                  std::span<Worker* const> workers, const WorkerConfig& worker_config,
                                  RunResult& result) {
  auto policy = make_dispatch_policy(config.dispatch_policy, config.seed);
  std::vector<WorkerPort> ports;
  for (Worker* w : workers) ports.push_back(w->port());
  Dispatcher dispatcher(ports, *policy);
  const DispatchTotals totals = drive(dispatcher, ports, worker_config, config, schedule, result);
  return totals;
}

// Centralized: one queue at the dispatcher, slots shared by all workers.
DispatchTotals dispatch_central(const RunConfig& config, std::span<const Arrival> schedule,
                                std::span<Worker* const> workers, const WorkerConfig& worker_config,
                                uint32_t depth, bool steal, RunResult& result) {
  std::vector<WorkerPort> ports;
  std::vector<CentralPort> central_ports;
  for (Worker* w : workers) {
    ports.push_back(w->port());
    central_ports.push_back(w->central_port());
  }
  CentralQueues queues;
  const std::size_t queue_count = steal ? workers.size() : 1;
  for (std::size_t i = 0; i < queue_count; ++i) {
    queues.queues.push_back(make_local_policy(config.local_policy, worker_config.central_slots->capacity()));
  }
  CentralDispatcher dispatcher(central_ports, *worker_config.central_slots, std::move(queues), depth,
                               config.dispatcher_works, worker_config.quantum_cycles, worker_config.class_count,
                               config.seed);
  const DispatchTotals totals = drive(dispatcher, ports, worker_config, config, schedule, result);
  const CentralTotals& central = dispatcher.totals();
  result.requeued = central.requeued;
  result.max_outstanding = central.max_outstanding;
  result.dispatcher_requests = central.dispatcher_requests;
  result.steals = central.steals;
  result.quanta += central.dispatcher_quanta;
  result.completed += central.dispatcher_requests;
  result.app_errors += central.dispatcher_app_errors;
  merge_into(result.classes, dispatcher.own_stats());
  return totals;
}

}  // namespace

RunResult run_in_process(const RunConfig& config, const Workload& workload, const quanta_app& app) {
  RunResult result;
  result.config = config;
  const unsigned limit = max_workers();
  unsigned workers = config.workers ? config.workers : limit;
  if (workers > limit && !config.oversubscribe) {
    throw std::invalid_argument("--workers " + std::to_string(workers) + " is more than this machine allows (" +
                                std::to_string(limit) + ": one CPU per worker plus one for the dispatcher)");
  }
  result.config.workers = workers;
  result.offered_rps = offered_rate_rps(config, workload, workers);
  result.config.rate_rps = result.offered_rps;
  result.tsc_per_ns = tsc_per_ns();

  const std::vector<Arrival> schedule =
      make_poisson_schedule(workload, {result.offered_rps, config.duration_s, config.seed});

  const DispatchSpec spec = parse_dispatch_spec(config.dispatch_policy);
  const bool steal = spec.kind == DispatchSpec::Kind::kSteal;
  // steal runs on the centralized machinery too, with a queue per worker.
  const bool central = steal || spec.kind == DispatchSpec::Kind::kCentral || spec.kind == DispatchSpec::Kind::kJbsq;
  if (config.dispatcher_works && (steal || !central)) {
    throw std::invalid_argument("--dispatcher-works needs --dispatch central or jbsq:K");
  }
  const PreemptMechanism mechanism = parse_preempt_mechanism(config.preempt);
  if (config.dispatcher_works && mechanism != PreemptMechanism::kClock && mechanism != PreemptMechanism::kHybrid) {
    throw std::invalid_argument("--dispatcher-works needs --preempt clock or hybrid: the dispatcher stops its own "
                                "request with clock probes");
  }
  const uint32_t depth = spec.kind == DispatchSpec::Kind::kJbsq ? spec.depth : 1;
  WorkerConfig worker_config;
  worker_config.app = &app;
  worker_config.local_policy = config.local_policy;
  worker_config.task_slots = config.task_slots;
  worker_config.stack_bytes = static_cast<std::size_t>(config.stack_kib) * 1024;
  worker_config.ring_capacity = config.ring_capacity;
  worker_config.quantum_cycles = ns_to_cycles(config.quantum_us * 1000.0);
  worker_config.preempt = parse_preempt_mechanism(config.preempt);
  worker_config.backstop_cycles = ns_to_cycles(config.backstop_us * 1000.0);
  if (worker_config.preempt == PreemptMechanism::kSignal || worker_config.preempt == PreemptMechanism::kHybrid) {
    install_preempt_signal_handler();
  }
  worker_config.class_count = workload.classes().size();
  std::unique_ptr<CentralSlots> central_slots;
  if (central) {
    // As many requests in the system at once as the two-level runtime admits.
    central_slots = std::make_unique<CentralSlots>(config.task_slots * workers, worker_config.stack_bytes, app);
    worker_config.central_slots = central_slots.get();
    worker_config.central_depth = depth;
  }

  if (app.setup != nullptr && app.setup(nullptr) != 0) {
    throw std::runtime_error(std::string("the app '") + (app.name ? app.name : "?") + "' failed its setup");
  }

  std::vector<std::unique_ptr<Worker>> owned;
  std::vector<Worker*> worker_ptrs;
  for (unsigned i = 0; i < workers; ++i) {
    owned.push_back(std::make_unique<Worker>(static_cast<int>(i), worker_config));
    worker_ptrs.push_back(owned.back().get());
  }

  const std::vector<int> cpus = allowed_cpus();
  const int dispatcher_cpu = cpus.front();
  std::vector<std::unique_ptr<PinnedThread>> threads;
  for (unsigned i = 0; i < workers; ++i) {
    const int cpu = cpus[(1 + i) % cpus.size()];
    threads.push_back(std::make_unique<PinnedThread>(cpu, [w = worker_ptrs[i]] { w->run(); }));
  }
  // Dispatch only once every worker is up: a worker whose setup failed would never drain
  // its ring.
  for (unsigned i = 0; i < workers; ++i) {
    while (worker_ptrs[i]->state() == Worker::State::kStarting) cpu_relax();
  }
  for (unsigned i = 0; i < workers; ++i) {
    if (worker_ptrs[i]->state() == Worker::State::kSetupFailed) {
      for (Worker* w : worker_ptrs) w->request_stop();
      for (auto& t : threads) t->join();
      throw std::runtime_error("the app's setup_worker failed on worker " + std::to_string(i));
    }
  }

  DispatchTotals totals;
  {
    ScopedPin pin(dispatcher_cpu);
    totals = central ? dispatch_central(config, schedule, worker_ptrs, worker_config, depth, steal, result)
                     : dispatch_two_level(config, schedule, worker_ptrs, worker_config, result);
  }
  for (Worker* w : worker_ptrs) w->request_stop();
  for (auto& t : threads) t->join();

  for (unsigned i = 0; i < workers; ++i) {
    const Worker& w = *worker_ptrs[i];
    merge_into(result.classes, w.stats());
    result.completed += w.totals().completed;
    result.quanta += w.totals().quanta;
    result.app_errors += w.totals().app_errors;
    result.unbalanced_disables += w.totals().unbalanced_disables;
    result.signals_received += w.totals().signals.received;
    result.signal_switches += w.totals().signals.switched;
    result.signals_deferred += w.totals().signals.deferred;
    result.migrations += w.totals().migrations;
  }
  result.classes.resize(workload.classes().size());
  result.dispatch = totals;
  return result;
}

}  // namespace quanta
