#include "linux_runtime/kernel_thread_server.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/idle_backoff.h"
#include "core/tsc.h"
#include "linux_runtime/pool_thread.h"
#include "linux_runtime/request_queue.h"
#include "linux_runtime/sched_policy.h"
#include "runtime/cpu_layout.h"
#include "runtime/dispatcher.h"
#include "runtime/dispatcher_sleep.h"
#include "runtime/doorbell.h"
#include "stats/stall_log.h"

namespace quanta {
namespace {

constexpr uint32_t kBatch = 32;

// The dispatcher's loop: poll every source, push what they give into the shared queue,
// until every source is exhausted. Latency counts from each request's arrival stamp, so
// a late poll shows in the sojourn times and in `late_arrivals`. Gaps in the loop go to
// `stalls` (the pool threads sleep in the kernel, so they notice none), except the time
// it chose to sleep.
// With --class-sched each class has its queue (a class past the last has the last one's).
DispatchTotals feed_queue(std::span<Source* const> sources, std::span<const std::unique_ptr<RequestQueue>> queues,
                          StallLog& stalls, IdleBackoff& idle, DispatcherSleep* sleep) {
  DispatchTotals totals;
  const uint64_t late_cycles = ns_to_cycles(1000);
  Request* batch[kBatch];
  uint64_t last = read_tsc();
  for (;;) {
    const uint64_t now = read_tsc();
    stalls.observe(last, now);
    last = now;
    bool exhausted = false;
    const uint32_t n = poll_sources(sources, now, batch, exhausted);
    for (uint32_t i = 0; i < n; ++i) {
      count_taken(totals, *batch[i], now, late_cycles);
      const std::size_t q = std::min<std::size_t>(batch[i]->class_index, queues.size() - 1);
      queues[q]->push(batch[i]);
      ++totals.dispatched;
    }
    if (n > 0) {
      idle.busy();
      continue;
    }
    if (exhausted) break;
    if (idle.pause(now)) {
      // Nothing in the pool needs the dispatcher awake (no monitor ends quanta here): it
      // sleeps whenever its sources can wake it.
      if (sleep->sleep_or_yield(sources)) last = read_tsc();
      idle.busy();
    }
  }
  return totals;
}

}  // namespace

struct KernelThreadServer::Parts {
  int dispatcher_cpu = 0;
  // One pool (its threads' config and their queue) for every class, or one per class
  // with --class-sched.
  std::vector<PoolThreadConfig> pool_configs;
  std::vector<std::unique_ptr<RequestQueue>> queues;
  std::vector<std::unique_ptr<PoolThread>> threads;
  StallLog stalls;      // the dispatcher's
  StallWatch watch;     // what the pool threads judge their requests by: the dispatcher's stalls
  Doorbell wake;        // rung at stop
  std::unique_ptr<DispatcherSleep> sleep;  // --idle block
  std::unique_ptr<PinnedThread> dispatcher;
  KernelThreadResult result;

