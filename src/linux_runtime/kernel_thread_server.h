// The kernel-thread baseline as one object, the counterpart of runtime/runtime.h's Runtime:
// a dispatcher thread that polls sources (the in-process generator of `quanta run
// --runtime linux`, the network front ends of `quanta serve --runtime linux`) into one
// shared queue, and a pool of kernel threads under a Linux scheduling class that take
// requests from it and run each handler to completion, then hand it to its sink.
//
// What the dispatcher does for its sources is what the quanta dispatcher does: it polls
// them in batches (poll_sources), counts what it takes (DispatchTotals), notes the gaps in
// its loop as host stalls, idles as --idle says (spin, yield, or sleep on the sources'
// doorbells). It never waits for the pool: a source's record pool bounds what it has in
// flight, and the queue has no limit of its own. On stop it drains as Runtime::stop
// does: the sources are closed, the dispatcher's last poll takes what they had already
// taken, the pool finishes every request in the queue (each goes to its sink), and a
// front end sends the replies its dispatcher had not sent in its flush_after_stop().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/idle_mode.h"
#include "linux_runtime/kernel_thread_options.h"
#include "quanta/quanta.h"
#include "runtime/runtime.h"
#include "runtime/source.h"

namespace quanta {

// What only this runtime measures, reported under "runtime.kernel" in the JSON.
struct KernelThreadTotals {
  unsigned threads = 0;
  uint64_t involuntary_switches = 0;  // the kernel preempted a pool thread (getrusage)
  uint64_t voluntary_switches = 0;    // a pool thread slept (empty queue, lock)
  uint64_t handler_off_cpu_gaps = 0;  // handler slices in which the thread lost the CPU
  double handler_off_cpu_ms = 0;      // their total length
};

struct KernelThreadServerConfig {
  unsigned workers = 0;           // worker CPUs; 0: one per allowed CPU after the dispatcher's
  KernelThreadOptions options;    // the pool's class and threads_per_core; class_sched: a pool per class
  unsigned stack_kib = 64;        // the stack each pool thread runs its handlers on
  std::size_t class_count = 1;
  double stall_threshold_us = 20;
  IdleMode idle = IdleMode::kSpin;  // the dispatcher's idle loop (the pool threads always sleep)
  double idle_spin_us = 20;
};

struct KernelThreadResult : RuntimeResult {
  KernelThreadTotals kernel;
  uint64_t last_finish_tsc = 0;  // the last request's finish (start_tsc if none ran)
};

class KernelThreadServer {
 public:
  // Checks the configuration: std::invalid_argument naming --workers or --threads-per-core.
  KernelThreadServer(const KernelThreadServerConfig& config, const quanta_app& app);
  ~KernelThreadServer();
  KernelThreadServer(const KernelThreadServer&) = delete;
  KernelThreadServer& operator=(const KernelThreadServer&) = delete;

  // Before start(): a source the dispatcher polls. Not owned.
  void add_source(Source& source);

  // Calls the app's setup(app_config), starts the pool (each thread takes its class, then
  // runs setup_worker with its index) and, once every thread is ready, the dispatcher.
  // Throws std::runtime_error if the setup fails, a thread's setup_worker fails or the
  // kernel refuses the class (the errno text and what to change); nothing is left running.
  void start(const std::string& app_config);

  // Waits until every source is exhausted, lets the pool finish every request taken,
  // stops it (teardown_worker on each thread), calls the app's teardown and returns what
  // was measured. end_tsc is when the pool had finished.
  KernelThreadResult finish();
  // Closes every source (they take no new request), wakes a sleeping dispatcher, finish().
  KernelThreadResult stop();

  bool running() const { return started_ && !finished_; }
  unsigned workers() const { return workers_; }

 private:
  struct Parts;
  void stop_pool();

  KernelThreadServerConfig config_;
  const quanta_app& app_;
  unsigned workers_;
  std::unique_ptr<Parts> parts_;
  std::vector<Source*> sources_;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace quanta
