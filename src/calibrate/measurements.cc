#include "calibrate/measurements.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "core/stack_pool.h"
#include "core/task.h"
#include "core/tsc.h"
#include "policy/dispatch_policy.h"
#include "preempt/preempt_state.h"
#include "preempt/quantum_runner.h"
#include "preempt/signal_preempt.h"
#include "quanta/fn.h"
#include "quanta/probe.h"
#include "quanta/quanta.h"
#include "runtime/dispatcher.h"
#include "runtime/quantum_monitor.h"
#include "runtime/cpu_layout.h"
#include "runtime/request_pool.h"
#include "runtime/runtime.h"
#include "runtime/source.h"
#include "runtime/worker.h"

namespace quanta::calibrate {
namespace {

int second_cpu() {
  const std::vector<int> cpus = allowed_cpus();
  return cpus[1 % cpus.size()];
}

// Median of a few repetitions of a measurement: a VM stall in one repetition moves it
// far, in the median it does not.
template <typename F>
double median_of(int repetitions, F measure) {
  std::vector<double> values;
  for (int i = 0; i < repetitions; ++i) values.push_back(measure());
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

constexpr int kProbeLoop = 1 << 20;

template <int kKind>  // 0: no probe, 1: clock probe, 2: flag probe
void probe_loop(void* raw) {
  auto* x = static_cast<uint64_t*>(raw);
  uint64_t v = *x;
  for (int i = 0; i < kProbeLoop; ++i) {
    v = v * 6364136223846793005ull + 1442695040888963407ull;
    if constexpr (kKind == 1) quanta_probe();
    if constexpr (kKind == 2) quanta_flag_probe();
  }
  *x = v;
}

template <int kKind>
double probe_loop_ns() {
  return median_of(5, [] {
    uint64_t x = 1;
    const uint64_t start = read_tsc();
    // A deadline an hour away: probes check and never fire.
    quanta_fn* f = quanta_fn_launch(&probe_loop<kKind>, &x, ns_to_cycles(3600e9), 0);
    const double ns = cycles_to_ns(read_tsc() - start) / kProbeLoop;
    quanta_fn_destroy(f);
    return ns;
  });
}

void yield_forever(Task&) {
  for (;;) quanta_yield();
}

Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  Spread s;
  s.p50_ns = values[values.size() / 2];
  s.p99_ns = values[values.size() * 99 / 100];
  for (double v : values) s.mean_ns += v / static_cast<double>(values.size());
  return s;
}

}  // namespace

double tsc_read_ns() {
  return median_of(5, [] {
    constexpr int kReads = 1 << 20;
    uint64_t sink = 0;
    const uint64_t start = read_tsc();
    for (int i = 0; i < kReads; ++i) sink += read_tsc();
    const uint64_t end = read_tsc();
    asm volatile("" : : "r"(sink));
    return cycles_to_ns(end - start) / kReads;
  });
}

double quantum_round_trip_ns() {
  StackPool pool(1, 64 * 1024);
  QuantumRunner runner;
  Task task;
  task.start(pool.acquire(), &yield_forever, nullptr);
  return median_of(5, [&] {
    constexpr int kTrips = 1 << 18;
    uint64_t now = read_tsc();
    const uint64_t start = now;
    for (int i = 0; i < kTrips; ++i) {
      runner.resume(task, now, QuantumRunner::kNoDeadline);
      now = task.last_stop_tsc;
    }
    return cycles_to_ns(now - start) / kTrips;
  });
}

double clock_probe_ns() { return std::max(0.0, probe_loop_ns<1>() - probe_loop_ns<0>()); }
double flag_probe_ns() { return std::max(0.0, probe_loop_ns<2>() - probe_loop_ns<0>()); }

Spread flag_notification(int samples) {
  // A task on the second CPU spins on flag probes; this thread, on the first, writes the
  // flag and notes when. The task's runner notes when it got the CPU back. The cycle
  // counter is the same on both CPUs (constant, synchronized TSC).
  uint32_t* flag = nullptr;  // the task thread's own flag word, published before round 0
  std::atomic<uint64_t> written_tsc{0};
  std::atomic<int> round{-1};
  std::vector<double> latencies(static_cast<std::size_t>(samples));
  {
    PinnedThread worker(second_cpu(), [&] {
      StackPool pool(1, 64 * 1024);
      QuantumRunner runner;
      flag = this_thread_flag_word();
      for (int i = 0; i < samples; ++i) {
        Task task;
        task.start(pool.acquire(), [](Task&) {
          for (;;) quanta_flag_probe();
        }, nullptr);
        __atomic_store_n(flag, 0u, __ATOMIC_RELAXED);
        preempt_state().flag_seq = static_cast<uint32_t>(i + 1);
        round.store(i, std::memory_order_release);
        runner.resume(task, read_tsc(), QuantumRunner::kNoDeadline);  // returns at the flag
        latencies[static_cast<std::size_t>(i)] =
            cycles_to_ns(task.last_stop_tsc - written_tsc.load(std::memory_order_acquire));
        pool.release(task.stack);
      }
    });
    ScopedPin pin(allowed_cpus()[0]);
    for (int i = 0; i < samples; ++i) {
      while (round.load(std::memory_order_acquire) != i) cpu_relax();
      // Let the task get into its loop, then end its quantum.
      const uint64_t settle = read_tsc() + ns_to_cycles(2000);
      while (read_tsc() < settle) cpu_relax();
      written_tsc.store(read_tsc(), std::memory_order_release);
      __atomic_store_n(flag, static_cast<uint32_t>(i + 1), __ATOMIC_RELEASE);
    }
  }
  return spread_of(std::move(latencies));
}

namespace {

// Signal-safe (quanta_text) so a preemption signal may switch out of it at once. It
// says it is running first: a signal sent before that finds the worker outside the task
// (stale) or in the switch code (deferred to a probe this loop never reaches), and the
// round would never end.
QUANTA_SIGNAL_SAFE void spin_until_switched(Task& task) {
  static_cast<std::atomic<int>*>(task.user)->fetch_add(1, std::memory_order_release);
  for (;;) asm volatile("" ::: "memory");
}

int gettid_of_this_thread() { return static_cast<int>(syscall(SYS_gettid)); }

}  // namespace

Spread signal_preemption(int samples) {
  install_preempt_signal_handler();
  std::atomic<int> tid{0};
  std::atomic<int> tasks_running{0};  // one count per round, from inside the task
  std::atomic<int> rounds_done{0};
  std::atomic<uint64_t> stop_tsc{0};
  std::vector<double> latencies(static_cast<std::size_t>(samples));
  {
    PinnedThread worker(second_cpu(), [&] {
      tid.store(gettid_of_this_thread());
      StackPool pool(1, 64 * 1024);
      QuantumRunner runner;
      for (int i = 0; i < samples; ++i) {
        Task task;
        task.start(pool.acquire(), &spin_until_switched, &tasks_running);
        preempt_state().signal_deadline_tsc = 0;  // any signal from now on is for this quantum
        runner.resume(task, read_tsc(), QuantumRunner::kNoDeadline);  // returns when the handler switches
        stop_tsc.store(task.last_stop_tsc, std::memory_order_relaxed);
        rounds_done.store(i + 1, std::memory_order_release);
        pool.release(task.stack);
      }
    });
    ScopedPin pin(allowed_cpus()[0]);
    // A lost signal (it should not happen once the task runs) is sent again rather than
    // left to hang; the latency then counts from the last send, and clamps at zero for
    // the switch that raced with a resend.
    const uint64_t resend_after_cycles = ns_to_cycles(50e6);
    for (int i = 0; i < samples; ++i) {
      while (tasks_running.load(std::memory_order_acquire) != i + 1) cpu_relax();
      const uint64_t settle = read_tsc() + ns_to_cycles(5000);
      while (read_tsc() < settle) cpu_relax();
      uint64_t sent_tsc = 0;
      while (rounds_done.load(std::memory_order_acquire) == i) {
        sent_tsc = read_tsc();
        syscall(SYS_tgkill, getpid(), tid.load(), kPreemptSignal);
        while (rounds_done.load(std::memory_order_acquire) == i && read_tsc() - sent_tsc < resend_after_cycles) {
          cpu_relax();
        }
      }
      const uint64_t stop = stop_tsc.load(std::memory_order_relaxed);
      latencies[static_cast<std::size_t>(i)] = stop > sent_tsc ? cycles_to_ns(stop - sent_tsc) : 0.0;
    }
  }
  return spread_of(std::move(latencies));
}

double signal_cpu_cost_ns(int signals) {
  install_preempt_signal_handler();
  // Outside a task every signal is stale: the handler returns at once. The worker spins a
  // fixed number of cycle-counter reads; compare its time with and without signals.
  constexpr int kSpinReads = 2'000'000;
  std::atomic<int> tid{0};
  std::atomic<bool> go{false};
  std::atomic<bool> done{false};
  auto spin_ns = [&](bool with_signals) {
    double ns = 0;
    go.store(false);
    done.store(false);
    PinnedThread worker(second_cpu(), [&] {
      tid.store(gettid_of_this_thread());
      while (!go.load()) cpu_relax();
      const uint64_t start = read_tsc();
      uint64_t sink = 0;
      for (int i = 0; i < kSpinReads; ++i) sink += read_tsc();
      asm volatile("" : : "r"(sink));
      ns = cycles_to_ns(read_tsc() - start);
      done.store(true);
    });
    while (tid.load() == 0) cpu_relax();
    go.store(true);
    int sent = 0;
    while (with_signals && sent < signals && !done.load()) {
      syscall(SYS_tgkill, getpid(), tid.load(), kPreemptSignal);
      ++sent;
      const uint64_t gap = read_tsc() + ns_to_cycles(20'000);  // one every 20 us
      while (read_tsc() < gap && !done.load()) cpu_relax();
    }
    worker.join();
    tid.store(0);
    return std::make_pair(ns, sent);
  };
  ScopedPin pin(allowed_cpus()[0]);
  const double quiet = median_of(3, [&] { return spin_ns(false).first; });
  std::vector<double> per_signal;
  for (int i = 0; i < 3; ++i) {
    const auto [ns, sent] = spin_ns(true);
    if (sent > 0) per_signal.push_back((ns - quiet) / sent);
  }
  std::sort(per_signal.begin(), per_signal.end());
  return per_signal.empty() ? 0 : std::max(0.0, per_signal[per_signal.size() / 2]);
}

namespace {

// `requests` no-op requests, all due at once: the dispatcher never waits for the clock.
// Each goes back to the pool when it completes.
class BurstSource final : public Source, public Sink {
 public:
  BurstSource(std::size_t requests, uint32_t pool_size) : pool_(pool_size, 8, 8), left_(requests) {}
  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override {
    uint32_t n = 0;
    while (n < max && left_ > 0) {
      // Records in batches, as the generator takes them.
      if (free_.empty() && pool_.acquire_all(free_) == 0) break;
      Request* r = &pool_.reset(*free_.back());
      free_.pop_back();
      r->arrival_tsc = now_tsc;
      r->sink = this;
      out[n++] = r;
      --left_;
    }
    return n;
  }
  bool exhausted() const override { return left_ == 0; }
  void close() override { left_ = 0; }
  void complete(Request& r) override { pool_.release(r); }
  void reject(Request& r, RejectReason) override { pool_.release(r); }

 private:
  RequestPool pool_;
  std::vector<Request*> free_;
  std::size_t left_;
};

void noop_handle(const quanta_request*, quanta_response* response) { response->value = 1; }
const quanta_app kNoopApp = [] {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = "noop";
  app.handle_request = &noop_handle;
  return app;
}();

// One no-op run of `requests` through a real runtime with one worker; ns per request.
double noop_run_ns_per_request(std::size_t requests, const std::string& dispatch) {
  RuntimeConfig config;
  config.workers = 1;
  config.dispatch_policy = dispatch;
  config.oversubscribe = true;
  Runtime runtime(config, kNoopApp);
  BurstSource source(requests, config.ring_capacity + config.task_slots + 64);
  runtime.add_source(source);
  runtime.start("");
  const RuntimeResult r = runtime.finish();
  return cycles_to_ns(r.end_tsc - r.start_tsc) / static_cast<double>(requests);
}

}  // namespace

namespace {

// No arrivals for a while, then exhausted; counts the dispatcher's polls.
class QuietSource final : public Source {
 public:
  explicit QuietSource(uint64_t until_tsc) : until_tsc_(until_tsc) {}
  uint32_t poll(uint64_t now_tsc, Request**, uint32_t) override {
    ++polls_;
    if (now_tsc >= until_tsc_) done_ = true;
    return 0;
  }
  bool exhausted() const override { return done_; }
  void close() override { done_ = true; }
  uint64_t polls() const { return polls_; }

 private:
  uint64_t until_tsc_;
  uint64_t polls_ = 0;
  bool done_ = false;
};

}  // namespace

double monitor_poll_ns(double seconds) {
  return median_of(3, [&] {
    SpscRing<Request*> ring(64);
    WorkerCounters counters;
    PreemptFlagLine flag;
    // A quantum under way for an hour: the monitor reads it on every poll and never acts.
    counters.quantum_seq.store(1);
    counters.quantum_start_tsc.store(read_tsc());
    std::vector<WorkerPort> ports{{&ring, &counters, &flag.word}};
    QuantumMonitor monitor(ports, ns_to_cycles(3600e9), QuantumMonitor::Action::kWriteFlag);
    auto policy = make_dispatch_policy("jsq-msq", 1);
    StallLog never(UINT64_MAX);
    Dispatcher dispatcher(ports, *policy, FullRingAction::kWait, never);
    dispatcher.set_watch(WorkerWatch{&monitor, nullptr});
    const uint64_t start = read_tsc();
    QuietSource source(start + ns_to_cycles(seconds * 1e9));
    Source* sources[] = {&source};
    dispatcher.run(sources);
    return cycles_to_ns(read_tsc() - start) / static_cast<double>(std::max<uint64_t>(1, source.polls()));
  });
}

double dispatcher_only_ns_per_request(std::size_t requests) {
  constexpr int kPorts = 4;
  return median_of(3, [&] {
    std::vector<std::unique_ptr<SpscRing<Request*>>> rings;
    std::vector<WorkerCounters> counters(kPorts);
    std::vector<WorkerPort> ports;
    for (int i = 0; i < kPorts; ++i) {
      rings.push_back(std::make_unique<SpscRing<Request*>>(4096));
      ports.push_back({rings.back().get(), &counters[static_cast<std::size_t>(i)]});
    }
    BurstSource source(requests, kPorts * 4096 + 64);
    std::atomic<bool> stop{false};
    // The consumer only drains, completes (the record goes back to the pool) and publishes
    // "finished", so rings stay nearly empty and the time is the dispatcher's.
    PinnedThread consumer(second_cpu(), [&] {
      std::vector<uint64_t> finished(kPorts, 0);
      Request* r = nullptr;
      while (!stop.load(std::memory_order_relaxed)) {
        for (std::size_t i = 0; i < kPorts; ++i) {
          const uint64_t before = finished[i];
          while (rings[i]->try_pop(r)) {
            r->sink->complete(*r);
            ++finished[i];
          }
          // Publish only news: a store to an unchanged line would only pull it away from
          // the dispatcher.
          if (finished[i] != before) counters[i].finished.store(finished[i], std::memory_order_release);
        }
      }
    });
    auto policy = make_dispatch_policy("jsq-msq", 1);
    ScopedPin pin(allowed_cpus()[0]);
    StallLog never(UINT64_MAX);  // nothing reads it: a gap here is noise in the median
    Dispatcher dispatcher(ports, *policy, FullRingAction::kWait, never);
    Source* sources[] = {&source};
    const uint64_t start = read_tsc();
    dispatcher.run(sources);
    const double ns = cycles_to_ns(read_tsc() - start) / static_cast<double>(requests);
    stop.store(true);
    return ns;
  });
}

double two_level_noop_ns_per_request(std::size_t requests) {
  return median_of(3, [&] { return noop_run_ns_per_request(requests, "jsq-msq"); });
}

double central_noop_ns_per_request(std::size_t requests, uint32_t depth) {
  return median_of(3, [&] {
    return noop_run_ns_per_request(requests, depth == 1 ? std::string("central") : "jbsq:" + std::to_string(depth));
  });
}

}  // namespace quanta::calibrate
