#include "linux_runtime/pool_thread.h"

#include <sched.h>
#include <sys/resource.h>

#include <cerrno>

#include "core/tsc.h"
#include "linux_runtime/sched_policy.h"

namespace quanta {

PoolThread::PoolThread(const PoolThreadConfig& config, RequestQueue& queue)
    : config_(config), queue_(queue), stats_(config.class_count), thread_([this] { run(); }) {}

void PoolThread::run() {
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
  const double ns_per_cycle = 1.0 / tsc_per_ns();
  RequestMsg msg;
  while (queue_.pop(msg)) {
    const quanta_request request{msg.id, msg.class_index, sizeof msg.payload, &msg.payload};
    const CpuTimedHandler::Outcome outcome = handler.call(request);
    const uint64_t finish_tsc = read_tsc();
    if (msg.flags & kRequestMeasured) {
      const auto sojourn_ns = static_cast<uint64_t>(static_cast<double>(finish_tsc - msg.arrival_tsc) * ns_per_cycle);
      // The kernel's preemptions seen inside the handler stand for the runtime's quanta.
      stats_[msg.class_index].record(sojourn_ns, msg.service_ns, outcome.off_cpu_gaps);
    }
    if (outcome.response.status != 0) ++app_errors_;
    off_cpu_gaps_ += outcome.off_cpu_gaps;
    off_cpu_cycles_ += outcome.off_cpu_cycles;
    ++completed_;
    last_finish_tsc_ = finish_tsc;
  }
}

}  // namespace quanta