  explicit Parts(uint64_t stall_threshold_cycles) : stalls(stall_threshold_cycles) { watch.watch(&stalls); }
};

KernelThreadServer::KernelThreadServer(const KernelThreadServerConfig& config, const quanta_app& app)
    : config_(config), app_(app), workers_(config.workers) {
  if (app.handle_request == nullptr) {
    throw std::invalid_argument("app: '" + std::string(app.name ? app.name : "?") + "' has no handle_request");
  }
  const unsigned limit = max_workers();
  if (workers_ == 0) workers_ = limit;
  if (workers_ > limit) {
    throw std::invalid_argument("--workers " + std::to_string(workers_) + " is more than this machine allows (" +
                                std::to_string(limit) + ": one CPU per worker plus one for the dispatcher)");
  }
  if (config.options.threads_per_core == 0) throw std::invalid_argument("--threads-per-core must be at least 1");
  parts_ = std::make_unique<Parts>(ns_to_cycles(config.stall_threshold_us * 1000.0));
  Parts& p = *parts_;
  const std::vector<int> cpus = allowed_cpus();
  p.dispatcher_cpu = cpus.front();
  std::vector<int> worker_cpus;
  for (unsigned i = 0; i < workers_; ++i) worker_cpus.push_back(cpus[(1 + i) % cpus.size()]);
  const bool per_class = !config.options.class_sched.empty();
  const std::vector<KernelThreadOptions> pools =
      per_class ? parse_class_sched(config.options.class_sched, config.options) : std::vector{config.options};
  for (std::size_t i = 0; i < pools.size(); ++i) {
    PoolThreadConfig tc;
    tc.app = &app;
    tc.cpus = pool_cpus(pools[i], worker_cpus);
    tc.options = pools[i];
    tc.stack_bytes = static_cast<std::size_t>(config.stack_kib) * 1024;
    tc.class_count = config.class_count;
    tc.stalls = &p.watch;
    tc.pool_class = per_class ? static_cast<int>(i) : -1;
    p.pool_configs.push_back(tc);
    p.queues.push_back(std::make_unique<RequestQueue>());
  }
}

KernelThreadServer::~KernelThreadServer() {
  if (running()) {
    try {
      stop();
    } catch (...) {
      // A destructor must not throw; the threads are joined either way.
    }
  }
}

void KernelThreadServer::add_source(Source& source) {
  if (started_) throw std::logic_error("add_source after start");
  sources_.push_back(&source);
}

void KernelThreadServer::stop_pool() {
  for (auto& q : parts_->queues) q->close();
  for (auto& t : parts_->threads) t->join();
}

void KernelThreadServer::start(const std::string& app_config) {
  if (started_) throw std::logic_error("the kernel-thread server was started already");
  Parts& p = *parts_;
  if (config_.idle == IdleMode::kBlock) p.sleep = std::make_unique<DispatcherSleep>(p.wake, sources_.size());
  if (app_.setup != nullptr && app_.setup(app_config.c_str()) != 0) {
    throw std::runtime_error(std::string("the app '") + (app_.name ? app_.name : "?") + "' failed its setup");
  }
  const auto fail = [&](const std::string& why) {
    stop_pool();
    if (app_.teardown != nullptr) app_.teardown();
    throw std::runtime_error(why);
  };
  const unsigned pool_size = config_.options.threads_per_core * workers_;
  std::vector<std::string> labels;  // how the user set each thread's class, for errors
  try {
    for (std::size_t k = 0; k < p.pool_configs.size(); ++k) {
      for (unsigned i = 0; i < pool_size; ++i) {
        PoolThreadConfig tc = p.pool_configs[k];
        tc.index = static_cast<int>(p.threads.size());
        labels.push_back(tc.pool_class >= 0 ? "--class-sched class " + std::to_string(k) : "--linux-policy");
        p.threads.push_back(std::make_unique<PoolThread>(tc, *p.queues[k]));
      }
    }
  } catch (const std::exception& e) {
    fail(std::string("cannot start the pool's threads: ") + e.what());
  }
  // Dispatch only once every thread has its class: a refused policy must fail the run,
  // not leave a pool that quietly runs under SCHED_OTHER.
  for (auto& t : p.threads) {
    while (t->state() == PoolThread::State::kStarting) std::this_thread::yield();
  }
  for (std::size_t i = 0; i < p.threads.size(); ++i) {
    const PoolThread& t = *p.threads[i];
    if (t.state() != PoolThread::State::kFailed) continue;
    if (t.setup_failed()) fail("the app's setup_worker failed on pool thread " + std::to_string(i));
    const KernelThreadOptions& o = p.pool_configs[i / pool_size].options;
    fail(sched_policy_error(o, t.error(), labels[i]) + " (pool thread " + std::to_string(i) + ")");
  }
  try {
    p.dispatcher = std::make_unique<PinnedThread>(p.dispatcher_cpu, [this] {
      Parts& q = *parts_;
      IdleBackoff idle(config_.idle, config_.idle_spin_us * 1000.0);
      q.result.start_tsc = read_tsc();
      q.result.dispatch = feed_queue(sources_, q.queues, q.stalls, idle, q.sleep.get());
    });
  } catch (const std::exception& e) {
    fail(std::string("cannot start the dispatcher: ") + e.what());
  }
  started_ = true;
}

KernelThreadResult KernelThreadServer::stop() {
  for (Source* s : sources_) s->close();
  parts_->wake.ring_always();  // a dispatcher asleep (--idle block) sees the sources closed
  return finish();
}

KernelThreadResult KernelThreadServer::finish() {
  if (!started_) throw std::logic_error("finish before start");
  if (finished_) throw std::logic_error("the kernel-thread server was stopped already");
  Parts& p = *parts_;
  p.dispatcher->join();
  // The threads take what is left in the queue before they see it closed.
  stop_pool();
  finished_ = true;
  if (app_.teardown != nullptr) app_.teardown();

  KernelThreadResult& r = p.result;
  r.end_tsc = read_tsc();
  r.workers = workers_;
  r.stall_threshold_us = config_.stall_threshold_us;
  r.stalls.push_back(summarize_stalls("dispatcher", p.dispatcher_cpu, p.stalls));
  if (p.sleep) r.dispatcher_sleeps = p.sleep->sleeps();
  KernelThreadTotals& kernel = r.kernel;
  kernel.threads = static_cast<unsigned>(p.threads.size());
  r.last_finish_tsc = r.start_tsc;
  uint64_t off_cpu_cycles = 0;
  for (const auto& t : p.threads) {
    r.add_recorded(t->recorded());
    r.completed += t->completed();
    r.app_errors += t->app_errors();
    r.last_finish_tsc = std::max(r.last_finish_tsc, t->last_finish_tsc());
    kernel.involuntary_switches += t->involuntary_switches();
    kernel.voluntary_switches += t->voluntary_switches();
    kernel.handler_off_cpu_gaps += t->off_cpu_gaps();
    off_cpu_cycles += t->off_cpu_cycles();
  }
  kernel.handler_off_cpu_ms = cycles_to_ns(off_cpu_cycles) * 1e-6;
  r.classes.resize(config_.class_count);
  r.untouched.resize(config_.class_count);
  return r;
}

}  // namespace quanta
