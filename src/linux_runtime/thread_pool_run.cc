#include "linux_runtime/thread_pool_run.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/tsc.h"
#include "experiment/in_process_run.h"
#include "io/generator_source.h"
#include "io/schedule.h"
#include "linux_runtime/pool_thread.h"
#include "linux_runtime/sched_policy.h"
#include "runtime/cpu_layout.h"
#include "runtime/dispatcher.h"
#include "runtime/runtime.h"
#include "stats/stall_log.h"

namespace quanta {
namespace {

// Polls the generator on the calling (pinned) thread into the shared queue, as the quanta
// dispatcher polls its sources into its rings: latency counts from the intended arrival.
// Gaps in its loop go to `stalls`, as in the quanta dispatcher (the pool threads sleep in
// the kernel, so they notice none).
DispatchTotals replay(GeneratorSource& generator, RequestQueue& queue, StallLog& stalls) {
  DispatchTotals totals;
  const uint64_t late_cycles = ns_to_cycles(1000);
  Request* batch[32];
  uint64_t last = read_tsc();
  while (!generator.exhausted()) {
    const uint64_t now = read_tsc();
    stalls.observe(last, now);
    last = now;
    const uint32_t n = generator.poll(now, batch, 32);
    for (uint32_t i = 0; i < n; ++i) {
      count_taken(totals, *batch[i], now, late_cycles);
      queue.push(batch[i]);
      ++totals.dispatched;
    }
    if (n == 0) cpu_relax();
  }
  return totals;
}

void stop_all(RequestQueue& queue, std::vector<std::unique_ptr<PoolThread>>& threads) {
  queue.close();
  for (auto& t : threads) t->join();
}

}  // namespace

RunResult run_on_kernel_threads(const RunConfig& config, const Workload& workload, const quanta_app& app,
                                const KernelThreadOptions& options, KernelThreadTotals* totals_out) {
  RunResult result;
  result.config = config;
  const unsigned limit = max_workers();
  const unsigned workers = config.workers ? config.workers : limit;
  if (workers > limit) {
    throw std::invalid_argument("--workers " + std::to_string(workers) + " is more than this machine allows (" +
                                std::to_string(limit) + ": one CPU per worker plus one for the dispatcher)");
  }
  if (options.threads_per_core == 0) throw std::invalid_argument("--threads-per-core must be at least 1");
  // The report names what ran instead of the quanta policies, which do not apply here.
  result.config.local_policy = std::string("sched-") + linux_policy_name(options.policy);
  result.config.dispatch_policy = "shared-queue";
  result.config.preempt = "kernel";
  const std::vector<Arrival> schedule = plan_run(config, workload, app, workers, result);
  // The queue holds as many requests as the quanta runtime admits: beyond that the
  // generator waits, and the wait shows up as latency.
  GeneratorSource generator(schedule, workload, app, generator_options_of(config, workers));

  if (app.setup != nullptr && app.setup(config.app_config.c_str()) != 0) {
    throw std::runtime_error(std::string("the app '") + (app.name ? app.name : "?") + "' failed its setup");
  }
  const std::vector<int> cpus = allowed_cpus();
  const int dispatcher_cpu = cpus.front();
  std::vector<int> worker_cpus;
  for (unsigned i = 0; i < workers; ++i) worker_cpus.push_back(cpus[(1 + i) % cpus.size()]);

  PoolThreadConfig thread_config;
  thread_config.app = &app;
  thread_config.cpus = pool_cpus(options, worker_cpus);
  thread_config.options = options;
  thread_config.stack_bytes = static_cast<std::size_t>(config.stack_kib) * 1024;
  thread_config.class_count = workload.classes().size();
  // Only the replay thread spins and reads the clock: the pool threads sleep in the kernel,
  // so the stalls of their CPUs go unseen (docs/linux-baseline.md).
  StallLog stalls(ns_to_cycles(config.stall_threshold_us * 1000.0));
  StallWatch watch;
  watch.watch(&stalls);
  thread_config.stalls = &watch;

  RequestQueue queue;
  std::vector<std::unique_ptr<PoolThread>> threads;
  const unsigned pool_size = options.threads_per_core * workers;
  for (unsigned i = 0; i < pool_size; ++i) {
    thread_config.index = static_cast<int>(i);
    threads.push_back(std::make_unique<PoolThread>(thread_config, queue));
  }
  // Dispatch only once every thread has its class: a refused policy must fail the run,
  // not leave a pool that quietly runs under SCHED_OTHER.
  for (auto& t : threads) {
    while (t->state() == PoolThread::State::kStarting) std::this_thread::yield();
  }
  for (unsigned i = 0; i < pool_size; ++i) {
    if (threads[i]->state() != PoolThread::State::kFailed) continue;
    const PoolThread& failed = *threads[i];
    stop_all(queue, threads);
    if (app.teardown != nullptr) app.teardown();
    if (failed.setup_failed()) throw std::runtime_error("the app's setup_worker failed on pool thread " + std::to_string(i));
    throw std::runtime_error(sched_policy_error(options, failed.error()) + " (pool thread " + std::to_string(i) + ")");
  }

  uint64_t start_tsc = 0;
  {
    ScopedPin pin(dispatcher_cpu);
    start_tsc = read_tsc();
    result.dispatch = replay(generator, queue, stalls);
    result.stall_threshold_us = config.stall_threshold_us;
    result.stalls.push_back(summarize_stalls("dispatcher", dispatcher_cpu, stalls));
    stop_all(queue, threads);
  }

  if (app.teardown != nullptr) app.teardown();
  result.build_failures = generator.build_failures();
  KernelThreadTotals totals;
  totals.threads = pool_size;
  uint64_t last_finish_tsc = start_tsc;
  uint64_t off_cpu_cycles = 0;
  for (const auto& t : threads) {
    result.add_recorded(t->recorded());
    result.completed += t->completed();
    result.app_errors += t->app_errors();
    last_finish_tsc = std::max(last_finish_tsc, t->last_finish_tsc());
    totals.involuntary_switches += t->involuntary_switches();
    totals.voluntary_switches += t->voluntary_switches();
    totals.handler_off_cpu_gaps += t->off_cpu_gaps();
    off_cpu_cycles += t->off_cpu_cycles();
  }
  totals.handler_off_cpu_ms = cycles_to_ns(off_cpu_cycles) * 1e-6;
  result.classes.resize(workload.classes().size());
  result.untouched.resize(workload.classes().size());
  result.elapsed_s = cycles_to_ns(last_finish_tsc - start_tsc) * 1e-9;
  if (totals_out != nullptr) *totals_out = totals;
  return result;
}

}  // namespace quanta
