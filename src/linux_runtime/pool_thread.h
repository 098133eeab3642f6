// One thread of the kernel-thread pool: takes requests from the shared queue until it is
// closed, runs each handler to completion, keeps its own statistics.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "linux_runtime/cpu_timed_handler.h"
#include "linux_runtime/kernel_thread_options.h"
#include "linux_runtime/request_queue.h"
#include "stats/request_recorder.h"
#include "stats/stall_log.h"

namespace quanta {

struct PoolThreadConfig {
  const quanta_app* app = nullptr;
  int index = 0;                 // handed to the app's setup_worker
  std::vector<int> cpus;         // affinity: the kernel picks among them
  KernelThreadOptions options;
  std::size_t stack_bytes = 64 * 1024;
  std::size_t class_count = 1;
  const StallWatch* stalls = nullptr;  // the stalls that can have delayed a request (never null)
  int pool_class = -1;           // --class-sched: the request class whose pool it is (-1: the one pool)
};

class PoolThread {
 public:
  enum class State { kStarting, kReady, kFailed };

  PoolThread(const PoolThreadConfig& config, RequestQueue& queue);
  ~PoolThread() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  State state() const { return state_.load(std::memory_order_acquire); }
  int error() const { return error_; }          // errno of the policy call (kFailed)
  bool setup_failed() const { return setup_failed_; }

  // Valid after join().
  const RequestRecorder& recorded() const { return recorder_; }
  uint64_t completed() const { return completed_; }
  uint64_t app_errors() const { return app_errors_; }
  uint64_t last_finish_tsc() const { return last_finish_tsc_; }
  uint64_t involuntary_switches() const { return involuntary_switches_; }
  uint64_t voluntary_switches() const { return voluntary_switches_; }
  uint64_t off_cpu_gaps() const { return off_cpu_gaps_; }
  uint64_t off_cpu_cycles() const { return off_cpu_cycles_; }

 private:
  void run();
  void serve();

  PoolThreadConfig config_;
  RequestQueue& queue_;
  std::atomic<State> state_{State::kStarting};
  int error_ = 0;
  bool setup_failed_ = false;
  RequestRecorder recorder_;
  uint64_t completed_ = 0;
  uint64_t app_errors_ = 0;
  uint64_t last_finish_tsc_ = 0;
  uint64_t involuntary_switches_ = 0;
  uint64_t voluntary_switches_ = 0;
  uint64_t off_cpu_gaps_ = 0;
  uint64_t off_cpu_cycles_ = 0;
  std::thread thread_;  // last: starts once every field above exists
};

}  // namespace quanta
