#include "runtime/runtime.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/stack_pool.h"
#include "core/tsc.h"
#include "quanta/flag_twins.h"
#include "policy/central_policy.h"
#include "policy/classed_policy.h"
#include "preempt/mechanism.h"
#include "preempt/preempt_state.h"
#include "preempt/signal_preempt.h"
#include "runtime/central_dispatcher.h"
#include "runtime/code_address.h"
#include "runtime/cpu_layout.h"
#include "runtime/quantum_monitor.h"
#include "runtime/quantum_watchdog.h"
#include "runtime/run_sampler.h"
#include "runtime/worker.h"

namespace quanta {
namespace {

// The kernel's limit on memory mappings per process (vm.max_map_count; its usual default
// if it cannot be read), and what the rest of a process takes of it (libraries, heap,
// threads' stacks), generously.
uint64_t kernel_memory_map_limit() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  uint64_t limit = 0;
  if (in >> limit && limit > 0) return limit;
  return 65530;
}
constexpr uint64_t kMapsForTheRest = 2048;

// The object a function was loaded from (an app's .so, or the program), for messages.
std::string object_of(const void* fn) {
  Dl_info info{};
  if (dladdr(fn, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != '\0') return info.dli_fname;
  return "the program";
}

[[noreturn]] void bad(const std::string& option, const std::string& why) {
  throw std::invalid_argument(option + ": " + why);
}

void check_range(const std::string& option, double value, double low, double high) {
  if (!std::isfinite(value) || value < low || value > high) {
    char text[160];
    std::snprintf(text, sizeof text, "must be a number from %g to %g, not %g", low, high, value);
    bad(option, text);
  }
}

bool allowed(const std::vector<int>& cpus, int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }

// The dispatcher's CPU first, then the workers': explicit ones, or the allowed CPUs after
// the dispatcher's in order (wrapping around when oversubscribed).
std::vector<int> cpu_plan(const RuntimeConfig& config, unsigned workers) {
  const std::vector<int> cpus = allowed_cpus();
  const int dispatcher = config.dispatcher_cpu >= 0 ? config.dispatcher_cpu : cpus.front();
  if (!allowed(cpus, dispatcher)) bad("dispatcher_cpu", std::to_string(dispatcher) + " is not in this process's CPU set");
  std::vector<int> plan{dispatcher};
  if (!config.worker_cpus.empty()) {
    for (int cpu : config.worker_cpus) {
      if (!allowed(cpus, cpu)) bad("worker_cpus", std::to_string(cpu) + " is not in this process's CPU set");
      plan.push_back(cpu);
    }
    return plan;
  }
  std::vector<int> rest;
  for (int cpu : cpus) {
    if (cpu != dispatcher) rest.push_back(cpu);
  }
  if (rest.empty()) rest.push_back(dispatcher);  // one CPU: everything shares it
  for (unsigned i = 0; i < workers; ++i) plan.push_back(rest[i % rest.size()]);
  return plan;
}

// Who ends quanta from outside the worker, if anyone: the dispatcher writes flags
// (flag), or signals the worker after the quantum (signal) or after the backstop (hybrid).
std::unique_ptr<QuantumMonitor> make_monitor(std::span<const WorkerPort> ports, const WorkerConfig& config) {
  switch (config.preempt) {
    case PreemptMechanism::kFlag:
      return std::make_unique<QuantumMonitor>(ports, 0, QuantumMonitor::Action::kWriteFlag);
    case PreemptMechanism::kSignal:
      return std::make_unique<QuantumMonitor>(ports, 0, QuantumMonitor::Action::kSignal);
    case PreemptMechanism::kHybrid:
      return std::make_unique<QuantumMonitor>(ports, config.backstop_cycles, QuantumMonitor::Action::kSignal);
    case PreemptMechanism::kClock:
    case PreemptMechanism::kNone:
      break;
  }
  return nullptr;
}

}  // namespace

StallSummary summarize_stalls(const std::string& thread, int cpu, const StallLog& log) {
  return {thread, cpu, log.count(), cycles_to_ns(log.total_cycles()), cycles_to_ns(log.largest_cycles())};
}

unsigned resolve_workers(const RuntimeConfig& config) {
  if (config.dispatcher_only) {
    if (config.workers != 0 || !config.worker_cpus.empty()) {
      bad("--dispatcher-only", "runs no workers: leave --workers and worker_cpus unset");
    }
    return 0;
  }
  const unsigned limit = max_workers();
  const unsigned workers = config.workers ? config.workers : limit;
  if (!config.worker_cpus.empty() && config.workers != 0 && config.worker_cpus.size() != config.workers) {
    bad("worker_cpus", "names " + std::to_string(config.worker_cpus.size()) + " CPUs for " +
                           std::to_string(config.workers) + " workers");
  }
  if (!config.worker_cpus.empty()) return static_cast<unsigned>(config.worker_cpus.size());
  if (workers > limit && !config.oversubscribe) {
    bad("--workers", std::to_string(workers) + " is more than this machine allows (" + std::to_string(limit) +
                         ": one CPU per worker plus one for the dispatcher)");
  }
  return workers;
}

struct Runtime::Parts {
  WorkerConfig worker_config;
  DispatchSpec spec;
  std::vector<int> cpus;  // dispatcher's, then each worker's
  std::unique_ptr<CentralSlots> central_slots;
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<PinnedThread>> worker_threads;
  std::vector<WorkerPort> ports;
  std::vector<CentralPort> central_ports;
  Doorbell wake;                            // rung at stop
  std::unique_ptr<DispatcherSleep> sleep;   // --idle block
  std::unique_ptr<DispatchPolicy> dispatch_policy;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<CentralDispatcher> central_dispatcher;
  std::unique_ptr<QuantumLengths> quanta;   // each request's quantum length; the runtime's can change
  std::unique_ptr<QuantumMonitor> monitor;
  std::unique_ptr<QuantumWatchdog> watchdog;
  std::unique_ptr<PinnedThread> dispatcher_thread;
  // When the dispatcher runs requests itself (--dispatcher-works, --dispatcher-only) it is a
  // worker to the app too: setup_worker(workers) on its thread before it dispatches.
  enum class DispatcherSetup { kStarting, kReady, kFailed };
  std::atomic<DispatcherSetup> dispatcher_setup{DispatcherSetup::kStarting};
  std::unique_ptr<StallLog> dispatcher_stalls;  // the dispatcher's; the workers read it
  StallWatch all_stalls;                         // the dispatcher's and every worker's
  // The adaptive quantum's controller and the per-interval statistics (either may be off).
  std::unique_ptr<LiveHistogram> dispatcher_sojourns;  // of the requests the dispatcher runs itself
  std::unique_ptr<RunSampler> sampler;
  RuntimeResult result;
};

Runtime::Runtime(const RuntimeConfig& config, const quanta_app& app)
    : config_(config), app_(app), workers_(resolve_workers(config)), parts_(std::make_unique<Parts>()) {
  if (app.handle_request == nullptr) bad("app", "'" + std::string(app.name ? app.name : "?") + "' has no handle_request");
  check_range("--quantum-us", config.quantum_us, 1e-3, 1e9);
  check_range("--backstop-us", config.backstop_us, 1e-3, 1e9);
  check_range("--idle-spin-us", config.idle_spin_us, 0, 1e6);
  check_range("--task-slots", config.task_slots, 1, 65536);
  check_range("--stack-kib", config.stack_kib, 16, 65536);
  check_range("--ring-capacity", config.ring_capacity, 2, 1u << 24);
  check_range("class_count", static_cast<double>(config.class_count), 1, 65536);
  check_range("--stall-threshold-us", config.stall_threshold_us, 1, 1e9);
  check_range("--overrun-report-quanta", config.overrun_report_quanta, 0, 1e9);
  if (config.overrun_report_quanta > 0 && config.overrun_report_quanta < 1) {
    bad("--overrun-report-quanta", "must be 0 (never) or at least 1 (a quantum), not " +
                                       std::to_string(config.overrun_report_quanta));
  }
  check_range("--watchdog-ms", config.watchdog_ms, 0, 1e9);
  check_range("--interval-s", config.interval_s, 0, 1e9);
  if (config.adaptive_quantum) {
    const AdaptiveQuantumParams& a = *config.adaptive_quantum;
    check_range("adaptive quantum period_s", a.period_s, 1e-3, 1e6);
    if (!(a.min_us >= 1e-3 && a.min_us < a.max_us && a.max_us <= 1e9)) {
      bad("--quantum-us", "the adaptive quantum needs 0.001 <= MIN < MAX <= 1e9 us");
    }
    if (config.dispatcher_only) {
      bad("--quantum-us", "the adaptive quantum reads the load from the workers' busy time, and --dispatcher-only has "
                          "no workers: give a fixed quantum");
    }
  }
  Parts& p = *parts_;
  p.spec = parse_dispatch_spec(config.dispatch_policy);
  make_local_policy(config.local_policy, 1);  // throws for an unknown name
  const PreemptMechanism mechanism = parse_preempt_mechanism(config.preempt);
  const bool steal = p.spec.kind == DispatchSpec::Kind::kSteal;
  // steal runs on the centralized machinery too, with a queue per worker.
  const bool central = steal || p.spec.kind == DispatchSpec::Kind::kCentral || p.spec.kind == DispatchSpec::Kind::kJbsq;
  if (config.dispatcher_works && (steal || !central)) bad("--dispatcher-works", "needs --dispatch central or jbsq:K");
  if (config.dispatcher_only && p.spec.kind != DispatchSpec::Kind::kCentral) {
    bad("--dispatcher-only", "needs --dispatch central: there are no workers to choose among");
  }
  if (config.dispatcher_only && mechanism != PreemptMechanism::kClock && mechanism != PreemptMechanism::kNone) {
    bad("--dispatcher-only", "needs --preempt clock or none: the dispatcher ends its own quanta with clock probes");
  }
  // The dispatcher stops its own request at a clock deadline: clock probes (clock,
  // hybrid), or under flag, where nobody writes the dispatcher a flag, the clock twin the
  // pass made of the app's handler (include/quanta/flag_twins.h).
  if (config.dispatcher_works && mechanism != PreemptMechanism::kClock && mechanism != PreemptMechanism::kHybrid &&
      mechanism != PreemptMechanism::kFlag) {
    bad("--dispatcher-works", "needs --preempt clock, hybrid or flag: the dispatcher stops its own request with clock "
                              "probes (under flag, in the handler's clock twin)");
  }
  void (*dispatcher_handler)(const quanta_request*, quanta_response*) = nullptr;
  if (config.dispatcher_works && mechanism == PreemptMechanism::kFlag) {
    const void* twin = quanta_flag_twin_of(reinterpret_cast<const void*>(app.handle_request));
    if (twin == nullptr) {
      bad("--dispatcher-works", "with --preempt flag the dispatcher runs the clock twin of the app's handle_request, "
                                "and '" + object_of(reinterpret_cast<const void*>(app.handle_request)) +
                                "' has none (app '" + std::string(app.name ? app.name : "?") +
                                "'): rebuild it with the quanta pass in flag mode, twins on (the default; not "
                                "QUANTA_FLAG_TWINS=0 or -quanta-flag-twins=0), or use --preempt clock");
    }
    dispatcher_handler = reinterpret_cast<void (*)(const quanta_request*, quanta_response*)>(const_cast<void*>(twin));
  }
  if (static_cast<uint64_t>(config.task_slots) * workers_ > (1u << 24)) {
    bad("--task-slots", "times the workers is over 16 M task stacks");
  }
  // Every task stack's guard page splits its pool's mapping: two kernel memory maps per
  // stack. Past the kernel's limit the guard pages cannot be made, deep in start-up.
  const uint64_t stacks = static_cast<uint64_t>(config.task_slots) * workers_ * (central ? 2 : 1);
  const uint64_t map_limit = kernel_memory_map_limit();
  if (2 * stacks + kMapsForTheRest > map_limit) {
    bad("--task-slots", std::to_string(config.task_slots) + " per worker makes " + std::to_string(stacks) +
                            " task stacks, two memory maps each, over this kernel's limit of " +
                            std::to_string(map_limit) + " (vm.max_map_count): use fewer task slots or raise the limit");
  }
  p.cpus = cpu_plan(config, workers_);

  WorkerConfig& wc = p.worker_config;
  wc.app = &app;
  wc.local_policy = config.local_policy;
  wc.task_slots = config.task_slots;
  wc.stack_bytes = static_cast<std::size_t>(config.stack_kib) * 1024;
  wc.ring_capacity = config.ring_capacity;
  if (config.class_quantum_us.size() > config.class_count) {
    bad("class_quantum_us", "has " + std::to_string(config.class_quantum_us.size()) + " lengths for " +
                                std::to_string(config.class_count) + " classes");
  }
  std::vector<uint64_t> class_cycles(config.class_count, 0);
  for (std::size_t i = 0; i < config.class_quantum_us.size(); ++i) {
    if (config.class_quantum_us[i] == 0) continue;
    check_range("class_quantum_us", config.class_quantum_us[i], 1e-3, 1e9);
    class_cycles[i] = ns_to_cycles(config.class_quantum_us[i] * 1000.0);
  }
  p.quanta = std::make_unique<QuantumLengths>(ns_to_cycles(config.quantum_us * 1000.0), std::move(class_cycles));
  wc.quanta = p.quanta.get();
  wc.preempt = mechanism;
  wc.backstop_cycles = ns_to_cycles(config.backstop_us * 1000.0);
  wc.class_count = config.class_count;
  wc.stall_threshold_cycles = ns_to_cycles(config.stall_threshold_us * 1000.0);
  wc.idle = config.idle;
  wc.idle_spin_ns = config.idle_spin_us * 1000.0;
  if (overruns_reported()) wc.overrun_cycles = overrun_mark_cycles();
  if (!config.class_schedule.empty()) {
    // Each worker keeps its own class queues; a central queue has no worker to keep them.
    if (central || config.dispatcher_only) {
      bad("--class-schedule", "needs a two-level --dispatch (jsq-msq, jsq, random, po2): each worker schedules its "
                              "own classes, and '" + config.dispatch_policy + "' keeps one queue at the dispatcher");
    }
    try {
      // The schedule is in us; the workers count budgets in cycle-counter ticks.
      wc.class_schedule = parse_class_schedule(config.class_schedule, tsc_per_ns() * 1000.0);
    } catch (const std::invalid_argument& e) {
      bad("--class-schedule", e.what());
    }
  }
  wc.live_stats = config.adaptive_quantum.has_value() || config.interval_s > 0;
  if (central) {
    // As many requests in the system at once as the two-level runtime admits.
    // Dispatcher only: one thread's worth of slots.
    p.central_slots = std::make_unique<CentralSlots>(config.task_slots * std::max(workers_, 1u), wc.stack_bytes, app,
                                                     dispatcher_handler);
    wc.central_slots = p.central_slots.get();
    wc.central_depth = p.spec.kind == DispatchSpec::Kind::kJbsq ? p.spec.depth : 1;
  }
  for (unsigned i = 0; i < workers_; ++i) p.workers.push_back(std::make_unique<Worker>(static_cast<int>(i), wc));
  // Which stalls can have delayed a finished request: the dispatcher's, and those of the
  // workers that share its queue (its own worker; every worker when the queue is central).
  p.dispatcher_stalls = std::make_unique<StallLog>(wc.stall_threshold_cycles);
  StallWatch all;
  all.watch(p.dispatcher_stalls.get());
  for (const auto& w : p.workers) all.watch(&w->stalls());
  for (const auto& w : p.workers) {
    if (central) {
      w->watch_stalls(all);
    } else {
      StallWatch own;
      own.watch(p.dispatcher_stalls.get());
      own.watch(&w->stalls());
      w->watch_stalls(std::move(own));
    }
  }
  p.all_stalls = std::move(all);
}

Runtime::~Runtime() {
  if (running()) {
    try {
      stop();
    } catch (...) {
      // A destructor must not throw; the threads are joined either way.
    }
  }
}

void Runtime::add_source(Source& source) {
  if (started_) throw std::logic_error("add_source after start");
  sources_.push_back(&source);
}

void Runtime::stop_workers() {
  for (auto& w : parts_->workers) w->request_stop();
  for (auto& t : parts_->worker_threads) t->join();
}

void Runtime::start(const std::string& app_config) {
  if (started_) throw std::logic_error("the runtime was started already");
  Parts& p = *parts_;
  // The watchdog samples where a stuck task is with the same signal handler.
  if (p.worker_config.preempt == PreemptMechanism::kSignal || p.worker_config.preempt == PreemptMechanism::kHybrid ||
      watchdog_wanted()) {
    install_preempt_signal_handler();
  }
  if (app_.setup != nullptr && app_.setup(app_config.c_str()) != 0) {
    throw std::runtime_error(std::string("the app '") + (app_.name ? app_.name : "?") + "' failed its setup");
  }
  try {
    for (unsigned i = 0; i < workers_; ++i) {
      p.worker_threads.push_back(std::make_unique<PinnedThread>(p.cpus[1 + i], [w = p.workers[i].get()] { w->run(); }));
    }
  } catch (...) {
    stop_workers();
    if (app_.teardown != nullptr) app_.teardown();
    throw;
  }
  // Dispatch only once every worker is up: a worker whose setup failed would never drain
  // its ring.
  for (auto& w : p.workers) {
    while (w->state() == Worker::State::kStarting) cpu_relax();
  }
  for (unsigned i = 0; i < workers_; ++i) {
    if (p.workers[i]->state() == Worker::State::kSetupFailed) {
      stop_workers();
      if (app_.teardown != nullptr) app_.teardown();
      throw std::runtime_error("the app's setup_worker failed on worker " + std::to_string(i));
    }
  }

  for (auto& w : p.workers) {
    p.ports.push_back(w->port());
    if (p.central_slots) p.central_ports.push_back(w->central_port());
  }
  p.monitor = make_monitor(p.ports, p.worker_config);
  if (watchdog_wanted()) p.watchdog = std::make_unique<QuantumWatchdog>(p.ports, watchdog_config());
  const WorkerWatch watch{p.monitor.get(), p.watchdog.get()};
  if (config_.idle == IdleMode::kBlock) p.sleep = std::make_unique<DispatcherSleep>(p.wake, sources_.size());
  if (p.central_slots) {
    CentralQueues queues;
    const std::size_t queue_count = p.spec.kind == DispatchSpec::Kind::kSteal ? workers_ : 1;
    for (std::size_t i = 0; i < queue_count; ++i) {
      queues.queues.push_back(make_local_policy(config_.local_policy, p.central_slots->capacity()));
    }
    p.central_dispatcher = std::make_unique<CentralDispatcher>(
        p.central_ports, *p.central_slots, std::move(queues), p.worker_config.central_depth,
        config_.dispatcher_works || config_.dispatcher_only,
        *p.quanta, config_.class_count, config_.on_full, config_.seed, *p.dispatcher_stalls);
    p.central_dispatcher->watch_stalls(p.all_stalls);
    p.central_dispatcher->set_watch(watch);
    p.central_dispatcher->set_idle(config_.idle, config_.idle_spin_us * 1000.0, p.sleep.get());
  } else {
    p.dispatch_policy = make_dispatch_policy(config_.dispatch_policy, config_.seed);
    p.dispatcher = std::make_unique<Dispatcher>(p.ports, *p.dispatch_policy, config_.on_full, *p.dispatcher_stalls);
    p.dispatcher->set_watch(watch);
    p.dispatcher->set_idle(config_.idle, config_.idle_spin_us * 1000.0, p.sleep.get());
  }
  const bool dispatcher_runs_requests = config_.dispatcher_works || config_.dispatcher_only;
  if (p.worker_config.live_stats) start_sampler();
  try {
    p.dispatcher_thread = std::make_unique<PinnedThread>(p.cpus[0], [this, dispatcher_runs_requests] {
      Parts& q = *parts_;
      // Its app index follows the workers': 0 when it is the only one (--dispatcher-only).
      const int app_index = static_cast<int>(workers_);
      if (dispatcher_runs_requests && app_.setup_worker != nullptr && app_.setup_worker(app_index) != 0) {
        q.dispatcher_setup.store(Parts::DispatcherSetup::kFailed, std::memory_order_release);
        return;
      }
      q.dispatcher_setup.store(Parts::DispatcherSetup::kReady, std::memory_order_release);
      install_stack_overflow_reporter();  // the dispatcher runs tasks too (--dispatcher-works)
      // Flag-probed code the handler's twin reaches through a pointer: nobody writes this
      // thread a flag, so its flag probes read the clock instead (docs/runtime.md).
      if (config_.dispatcher_works && q.worker_config.preempt == PreemptMechanism::kFlag) check_clock_at_flag_probes();
      q.result.start_tsc = read_tsc();
      q.result.dispatch = q.central_dispatcher ? q.central_dispatcher->run(sources_) : q.dispatcher->run(sources_);
      q.result.end_tsc = read_tsc();
      if (dispatcher_runs_requests && app_.teardown_worker != nullptr) app_.teardown_worker(app_index);
    });
  } catch (...) {
    p.sampler.reset();
    stop_workers();
    if (app_.teardown != nullptr) app_.teardown();
    throw;
  }
  while (p.dispatcher_setup.load(std::memory_order_acquire) == Parts::DispatcherSetup::kStarting) cpu_relax();
  if (p.dispatcher_setup.load(std::memory_order_acquire) == Parts::DispatcherSetup::kFailed) {
    p.dispatcher_thread->join();
    p.sampler.reset();
    stop_workers();
    if (app_.teardown != nullptr) app_.teardown();
    throw std::runtime_error("the app's setup_worker failed on the dispatcher (worker index " + std::to_string(workers_) +
                             "; it runs requests with --dispatcher-works or --dispatcher-only)");
  }
  started_ = true;
}

void Runtime::start_sampler() {
  Parts& p = *parts_;
  RunSamplerConfig sc;
  sc.adaptive = config_.adaptive_quantum;
  sc.first_quantum_us = config_.quantum_us;
  sc.interval_s = config_.interval_s;
  sc.workers = std::max(workers_, 1u);
  RunSamplerInputs in;
  for (const auto& w : p.workers) {
    in.sojourns.push_back(w->live_sojourns());
    in.busy_cycles.push_back(&w->busy_cycles());
  }
  if (p.central_dispatcher && (config_.dispatcher_works || config_.dispatcher_only)) {
    p.dispatcher_sojourns = std::make_unique<LiveHistogram>();
    p.central_dispatcher->set_live_sojourns(p.dispatcher_sojourns.get());
    in.sojourns.push_back(p.dispatcher_sojourns.get());
  }
  in.in_runtime = [&p] {
    // Finished first: a request counted finished was admitted before, so the difference
    // is never below the truth by a request read in between.
    uint64_t finished = 0;
    for (const auto& w : p.workers) finished += w->counters().finished.load(std::memory_order_acquire);
    if (p.central_dispatcher) finished += p.central_dispatcher->own_finished();
    const uint64_t admitted = p.central_dispatcher ? p.central_dispatcher->admitted() : p.dispatcher->admitted();
    return admitted > finished ? admitted - finished : 0;
  };
  p.sampler = std::make_unique<RunSampler>(sc, std::move(in), *p.quanta);
  p.sampler->start();
}

double Runtime::quantum_us() const { return cycles_to_ns(parts_->quanta->runtime_cycles()) / 1000.0; }

bool Runtime::overruns_reported() const {
  // Only where a quantum has a length: a run to completion has no overruns.
  const WorkerConfig& wc = parts_->worker_config;
  return config_.overrun_report_quanta > 0 && wc.preempt != PreemptMechanism::kNone &&
         make_local_policy(config_.local_policy, 1)->preemptive();
}

uint64_t Runtime::overrun_mark_cycles() const {
  const double cycles = config_.overrun_report_quanta * static_cast<double>(ns_to_cycles(config_.quantum_us * 1000.0));
  return static_cast<uint64_t>(std::min(cycles, 1e18));
}

bool Runtime::watchdog_wanted() const { return workers_ > 0 && (overruns_reported() || config_.watchdog_ms > 0); }

WatchdogConfig Runtime::watchdog_config() const {
  WatchdogConfig w;
  if (overruns_reported()) w.report_after_cycles = overrun_mark_cycles();
  w.stop_after_cycles = ns_to_cycles(config_.watchdog_ms * 1e6);
  w.sample_pc = true;
  w.on_overrun = config_.on_overrun;
  w.on_stuck = config_.on_stuck;
  if (!w.on_stuck) {
    w.on_stuck = [](const std::string& message) {
      std::fprintf(stderr, "quanta: watchdog: %s\n", message.c_str());
      std::fflush(nullptr);
      _exit(1);
    };
  }
  return w;
}

void Runtime::set_quantum_us(double quantum_us) {
  check_range("quantum_us", quantum_us, 1e-3, 1e9);
  if (config_.adaptive_quantum) {
    throw std::logic_error("the adaptive controller sets this runtime's quantum (adaptive_quantum): it would undo the change");
  }
  parts_->quanta->set_runtime_cycles(ns_to_cycles(quantum_us * 1000.0));
}

RuntimeResult Runtime::stop() {
  for (Source* s : sources_) s->close();
  parts_->wake.ring_always();  // a dispatcher asleep (--idle block) sees the sources closed
  return finish();
}

RuntimeResult Runtime::finish() {
  if (!started_) throw std::logic_error("finish before start");
  if (finished_) throw std::logic_error("the runtime was stopped already");
  Parts& p = *parts_;
  p.dispatcher_thread->join();
  stop_workers();
  finished_ = true;
  if (p.sampler) {
    p.sampler->stop();  // every request has finished: the last interval is complete
    p.result.quantum_series = p.sampler->decisions();
    p.result.late_periods = p.sampler->late_periods();
    p.result.intervals = p.sampler->intervals();
  }
  if (app_.teardown != nullptr) app_.teardown();

  RuntimeResult& r = p.result;
  r.workers = workers_;
  r.stall_threshold_us = config_.stall_threshold_us;
  r.stalls.push_back(summarize_stalls("dispatcher", p.cpus[0], *p.dispatcher_stalls));
  for (unsigned i = 0; i < workers_; ++i) {
    r.stalls.push_back(summarize_stalls("worker " + std::to_string(i), p.cpus[1 + i], p.workers[i]->stalls()));
  }
  for (const auto& worker : p.workers) {
    const Worker& w = *worker;
    r.add_recorded(w.recorded());
    r.completed += w.totals().completed;
    r.quanta += w.totals().quanta;
    r.app_errors += w.totals().app_errors;
    r.unbalanced_disables += w.totals().unbalanced_disables;
    r.signals_received += w.totals().signals.received;
    r.signal_switches += w.totals().signals.switched;
    r.signals_deferred += w.totals().signals.deferred;
    const SignalCounters& signals = w.totals().signals;
    for (uint32_t i = 0; i < signals.deferred_sites_kept; ++i) {
      ++r.deferred_signal_objects[code_object_name(signals.deferred_sites[i])];
    }
    r.migrations += w.totals().migrations;
    r.overruns += w.totals().overruns;
    r.worker_sleeps += w.totals().sleeps;
    add_usage(r.class_usage, w.class_usage(1.0 / tsc_per_ns()));
  }
  if (p.monitor) r.monitor_actions = p.monitor->actions();
  if (p.monitor) r.monitor_retries = p.monitor->retries();
  // Counted by the workers, at each quantum's end: the watchdog may not have seen an
  // overrun live (its dispatcher off the CPU meanwhile). Its reports say where.
  if (p.watchdog) r.overrun_reports = p.watchdog->reports();
  if (p.sleep) r.dispatcher_sleeps = p.sleep->sleeps();
  if (p.central_dispatcher) {
    const CentralTotals& central = p.central_dispatcher->totals();
    r.requeued = central.requeued;
    r.max_outstanding = central.max_outstanding;
    r.dispatcher_requests = central.dispatcher_requests;
    r.steals = central.steals;
    r.quanta += central.dispatcher_quanta;
    r.completed += central.dispatcher_requests;
    r.app_errors += central.dispatcher_app_errors;
    r.add_recorded(p.central_dispatcher->own_recorded());
  }
  r.classes.resize(config_.class_count);
  r.untouched.resize(config_.class_count);
  return r;
}

}  // namespace quanta
