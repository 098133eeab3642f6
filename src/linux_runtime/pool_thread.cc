#include "linux_runtime/pool_thread.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>

#include "core/tsc.h"
#include "linux_runtime/sched_policy.h"
#include "runtime/request_run.h"

namespace quanta {

PoolThread::PoolThread(const PoolThreadConfig& config, RequestQueue& queue)
    : config_(config), queue_(queue), recorder_(config.class_count, 1.0 / tsc_per_ns()), thread_([this] { run(); }) {}

void PoolThread::run() {
  // Named for ps and /proc (tests read each thread's class back by its name).
  char name[16];
  if (config_.pool_class >= 0) {
    std::snprintf(name, sizeof name, "quanta-c%d", config_.pool_class);
  } else {
    std::snprintf(name, sizeof name, "quanta-pool");
  }
  pthread_setname_np(pthread_self(), name);
  // Affinity first, then the class: SCHED_DEADLINE checks the affinity when it is set.
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : config_.cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    error_ = errno;
    state_.store(State::kFailed, std::memory_order_release);
    return;
  }
  if (const int error = apply_sched_policy(config_.options); error != 0) {
    error_ = error;
    state_.store(State::kFailed, std::memory_order_release);
    return;
  }
  const quanta_app& app = *config_.app;
  if (app.setup_worker != nullptr && app.setup_worker(config_.index) != 0) {
    setup_failed_ = true;
    state_.store(State::kFailed, std::memory_order_release);
    return;
  }
  state_.store(State::kReady, std::memory_order_release);
  serve();
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) == 0) {
    involuntary_switches_ = static_cast<uint64_t>(usage.ru_nivcsw);
    voluntary_switches_ = static_cast<uint64_t>(usage.ru_nvcsw);
  }
}

void PoolThread::serve() {
  CpuTimedHandler handler(*config_.app, config_.stack_bytes);
  Request* request = nullptr;
  while (queue_.pop(request)) {
    const CpuTimedHandler::Outcome outcome = handler.call(*request);
    const uint64_t finish_tsc = read_tsc();
    if (request->status != 0) ++app_errors_;
    off_cpu_gaps_ += outcome.off_cpu_gaps;
    off_cpu_cycles_ += outcome.off_cpu_cycles;
    ++completed_;
    last_finish_tsc_ = finish_tsc;
    // The kernel's preemptions seen inside the handler stand for the runtime's quanta.
    const Task& task = handler.task();
    finish_request(*request, task.first_run_tsc, finish_tsc, task.attained_cycles, outcome.off_cpu_gaps,
                   config_.index, recorder_, *config_.stalls);
  }
  if (config_.app->teardown_worker != nullptr) config_.app->teardown_worker(config_.index);
}

}  // namespace quanta
