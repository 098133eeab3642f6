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
DispatchTotals feed_queue(std::span<Source* const> sources, RequestQueue& queue, StallLog& stalls, IdleBackoff& idle,
                          DispatcherSleep* sleep) {
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
      queue.push(batch[i]);
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
  PoolThreadConfig thread_config;
  RequestQueue queue;
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
  PoolThreadConfig& tc = p.thread_config;
  tc.app = &app;
  tc.cpus = pool_cpus(config.options, worker_cpus);
  tc.options = config.options;
  tc.stack_bytes = static_cast<std::size_t>(config.stack_kib) * 1024;
  tc.class_count = config.class_count;
  tc.stalls = &p.watch;
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
  parts_->queue.close();
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
  try {
    for (unsigned i = 0; i < pool_size; ++i) {
      p.thread_config.index = static_cast<int>(i);
      p.threads.push_back(std::make_unique<PoolThread>(p.thread_config, p.queue));
    }
  } catch (const std::exception& e) {
    fail(std::string("cannot start the pool's threads: ") + e.what());
  }
  // Dispatch only once every thread has its class: a refused policy must fail the run,
  // not leave a pool that quietly runs under SCHED_OTHER.
  for (auto& t : p.threads) {
    while (t->state() == PoolThread::State::kStarting) std::this_thread::yield();
  }
  for (unsigned i = 0; i < pool_size; ++i) {
    const PoolThread& t = *p.threads[i];
    if (t.state() != PoolThread::State::kFailed) continue;
    if (t.setup_failed()) fail("the app's setup_worker failed on pool thread " + std::to_string(i));
    fail(sched_policy_error(config_.options, t.error()) + " (pool thread " + std::to_string(i) + ")");
  }
  try {
    p.dispatcher = std::make_unique<PinnedThread>(p.dispatcher_cpu, [this] {
      Parts& q = *parts_;
      IdleBackoff idle(config_.idle, config_.idle_spin_us * 1000.0);
      q.result.start_tsc = read_tsc();
      q.result.dispatch = feed_queue(sources_, q.queue, q.stalls, idle, q.sleep.get());
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
